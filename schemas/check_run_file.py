#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check a Tessera run file (HDF5, format tessera-run/1) against its layout.

    python3 schemas/check_run_file.py RUN.h5 [--quiet]

The layout is shared/design/OUTPUT.md, restated in schemas/run-layout.md.
Checks every root attribute, every dataset of /model, /frames, /bodies,
/constraints, /contacts and /stats for presence, dtype and shape relations
(n bodies, T frames, S steps, R rows, C contacts), the offsets (start at 0,
non-decreasing, end at R and C), and the value ranges the layout fixes
(types, index sets, body indices, subsystems of fixed bodies).

A file whose run did not finish (complete = 0, e.g. killed) may hold one
partly spilled batch in some datasets and not others; it is checked up to its
valid prefix: T = the shortest per-frame dataset (offsets counted as T+1).

Exit status: 0 valid, 1 layout problems (listed on stdout), 2 cannot open.
"""
import sys

try:
    import h5py
    import numpy as np
except ImportError as e:  # pragma: no cover
    print(f"check_run_file: {e} (needs h5py and numpy)", file=sys.stderr)
    sys.exit(2)

FORMAT = "tessera-run/1"

ROOT_ATTRS = {
    "format": "str", "tessera_version": "str", "model_name": "str", "step": "f8",
    "solver": "str", "partitioning": "str", "threads": "int",
    "max_coupling_iterations": "int", "created_utc": "str", "complete": "int",
}

# name: (dtype, trailing shape); "n" is the body count.
MODEL = {
    "body_mass": ("f8", ()), "body_fixed": ("u1", ()), "shape_body": ("i4", ()),
    "shape_type": ("i1", ()), "shape_params": ("f8", (4,)), "shape_pose": ("f8", (7,)),
}
FRAMES = {
    "/frames/time": ("f8", ()), "/frames/step": ("i8", ()),
    "/bodies/position": ("f8", ("n", 3)), "/bodies/orientation": ("f8", ("n", 4)),
    "/bodies/velocity": ("f8", ("n", 6)), "/bodies/subsystem": ("i4", ("n",)),
}
ROWS = {
    "/constraints/type": ("i1", ()), "/constraints/source": ("i4", ()),
    "/constraints/body": ("i4", (2,)), "/constraints/impulse": ("f8", ()),
    "/constraints/index_set": ("i1", ()), "/constraints/subsystem": ("i4", ()),
}
CONTACTS = {
    "/contacts/body": ("i4", (2,)), "/contacts/point": ("f8", (3,)),
    "/contacts/normal": ("f8", (3,)), "/contacts/depth": ("f8", ()),
    "/contacts/impulse": ("f8", (3,)),
    "/contacts/tangent1": ("f8", (3,)),
}
STATS = {
    "step_seconds": "f8", "collide_seconds": "f8", "partition_seconds": "f8",
    "solve_seconds": "f8", "coupling_iterations": "i4", "solver_iterations": "i4",
    "converged": "u1", "mlcp_error": "f8", "constraint_rows": "i4", "contacts": "i4",
    "subsystems": "i4", "interface_rows": "i4", "joint_error": "f8", "penetration": "f8",
}


class Checker:
    def __init__(self, f):
        self.f = f
        self.problems = []
        self.notes = []

    def bad(self, msg):
        self.problems.append(msg)

    def ds(self, path, dtype, trailing, n=None):
        """The dataset at path if it exists with the dtype and trailing shape."""
        if path not in self.f or not isinstance(self.f[path], h5py.Dataset):
            self.bad(f"{path}: missing")
            return None
        d = self.f[path]
        if np.dtype(dtype) != d.dtype:
            self.bad(f"{path}: dtype {d.dtype}, expected {np.dtype(dtype)}")
        want = tuple(n if t == "n" else t for t in trailing)
        if len(d.shape) != 1 + len(want) or tuple(d.shape[1:]) != want:
            self.bad(f"{path}: shape {d.shape}, expected (*, {', '.join(map(str, want))})")
            return None
        return d

    def strings(self, path, scalar=False):
        if path not in self.f:
            self.bad(f"{path}: missing")
            return None
        d = self.f[path]
        if h5py.check_string_dtype(d.dtype) is None:
            self.bad(f"{path}: not a string dataset ({d.dtype})")
            return None
        if scalar and d.shape != ():
            self.bad(f"{path}: shape {d.shape}, expected scalar")
        if not scalar and len(d.shape) != 1:
            self.bad(f"{path}: shape {d.shape}, expected [k]")
        return d

    def root(self):
        a = self.f.attrs
        for name, kind in ROOT_ATTRS.items():
            if name not in a:
                self.bad(f"root attribute {name}: missing")
                continue
            v = a[name]
            if kind == "str" and not isinstance(v, str):
                self.bad(f"root attribute {name}: {type(v).__name__}, expected a string")
            elif kind == "f8" and not np.issubdtype(np.asarray(v).dtype, np.floating):
                self.bad(f"root attribute {name}: {np.asarray(v).dtype}, expected float64")
            elif kind == "int" and not np.issubdtype(np.asarray(v).dtype, np.integer):
                self.bad(f"root attribute {name}: {np.asarray(v).dtype}, expected an integer")
        if a.get("format") != FORMAT:
            self.bad(f"root attribute format = {a.get('format')!r}, expected {FORMAT!r}")
        c = a.get("complete")
        if c is not None and int(c) not in (0, 1):
            self.bad(f"root attribute complete = {c}, expected 0 or 1")
        created = a.get("created_utc", "")
        if isinstance(created, str) and not (len(created) == 20 and created[10] == "T" and created.endswith("Z")):
            self.bad(f"root attribute created_utc = {created!r}, expected YYYY-MM-DDTHH:MM:SSZ")

    def model(self):
        self.strings("/model/source", scalar=True)
        names = self.strings("/model/body_names")
        n = names.shape[0] if names is not None else None
        self.n = n
        jn = self.strings("/model/joint_names")
        if "/model/overrides" in self.f:  # an addition: files written before it lack it
            self.strings("/model/overrides")
        d = {k: self.ds("/model/" + k, dt, tr) for k, (dt, tr) in MODEL.items()}
        if n is not None:
            for k in ("body_mass", "body_fixed"):
                if d[k] is not None and d[k].shape[0] != n:
                    self.bad(f"/model/{k}: {d[k].shape[0]} entries, body_names has {n}")
        G = {d[k].shape[0] for k in ("shape_body", "shape_type", "shape_params", "shape_pose") if d[k] is not None}
        if len(G) > 1:
            self.bad(f"/model/shape_*: lengths differ {sorted(G)}")
        if d["shape_type"] is not None and d["shape_type"].size:
            st = d["shape_type"][:]
            if st.min() < 0 or st.max() > 4:
                self.bad("/model/shape_type: values outside 0..4")
        if d["shape_body"] is not None and d["shape_body"].size and n is not None:
            sb = d["shape_body"][:]
            if sb.min() < 0 or sb.max() >= n:
                self.bad("/model/shape_body: body index outside 0..n-1")
        if d["body_fixed"] is not None and d["body_fixed"].size:
            bf = d["body_fixed"][:]
            if not np.all((bf == 0) | (bf == 1)):
                self.bad("/model/body_fixed: values other than 0 and 1")
            self.fixed = bf.astype(bool)
        if d["shape_pose"] is not None and d["shape_pose"].size:
            q = d["shape_pose"][:, 3:7]
            if np.any(np.abs(np.linalg.norm(q, axis=1) - 1) > 1e-6):
                self.bad("/model/shape_pose: quaternion (columns 3..6) not unit")
        if jn is not None:
            J = jn.shape[0]
            for k, tr in (("joint_type", ()), ("joint_body", (2,))):  # additions, optional
                if "/model/" + k in self.f:
                    x = self.ds("/model/" + k, "i1" if k == "joint_type" else "i4", tr)
                    if x is not None and x.shape[0] != J:
                        self.bad(f"/model/{k}: {x.shape[0]} entries, joint_names has {J}")

    def data(self):
        complete = int(self.f.attrs.get("complete", 0)) == 1
        n = self.n
        fr = {p: self.ds(p, dt, tr, n) for p, (dt, tr) in FRAMES.items()}
        rows = {p: self.ds(p, dt, tr) for p, (dt, tr) in ROWS.items()}
        cons = {p: self.ds(p, dt, tr) for p, (dt, tr) in CONTACTS.items()}
        coff = self.ds("/constraints/offset", "i8", ())
        koff = self.ds("/contacts/offset", "i8", ())
        stats = {k: self.ds("/stats/" + k, dt, ()) for k, dt in STATS.items()}
        if any(x is None for x in list(fr.values()) + [coff, koff]):
            return
        lens = {p: d.shape[0] for p, d in fr.items()}
        lens["/constraints/offset - 1"] = coff.shape[0] - 1
        lens["/contacts/offset - 1"] = koff.shape[0] - 1
        T = min(lens.values())
        if len(set(lens.values())) > 1:
            msg = "frame counts differ: " + ", ".join(f"{p} {v}" for p, v in lens.items())
            (self.bad if complete else self.notes.append)(msg)
        if T < 0:
            self.bad("offsets are empty (they start with a single 0)")
            return
        self.T = T
        co, ko = coff[: T + 1], koff[: T + 1]
        for name, off, group in (("/constraints/offset", co, rows), ("/contacts/offset", ko, cons)):
            if off[0] != 0:
                self.bad(f"{name}[0] = {off[0]}, expected 0")
            if np.any(np.diff(off) < 0):
                self.bad(f"{name}: decreasing")
            L = {p: d.shape[0] for p, d in group.items() if d is not None}
            if len(set(L.values())) > 1:
                (self.bad if complete else self.notes.append)(f"{name} group lengths differ: {L}")
            if L and off[-1] > min(L.values()):
                self.bad(f"{name}[{T}] = {off[-1]} exceeds the {min(L.values())} entries stored")
            if complete and L and off[-1] != max(L.values()):
                self.bad(f"{name}[-1] = {off[-1]}, but {max(L.values())} entries are stored")
        if T == 0:
            self.notes.append("no frames")
        else:
            if co[1] != 0 or ko[1] != 0:
                self.bad("frame 0 (the initial state) has constraint or contact rows")
            t = fr["/frames/time"][:T]
            st = fr["/frames/step"][:T]
            if t[0] != 0 or st[0] != 0:
                self.bad(f"frame 0: time {t[0]}, step {st[0]}, expected 0 and 0")
            if np.any(np.diff(t) < 0) or np.any(np.diff(st) <= 0):
                self.bad("/frames/time decreasing or /frames/step not increasing")
            sub = fr["/bodies/subsystem"][:T]
            if hasattr(self, "fixed") and self.fixed.shape[0] == sub.shape[1] and self.fixed.any():
                if np.any(sub[:, self.fixed] != -1):
                    self.bad("/bodies/subsystem: a fixed body is not in subsystem -1")
            q = fr["/bodies/orientation"][: min(T, 1000)]  # a sample: the array can be GBs
            if q.size and np.any(np.abs(np.linalg.norm(q, axis=2) - 1) > 1e-6):
                self.notes.append("/bodies/orientation: some quaternions are not unit")
        if np.any(np.diff(co) < 0) or np.any(np.diff(ko) < 0):
            return  # row checks need sane offsets; the problem is reported above
        if all(rows[p] is not None for p in rows) and all(cons[p] is not None for p in cons):
            self.rows(rows, cons, co, ko, T, n)
        S = {k: d.shape[0] for k, d in stats.items() if d is not None}
        if len(set(S.values())) > 1:
            (self.bad if complete else self.notes.append)(f"/stats lengths differ: {S}")
        if S and T > 0:
            last = int(fr["/frames/step"][T - 1])
            if complete and last > min(S.values()):
                self.bad(f"last frame is step {last} but /stats holds {min(S.values())} steps")
        if "converged" in S and stats["converged"] is not None and S["converged"]:
            cv = stats["converged"][:]
            if not np.all((cv == 0) | (cv == 1)):
                self.bad("/stats/converged: values other than 0 and 1")


    def rows(self, rows, cons, co, ko, T, n):
        """Value checks of rows and contacts, a block of frames at a time."""
        R, C = int(co[-1]), int(ko[-1])
        if R > min(d.shape[0] for d in rows.values()) or C > min(d.shape[0] for d in cons.values()):
            return  # reported by the offset checks
        t0, found = 0, set()
        contacts_written = int(self.f.attrs.get("output_contacts", 1)) != 0
        while t0 < T:
            t1 = min(T, int(np.searchsorted(co, co[t0] + 1_000_000, side="right")), t0 + 100_000)
            t1 = max(t1, t0 + 1)
            r0, r1, k0, k1 = int(co[t0]), int(co[t1]), int(ko[t0]), int(ko[t1])
            if r1 > r0:
                ty = rows["/constraints/type"][r0:r1]
                ix = rows["/constraints/index_set"][r0:r1]
                b = rows["/constraints/body"][r0:r1]
                src = rows["/constraints/source"][r0:r1]
                if ty.min() < 0 or ty.max() > 4:
                    found.add("/constraints/type: values outside 0..4")
                if ix.min() < -1 or ix.max() > 1:
                    found.add("/constraints/index_set: values outside -1..1")
                if np.any(ix[ty == 0] != 0):
                    found.add("/constraints/index_set: a bilateral joint row (type 0) is not 0")
                if n is not None and (b.min() < -1 or b.max() >= n):
                    found.add("/constraints/body: index outside -1..n-1")
                if rows["/constraints/subsystem"][r0:r1].min() < -1:
                    found.add("/constraints/subsystem: values below -1")
                # Contact rows name a contact of their own frame (not checkable
                # when the contacts were not written: output_contacts = 0).
                if contacts_written:
                    frame_of_row = np.repeat(np.arange(t0, t1), np.diff(co[t0 : t1 + 1]))
                    ncont = np.diff(ko)[frame_of_row]
                    c_rows = (ty == 1) | (ty == 2)
                    if np.any(src[c_rows] < 0) or np.any(src[c_rows] >= ncont[c_rows]):
                        found.add("/constraints/source: a contact row names no contact of its frame")
            if k1 > k0:
                b = cons["/contacts/body"][k0:k1]
                if n is not None and (b.min() < -1 or b.max() >= n):
                    found.add("/contacts/body: index outside -1..n-1")
                nrm = cons["/contacts/normal"][k0:k1]
                if np.any(np.abs(np.linalg.norm(nrm, axis=1) - 1) > 1e-6):
                    found.add("/contacts/normal: not unit")
            t0 = t1
        for msg in sorted(found):
            self.bad(msg)


def check(path):
    """Returns (problems, notes, file summary); raises OSError if unreadable."""
    # swmr=True: a run in progress or killed leaves the file marked open for
    # SWMR writing, and a plain read-only open refuses it.
    with h5py.File(path, "r", swmr=True) as f:
        c = Checker(f)
        c.root()
        c.model()
        c.data()
        info = dict(complete=int(f.attrs.get("complete", -1)), frames=getattr(c, "T", None))
        return c.problems, c.notes, info


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("-")]
    quiet = "--quiet" in argv
    if len(args) != 1:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        problems, notes, info = check(args[0])
    except OSError as e:
        print(f"{args[0]}: cannot open: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # a damaged file must give a verdict, not a traceback
        print(f"{args[0]}: error: cannot check ({type(e).__name__}: {e})")
        return 1
    for p in problems:
        print(f"{args[0]}: error: {p}")
    if not quiet:
        for n in notes:
            print(f"{args[0]}: note: {n}")
        if not problems:
            print(f"{args[0]}: ok ({info['frames']} frames, complete = {info['complete']})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
