#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes examples/rock_pile.yaml (seed 000 §7.1 and seed 003 "rock pile").

    python3 examples/gen_rock_pile.py > examples/rock_pile.yaml
    python3 examples/gen_rock_pile.py --rocks 120 --seed 7 > /tmp/big.yaml

What the papers give: a large pile of rocks, masses 80-250 kg, pushed by a
stiff, lightweight 1 kg shovel (mass ratio up to 250:1); the contact graph is
not known a priori, so subsystems come from minimum-degree partitioning with
at most 16 bodies each (seed 000 Table 2).

What we chose (the papers give no geometry):
  * 40 rocks (the paper says "large"; 40 keeps a run of the whole scene to a
    few minutes on a 2-core VM; --rocks N writes more), seeded RNG (seed 3),
    masses uniform in [80, 250] kg, sizes from a rock density of 2600 kg/m^3
    (mass given explicitly, inertia the loader's solid-shape default);
  * shapes, in equal shares: spheres; boxes with edges in ratio 0.6-1.4;
    "peanuts" (two equal spheres 1.2 r apart); "tri" rocks (three equal spheres
    at 120 degrees); every rock randomly oriented. Compound parts are placed
    symmetrically so the declared centre of mass (the body origin) is the
    centroid;
  * the pile: layers of 5x4, 4x3, 3x2 and 2x1 rocks on a 0.85 m grid (each
    layer offset by half a cell), centres jittered by up to 5 cm, bottom layer
    1 cm above the ground, layers 0.8 m apart: they are dropped at t = 0 and
    settle into a loose pile within about 2 s;
  * the shovel: a 1 kg compound (a 4.4 m x 1.2 m blade, 5 cm thick, and two
    0.8 m side plates pointing forward), 2 cm above the ground, on a prismatic
    joint to the world along +x with a motor: 0.5 m/s, max force 1e5 N (stiff:
    joint compliance 1e-10). It starts 1.6 m behind the pile and reaches it
    after about 2 s, then pushes the pile about 3 m;
  * contact: rock mu = 0.6, steel (shovel) mu = 0.4 against rock; normal
    compliance 1e-9 m/N; margin 5 mm, at most 4 points per pair; SPOOK
    damping 0.5 steps, not the default 2: with d = 2 a contact keeps
    4d/(1+4d) = 89% of its approach velocity each step, so landing rocks
    sink into each other over several steps (8 s, direct-bpp: max
    penetration 4.6 -> 2.3 cm, steps where BPP ran out of pivots 9 -> 1,
    largest MLCP error 16 -> 0.2 with 0.5);
  * h = 1/60 s, 8 s (480 steps), solver direct-bpp, mindp with 16 bodies.
Standard library only.
"""
import argparse
import math
import random
import sys

DENSITY = 2600.0
GRID = 0.85
LAYERS = [(5, 4), (4, 3), (3, 2), (2, 1)]


def quat_random(rng):
    # uniform random rotation (Shoemake)
    u1, u2, u3 = rng.random(), rng.random(), rng.random()
    a, b = math.sqrt(1 - u1), math.sqrt(u1)
    return (a * math.sin(2 * math.pi * u2), a * math.cos(2 * math.pi * u2),
            b * math.sin(2 * math.pi * u3), b * math.cos(2 * math.pi * u3))


def f3(v):
    return "[" + ", ".join("%.4f" % x for x in v) + "]"


def rock(rng, kind, mass):
    """(shape YAML, bounding radius) for a rock of this mass."""
    v = mass / DENSITY
    if kind == "sphere":
        r = (3 * v / (4 * math.pi)) ** (1 / 3)
        return "{type: sphere, radius: %.4f}" % r, r
    if kind == "box":
        e = [rng.uniform(0.6, 1.4) for _ in range(3)]
        s = (v / (e[0] * e[1] * e[2])) ** (1 / 3)
        e = [x * s for x in e]
        return "{type: box, size: %s}" % f3(e), 0.5 * math.sqrt(sum(x * x for x in e))
    if kind == "peanut":
        # two spheres r, centres +-0.6 r: union volume ~ 2 * 4/3 pi r^3 * 0.84
        r = (v / (2 * 4 / 3 * math.pi * 0.84)) ** (1 / 3)
        d = 0.6 * r
        parts = ", ".join("{type: sphere, radius: %.4f, position: [%.4f, 0, 0]}" % (r, s * d) for s in (-1, 1))
        return "{type: compound, parts: [%s]}" % parts, d + r
    # tri: three spheres r at distance 0.7 r from the centre, 120 degrees apart
    r = (v / (3 * 4 / 3 * math.pi * 0.75)) ** (1 / 3)
    d = 0.7 * r
    parts = ", ".join("{type: sphere, radius: %.4f, position: [%.4f, %.4f, 0]}"
                      % (r, d * math.cos(a), d * math.sin(a)) for a in (0, 2 * math.pi / 3, 4 * math.pi / 3))
    return "{type: compound, parts: [%s]}" % parts, d + r


def sci(v):
    """5e-08 -> 5.0e-8 (the house style of the YAML files)."""
    m, e = ("%.1e" % v).split("e")
    return "%se%d" % (m, int(e))


def emit_scene(w, name, description, duration, max_per_pair, margin, compliance, parts, blade_x, z, rocks, mass_fmt,
               speed, max_force):
    """The model of a rock pile pushed by a shovel (this file and
    gen_large_rock_pile.py): settings, materials (each gets `compliance`),
    the ground, the shovel (compound `parts`, YAML flow maps, at
    [blade_x, 0, z], z a string), the rocks (kind, mass, shape, position,
    quaternion) and the motorised prismatic drive, through w (one line a call)."""
    w("format: tessera-model/1")
    w("name: %s" % name)
    w("description: %s" % description)
    w("settings:")
    w("  step: 0.016666666666666666")
    w("  duration: %.1f" % duration)
    w("  solver: {type: direct-bpp}")
    w("  partitioning: {method: mindp, max_bodies: 16}")
    w("  contact: {max_per_pair: %d, margin: %g}" % (max_per_pair, margin))
    w("materials:")
    w("  - {name: rock, friction: 0.6, compliance: %s, damping: 0.5}" % sci(compliance))
    w("  - {name: steel, friction: 0.4, compliance: %s, damping: 0.5}" % sci(compliance))
    w("material_pairs:")
    w("  - {materials: [steel, rock], friction: 0.4}")
    w("bodies:")
    w("  - name: ground")
    w("    fixed: true")
    w("    shape: {type: plane, normal: [0, 0, 1], offset: 0.0}")
    w("  - name: shovel")
    w("    mass: 1.0")
    w("    material: steel")
    w("    shape:")
    w("      type: compound")
    w("      parts:")
    for part in parts:
        w("        - " + part)
    w("    position: [%.4f, 0, %s]" % (blade_x, z))
    for k, (kind, mass, shape, pos, q) in enumerate(rocks):
        w(("  - {name: rock_%d, mass: " + mass_fmt + ", shape: %s, position: %s, orientation: [%.6f, %.6f, %.6f, %.6f]}")
          % (k, mass, shape, f3(pos), *q))
    w("joints:")
    w("  - name: drive")
    w("    type: prismatic")
    w("    bodies: [world, shovel]")
    w("    anchor: [%.4f, 0, %s]" % (blade_x, z))
    w("    axis: [1, 0, 0]")
    w("    motor: {speed: %g, max_force: %s}" % (speed, sci(max_force)))
    w("    compliance: 1.0e-10")


def main(n_rocks, seed):
    rng = random.Random(seed)
    slots = []
    for li, (nx, ny) in enumerate(LAYERS):
        for i in range(nx):
            for j in range(ny):
                slots.append((li, (i - (nx - 1) / 2) * GRID, (j - (ny - 1) / 2) * GRID))
    base = len(slots)
    while len(slots) < n_rocks:          # more rocks: repeat the pyramid higher up
        li, x, y = slots[len(slots) % base]
        slots.append((li + len(LAYERS) * (len(slots) // base), x, y))
    slots = slots[:n_rocks]
    kinds = ["sphere", "box", "peanut", "tri"]
    rocks = []
    for k, (li, x, y) in enumerate(slots):
        kind = kinds[k % 4] if k < 4 else rng.choice(kinds)
        mass = rng.uniform(80.0, 250.0)
        shape, br = rock(rng, kind, mass)
        q = quat_random(rng)
        zc = 0.01 + 0.40 + 0.8 * li       # bounding radius <= 0.40 m
        assert br <= 0.42, (kind, br)
        pos = (x + rng.uniform(-0.05, 0.05), y + rng.uniform(-0.05, 0.05), zc)
        rocks.append((kind, mass, shape, pos, q))
    xmin = min(p[0] for _, _, _, p, _ in rocks) - 0.42
    blade_x = xmin - 1.6
    masses = [m for _, m, _, _, _ in rocks]

    out = []
    w = out.append
    w("# GENERATED by examples/gen_rock_pile.py (%d rocks, seed %d): seed 000 §7.1 / seed 003 rock pile." % (n_rocks, seed))
    w("# Edit the generator instead. What the papers give: a pile of rocks of 80-250 kg pushed")
    w("# by a stiff, light 1 kg shovel; minimum-degree partitioning, 16 bodies per subsystem.")
    w("# Our choices: %d rocks (spheres, boxes, two- and three-sphere compounds, random" % n_rocks)
    w("# orientation), masses uniform in 80-250 kg (here %.0f-%.0f kg, %.0f kg in all), sizes from" % (
        min(masses), max(masses), sum(masses)))
    w("# 2600 kg/m^3; dropped at t = 0 from a layered grid (0.85 m cells, layers 0.8 m apart) onto")
    w("# a ground plane, settling into a loose pile in ~2 s. The shovel: a 1 kg compound (4.4 x 1.2 m")
    w("# blade, two 0.8 m side plates), 2 cm above the ground, on a prismatic joint to the world")
    w("# along +x with a motor (0.5 m/s, max force 1e5 N, compliance 1e-10); it starts 1.6 m behind")
    w("# the pile, meets it after ~2 s and pushes it ~3 m. mu 0.6 rock, 0.4 shovel-rock; contact")
    w("# compliance 1e-9 m/N, margin 5 mm, 4 points per pair; h = 1/60 s, 8 s.")
    emit_scene(w, "rock_pile", "%d rocks of 80-250 kg pushed by a 1 kg shovel on a motorised prismatic joint." % n_rocks,
               8.0, 4, 0.005, 1e-9,
               ["{type: box, size: [0.05, 4.4, 1.2]}", "{type: box, size: [0.8, 0.05, 1.2], position: [0.425, 2.175, 0]}",
                "{type: box, size: [0.8, 0.05, 1.2], position: [0.425, -2.175, 0]}"],
               blade_x, "0.62", rocks, "%.2f", 0.5, 1e5)
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocks", type=int, default=40)
    ap.add_argument("--seed", type=int, default=3)
    a = ap.parse_args()
    sys.stdout.write(main(a.rocks, a.seed))
