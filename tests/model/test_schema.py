#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The JSON Schema and the C loader must agree.

Every example (examples/*.yaml, however many there are) and every fixture in
tests/model/valid/ must validate against schemas/model.schema.json AND load
with the C loader (model_lint, exit 0). Every fixture in tests/model/invalid/
must be rejected by the loader (exit 2, each message "FILE:LINE:COL: error:
..." or "FILE: error: ...", and the text after "# expect:" on its first line
among them) and by the schema, unless the fixture says "# schema: loader-only
(why)" because JSON Schema cannot express that check.

Usage: test_schema.py MODEL_LINT   (meson passes the built model_lint)
"""
import glob
import json
import os
import re
import subprocess
import sys

import jsonschema
import yaml


class Yaml12Loader(yaml.SafeLoader):
    """PyYAML speaks YAML 1.1; the loader reads the 1.2 core schema. Align
    them where it matters: 1e-9 is a float, yes/no/on/off are strings."""


Yaml12Loader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:float")]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"),
    list("-+0123456789."))
# Integers keep PyYAML's int resolver (it comes first for plain digits).


def bool_12(loader, node):
    return loader.construct_scalar(node) in ("true", "True", "TRUE")


Yaml12Loader.add_constructor("tag:yaml.org,2002:bool", bool_12)

MESSAGE = re.compile(r"^(?P<file>.+?)(?::\d+:\d+)?: error: .+$")


def main():
    lint = sys.argv[1]
    root = os.environ.get("TSR_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
    here = os.path.join(root, "tests", "model")
    with open(os.path.join(root, "schemas", "model.schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    examples = os.environ.get("TSR_EXAMPLES", os.path.join(root, "examples"))

    failures = []
    valid = sorted(glob.glob(os.path.join(examples, "*.yaml")) + glob.glob(os.path.join(examples, "**", "*.yaml")))
    valid = sorted(set(valid)) + sorted(glob.glob(os.path.join(here, "valid", "*.yaml")))
    for path in valid:
        try:
            with open(path) as f:
                data = yaml.load(f, Loader=Yaml12Loader)
            errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
        except yaml.YAMLError as e:
            errors = [f"PyYAML: {e}"]
        for e in errors[:5]:
            where = "/".join(str(p) for p in getattr(e, "absolute_path", []))
            failures.append(f"{path}: schema rejects a valid model at '{where}': {getattr(e, 'message', e)}")
        r = subprocess.run([lint, path], capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f"{path}: loader rejects a valid model (exit {r.returncode}):\n{r.stderr}")
        print(f"valid   {os.path.relpath(path, root)}: schema {'ok' if not errors else 'REJECTS'}, "
              f"loader exit {r.returncode}")

    invalid = sorted(glob.glob(os.path.join(here, "invalid", "*.yaml")))
    for path in invalid:
        with open(path) as f:
            text = f.read()
        m = re.match(r"# expect: (.*)\n", text)
        expect = m.group(1) if m else None
        loader_only = re.search(r"^# schema: loader-only", text, re.M) is not None
        r = subprocess.run([lint, path], capture_output=True, text=True)
        lines = r.stderr.splitlines()
        if r.returncode != 2:
            failures.append(f"{path}: loader exit {r.returncode}, expected 2")
        if not lines:
            failures.append(f"{path}: loader printed no message")
        for line in lines:
            mm = MESSAGE.match(line)
            if not mm or mm.group("file") != path:
                failures.append(f"{path}: message not 'FILE:LINE:COL: error: ...': {line}")
        if expect and not any(expect in line for line in lines):
            failures.append(f"{path}: no message contains {expect!r}; got:\n{r.stderr}")
        try:
            data = yaml.load(text, Loader=Yaml12Loader)
            schema_rejects = data is None or any(True for _ in validator.iter_errors(data))
        except yaml.YAMLError:
            schema_rejects = True
        if not loader_only and not schema_rejects:
            failures.append(f"{path}: the schema accepts a model the loader rejects (mark it loader-only if "
                            f"JSON Schema cannot express the check)")
        print(f"invalid {os.path.relpath(path, root)}: loader exit {r.returncode}, schema "
              f"{'rejects' if schema_rejects else 'accepts'}{' (loader-only)' if loader_only else ''}")

    if not invalid or not valid:
        failures.append("no fixtures found")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(valid)} valid and {len(invalid)} invalid models checked, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
