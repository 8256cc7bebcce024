#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes examples/large_rock_pile.yaml (seed 003 §3 "Large Rock Pile").

    python3 examples/gen_large_rock_pile.py > examples/large_rock_pile.yaml
    python3 examples/gen_large_rock_pile.py --rocks 40 --duration 4 > /tmp/small.yaml

What the papers give: the rock pile of seed 000 §7.1 (rocks pushed by a
stiff, lightweight 1 kg shovel; minimum-degree partitioning, 16 bodies per
subsystem) with three times as many rocks, their masses 10, 100 and 1000 kg at
random (seed 003 §3; mass ratio 1000:1 between rocks and between the shovel
and a heavy rock). Seed 003 partitions it with MinDP and MIX, 16 bodies.

What we chose (the papers give no geometry):
  * 120 rocks (3 x the 40 of examples/rock_pile.yaml), seeded RNG (seed 3),
    each mass drawn from {10, 100, 1000} kg with equal odds (the first three
    are one of each); shapes and sizes exactly as in rock_pile (this script
    imports gen_rock_pile.rock): spheres, boxes with edges in ratio 0.6-1.4,
    two- and three-sphere compounds, 2600 kg/m^3 (a 10 kg rock is ~0.2 m
    across, a 1000 kg one ~0.9 m), random orientation; a 1000 kg box reaching
    more than 0.68 m from its centre is redrawn;
  * the pile: 20 columns (5 along x, 4 along y, 1.4 m apart) of 6 rocks each,
    up to 5.3 m tall, the rocks of a column 2 cm apart so that they first
    land on one another gently (a layered grid sized for the 1000 kg rocks
    dropped the top layer 5 m onto the rest at once, and small fast boxes
    sank 10 cm into what they hit). The columns topple within ~1 s and the
    rocks spread into a low, loose pile (1.2 m high, ~9 m across) by ~2 s;
    spheres keep rolling (there is no rolling resistance);
  * the shovel: a 1 kg compound (a blade 5 cm thick, 1.6 m high and 2 m wider
    than the columns, and two 1.2 m side plates pointing forward), 2 cm above
    the ground, on a prismatic joint to the world along +x with a motor: 0.5
    m/s, max force 5e5 N (five times rock_pile's: the pile is seven times
    heavier), joint compliance 1e-10. It starts 1.5 m behind the columns,
    meets the spreading rocks at 1.4 s and keeps its speed through the run:
    5 m of travel in 10 s, the rocks' centre of mass pushed 2.8 m forward,
    107 of the 120 rocks moved 0.5 m or more;
  * contact: rock mu = 0.6, steel (shovel) mu = 0.4 against rock; contact
    compliance 1e-7 m/N, the softest of seed 000's range (each material gets
    5e-8: a contact's compliance is the sum of its materials'). Stiffer,
    BPP fails where 10 kg rocks are squeezed under 1000 kg ones: at 2e-9
    (rock_pile's) direct-bpp failed 7 of the first 240 steps (MLCP error up
    to 81; the failed solves flung rocks at 23 m/s), at 2e-8 it failed 4
    (rocks at 15 m/s); at 1e-7 none. SPOOK damping 0.5 steps, not the
    default 2 (with d = 2 a contact keeps 89% of its approach velocity each
    step; 10 s, direct-bpp: failed steps 10 -> 2, 99th percentile
    penetration 7.2 -> 3.0 cm, mean solve 38 -> 16 ms with 0.5). Margin
    5 mm, at most 4 points per pair. Penetration: ~4 mm typical; up to ~10 cm where a box
    rock (boxes get no speculative contacts) hits something at a few m/s,
    or where the broad phase misses a pair (see the issue-6 report);
  * h = 1/60 s, 10 s (600 steps), solver direct-bpp, mindp with 16 bodies.
