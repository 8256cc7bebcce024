# SPDX-License-Identifier: MIT
# Run-file datasets for the determinism tests (test_threads.py,
# test_random_models.py): every dataset but the timings and the command
# line the run was given (/model/overrides: the runs compared differ in
# --threads, as the root attribute `threads` does), and bit-equality.
import h5py
import numpy as np

TIMINGS = ("seconds", "_ms")
COMMAND_LINE = ("model/overrides",)


def datasets(path):
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset) and not any(t in name for t in TIMINGS) and name not in COMMAND_LINE:
                out[name] = obj[()]
        f.visititems(visit)
    return out


def same(x, y):
    if isinstance(x, np.ndarray) and isinstance(y, np.ndarray):
        if x.dtype.kind == "f":
            return x.shape == y.shape and np.array_equal(x, y, equal_nan=True)
        return np.array_equal(x, y)
    return x == y
