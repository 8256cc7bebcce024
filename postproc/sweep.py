#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Thread sweeps of `tessera compare`, and a table of their results.

    postproc/sweep.py run MODEL.yaml [MODEL.yaml ...] --threads 1,2,4,8 -d DIR
                      [--solvers direct-bpp,schur-bpp] [--steps N] [--replay REF]
                      [--partitions semantic,mindp:8,bfs:16] [--tessera build/tessera]
    postproc/sweep.py table DIR/*.json [-o TABLE.md]

`run` calls `tessera compare MODEL --json DIR/NAME_tT[_replay-REF].json` once
per model and thread count (and partition, with --partitions: METHOD or
METHOD:MAX_BODIES, given to compare as --partition and --max-bodies; without
it, the model's own) and writes each result as soon as it is done, so a
sweep cut short (a time limit on a borrowed machine) keeps the runs it
finished; an existing result of the same model, solvers and steps is not run
again (delete it to redo it; one of another run is an error). Without
--steps each run covers the model's whole duration.

`table` reads such files (any `tessera compare --json` output) and prints one
row per file and thread count: steps, mean and median solve ms per step of
direct-bpp and of the substructured solver, the ratio of their means
(direct over substructured: above 1 means faster), the median over steps of
that ratio on the same MLCPs (with --replay only), mean coupling iterations,
and the substructured solver's phase split per step (S_Gamma, interface,
subsystems, the longest subsystem solve summed over coupling iterations, the
merged re-runs) with its fallbacks to the direct solver, then its partition
(method and bodies per subsystem), its any-threads bound (compare's: the
solve with every parallel loop at its longest item, the serial code as it
is; no thread count goes below it on that partition) and direct-bpp's mean
over that bound ("at best"). Rows are sorted by model, replay, partition and
threads. The solvers of one file ran side by side in one
process; compare within a file, not across files of a noisy machine.

Needs only Python's standard library.
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUBSTRUCTURED = ("schur-bpp", "schur-pgs-sm", "fbic")


def thread_list(text):
    """'1,2,4' -> [1, 2, 4] (sorted, each at least 1): an argparse type."""
    try:
        ts = sorted({int(t) for t in text.split(",") if t.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError("expected thread counts such as 1,2,4, got %r" % text)
    if not ts or ts[0] < 1:
        raise argparse.ArgumentTypeError("thread counts must be at least 1, got %r" % text)
    return ts


def partition_list(text):
    """'semantic,mindp:8' -> [('semantic', None), ('mindp', 8)]: an argparse type."""
    out = []
    for item in (t.strip() for t in text.split(",")):
        if not item:
            continue
        method, _, mb = item.partition(":")
        if not method or (mb and not (mb.isdigit() and int(mb) >= 1)):
            raise argparse.ArgumentTypeError("expected METHOD or METHOD:MAX_BODIES (e.g. mindp:8), got %r" % item)
        out.append((method, int(mb) if mb else None))
    if not out:
        raise argparse.ArgumentTypeError("no partition in %r" % text)
    return out


def result_name(model, threads, replay, part=None):
    base = os.path.splitext(os.path.basename(model))[0]
    tag = "" if part is None else "_p-%s%s" % (part[0], part[1] or "")
    return "%s_t%d%s%s.json" % (base, threads, tag, "_replay-" + replay if replay else "")


def differs(path, model, a, part=None):
    """Why the result in path is not the run asked for (its model, solvers,
    steps or partition method), or None."""
    try:
        with open(path) as f:
            d = json.load(f)
        rows = d["rows"]
    except (OSError, ValueError, KeyError, TypeError):
        return "unreadable"
    if os.path.abspath(d.get("model") or "") != os.path.abspath(model):
        return "model %s" % d.get("model")
    if [r.get("solver") for r in rows] != a.solvers.split(","):
        return "solvers %s" % ",".join(str(r.get("solver")) for r in rows)
    if a.steps and any(r.get("steps") != a.steps for r in rows if r.get("ok")):
        return "steps %s" % ",".join(str(r.get("steps")) for r in rows)
    if part is not None and any(r.get("partition") != part[0] for r in rows if r.get("solver") in SUBSTRUCTURED):
        return "partition %s" % ",".join(str(r.get("partition")) for r in rows if r.get("solver") in SUBSTRUCTURED)
    return None


def cmd_run(a):
    if not os.access(a.tessera, os.X_OK):
        print("error: %s is not an executable (build first: ./scripts/build.sh)" % a.tessera, file=sys.stderr)
        return 2
    for m in a.models:
        if not os.path.isfile(m):
            print("error: %s: no such model" % m, file=sys.stderr)
            return 2
    try:
        os.makedirs(a.dir, exist_ok=True)
    except OSError as e:
        print("error: %s: %s" % (a.dir, e.strerror), file=sys.stderr)
        return 2
    failed = 0
    for model, part, t in ((m, pt, t) for m in a.models for pt in (a.partitions or [None]) for t in a.threads):
        out = os.path.join(a.dir, result_name(model, t, a.replay, part))
        if os.path.exists(out):
            why = differs(out, model, a, part)
            if why:
                print("error: %s holds another run (%s): delete it, or give another -d" % (out, why),
                      file=sys.stderr)
                return 2
            print("%s: kept (delete it to run again)" % out, file=sys.stderr)
            continue
        cmd = [a.tessera, "compare", model, "--solvers", a.solvers, "--threads", str(t), "--quiet",
               "--json", out + ".tmp"]
        cmd += ["--steps", str(a.steps)] if a.steps else []
        cmd += ["--replay", a.replay] if a.replay else []
        cmd += ["--partition", part[0]] if part else []
        cmd += ["--max-bodies", str(part[1])] if part and part[1] else []
        print(" ".join(cmd), file=sys.stderr, flush=True)
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0 or not os.path.exists(out + ".tmp"):
            print("  failed (exit %d): %s" % (p.returncode, p.stderr.strip()[-400:]), file=sys.stderr)
            failed += 1
            continue
        os.replace(out + ".tmp", out)  # a finished result only
    return 1 if failed else 0


class BadInput(Exception):
    pass


def ms(v):
    return "-" if v is None else ("%.3f" % v if v < 10 else "%.1f" % v)


def table_lines(paths):
    rows = []
    for path in paths:
        try:
            with open(path) as f:
                d = json.load(f)
            by = {r["solver"]: r for r in d["rows"]}
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise BadInput("error: %s: not a `tessera compare --json` result (%s)" % (path, e))
        sub = next((by[s] for s in SUBSTRUCTURED if s in by), None)
        label = "-"
        if sub:
            label = str(sub.get("partition") or "-")
            if sub.get("bodies_per_subsystem"):
                label += " (%s)" % sub["bodies_per_subsystem"]
        rows.append((os.path.splitext(os.path.basename(d.get("model") or "?"))[0], d.get("replay") or "",
                     d.get("threads") or 0, by.get("direct-bpp"), sub, label))
    rows.sort(key=lambda r: (r[0], r[1], r[5], r[2]))
    head = ["model", "replay", "threads", "steps", "direct-bpp mean / median", "solver", "mean / median",
            "direct / solver (means)", "median ratio", "mean k", "S_Gamma", "interface", "subsystems",
            "longest subsystem", "merged", "fallbacks", "partition (bodies)", "any threads", "at best"]
    align = ["---"] * 2 + ["---:"] * 3 + ["---"] + ["---:"] * (len(head) - 6)
    align[head.index("partition (bodies)")] = "---"
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    for model, replay, t, d, s, label in rows:
        ph = (s or {}).get("phase_ms") or {}
        bound = ph.get("any_threads_bound")
        ratio = "%.2fx" % (d["mean_ms"] / s["mean_ms"]) if d and s and d.get("mean_ms") and s.get("mean_ms") else "-"
        mr = (s or {}).get("median_ratio")
        steps = (s or d or {}).get("steps")
        lines.append("| " + " | ".join([
            model, replay or "-", str(t), "-" if steps is None else str(steps),
            "%s / %s" % (ms(d["mean_ms"]), ms(d["median_ms"])) if d else "-",
            s["solver"] if s else "-", "%s / %s" % (ms(s["mean_ms"]), ms(s["median_ms"])) if s else "-",
            ratio, "-" if mr is None else "%.2fx" % mr, "%.2f" % s["mean_k"] if s and s.get("mean_k") is not None else "-",
            ms(ph.get("schur")), ms(ph.get("interface")), ms(ph.get("subsystems")),
            ms(ph.get("subsystems_longest")), ms(ph.get("merged")),
            str(s.get("fallbacks", "-")) if s else "-", label, ms(bound),
            "%.2fx" % (d["mean_ms"] / bound) if d and d.get("mean_ms") and bound else "-"]) + " |")
    return lines


def cmd_table(a):
    try:
        text = "\n".join(table_lines(a.files)) + "\n"
    except BadInput as e:
        print(e, file=sys.stderr)
        return 2
    if not a.output:
        sys.stdout.write(text)
        return 0
    try:
        with open(a.output, "w") as f:
            f.write(text)
    except OSError as e:
        print("error: %s: %s" % (a.output, e.strerror), file=sys.stderr)
        return 2
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sp = ap.add_subparsers(dest="cmd", required=True)
    r = sp.add_parser("run", help="run the sweep")
    r.add_argument("models", nargs="+")
    r.add_argument("--threads", type=thread_list, required=True, help="thread counts, e.g. 1,2,4,8")
    r.add_argument("-d", "--dir", required=True, help="folder for the results (one JSON file per run)")
    r.add_argument("--solvers", default="direct-bpp,schur-bpp")
    r.add_argument("--steps", type=int, default=0, help="steps per run (default: the model's whole duration)")
    r.add_argument("--replay", default=None, help="tessera compare --replay REF: the same MLCPs for every solver")
    r.add_argument("--partitions", type=partition_list, default=None,
                   help="partitions to sweep, METHOD or METHOD:MAX_BODIES, e.g. semantic,mindp:8 (default: the model's)")
    r.add_argument("--tessera", default=os.path.join(ROOT, "build", "tessera"))
    t = sp.add_parser("table", help="markdown table of results")
    t.add_argument("files", nargs="+")
    t.add_argument("-o", "--output", default=None)
    a = ap.parse_args(argv)
    return cmd_run(a) if a.cmd == "run" else cmd_table(a)


if __name__ == "__main__":
    sys.exit(main())