Standard library only.
"""
import argparse
import os
import random
import sys

sys.dont_write_bytecode = True  # no __pycache__ in examples/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_rock_pile import emit_scene, quat_random, rock  # noqa: E402  (same folder)

MASSES = (10.0, 100.0, 1000.0)
KINDS = ("sphere", "box", "peanut", "tri")
CELL = 1.4          # column spacing, m
REACH = 0.68        # largest bounding radius allowed (elongated 1000 kg boxes are redrawn)
COLUMNS = (5, 4)    # columns along x and y
GAP = 0.02          # vertical clearance between rocks of a column at t = 0, m


def main(a):
    rng = random.Random(a.seed)
    nx, ny = COLUMNS
    cols = [((i - (nx - 1) / 2) * CELL, (j - (ny - 1) / 2) * CELL) for i in range(nx) for j in range(ny)]
    top = [0.01] * len(cols)          # lowest free height of each column
    rocks = []
    for k in range(a.rocks):
        kind = KINDS[k % 4] if k < 4 else rng.choice(KINDS)
        mass = MASSES[k % 3] if k < 3 else rng.choice(MASSES)
        while True:
            shape, br = rock(rng, kind, mass)
            if br <= REACH:
                break
        q = quat_random(rng)
        c = k % len(cols)
        x, y = cols[c]
        z = top[c] + br
        top[c] = z + br + GAP
        pos = (x + rng.uniform(-0.03, 0.03), y + rng.uniform(-0.03, 0.03), z)
        rocks.append((kind, mass, shape, pos, q))
    xmin = min(p[0] for _, _, _, p, _ in rocks) - REACH
    ymax = max(abs(p[1]) for _, _, _, p, _ in rocks) + REACH
    blade_x = xmin - a.approach
    width = 2 * ymax + 2.0
    masses = [m for _, m, _, _, _ in rocks]
    counts = {m: masses.count(m) for m in MASSES}

    doc = "What the papers give:" + __doc__.split("What the papers give:", 1)[1].rsplit("Standard library only.", 1)[0]
    out = ["# GENERATED by examples/gen_large_rock_pile.py (%d rocks, seed %d): seed 003 §3 large rock pile." % (a.rocks, a.seed),
           "# Edit the generator instead. This file: %d rocks of 10 kg, %d of 100 kg, %d of 1000 kg, %.0f kg in all." % (
               counts[10.0], counts[100.0], counts[1000.0], sum(masses)),
           "#"]
    out += [("# " + s).rstrip() for s in doc.strip().splitlines()]
    w = out.append
    # A contact's compliance is the sum of its two materials' (springs in
    # series, src/contact/rows.c): each material gets half of --compliance.
    zb = 0.02 + a.blade_height / 2
    emit_scene(w, a.name,
               "%d rocks of 10, 100 and 1000 kg pushed by a 1 kg shovel on a motorised prismatic joint." % a.rocks,
               a.duration, a.max_per_pair, a.margin, a.compliance / 2,
               ["{type: box, size: [0.05, %.2f, %.2f]}" % (width, a.blade_height),
                "{type: box, size: [1.2, 0.05, %.2f], position: [0.625, %.3f, 0]}" % (a.blade_height, width / 2 - 0.025),
                "{type: box, size: [1.2, 0.05, %.2f], position: [0.625, %.3f, 0]}" % (a.blade_height, -(width / 2 - 0.025))],
               blade_x, "%.3f" % zb, rocks, "%.1f", a.speed, a.max_force)
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocks", type=int, default=120)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--name", default="large_rock_pile")
    ap.add_argument("--duration", type=float, default=10.0)
    ap.add_argument("--approach", type=float, default=1.5)
    ap.add_argument("--speed", type=float, default=0.5)
    ap.add_argument("--max-force", type=float, default=5e5)
    ap.add_argument("--blade-height", type=float, default=1.6)
    ap.add_argument("--compliance", type=float, default=1e-7)
    ap.add_argument("--max-per-pair", type=int, default=4)
    ap.add_argument("--margin", type=float, default=0.005)
    a = ap.parse_args()
    sys.stdout.write(main(a))
