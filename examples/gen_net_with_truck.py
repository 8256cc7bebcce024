#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes examples/net_with_truck.yaml (seed 000 §7.1 "net with truck").

    python3 examples/gen_net_with_truck.py > examples/net_with_truck.yaml
    python3 examples/gen_net_with_truck.py --cables 4 --links 3 > /tmp/small.yaml

What the paper gives: an 8,000 kg dump truck, 22 bodies and more than 120
constraints, is dropped onto a web of stiff cables of very light bodies
(0.2 kg each; 40,000:1); each cable section, 48-65 bodies and more than 280
constraints, is one subsystem and the truck another (semantic partitioning,
48 bodies, Table 2); the net holds the truck.

What we chose (the paper shows only a picture):
  * the net: 8 cables along x and 8 along y, 1 m apart (crossings at
    -3.5 .. 3.5 m), tied to fixed posts at +-4.5 m (z = 0) by cable joints;
    at every crossing a knot (a 0.2 kg sphere, r = 5 cm) joins the two
    cables; between knots, and from a post to the first knot, 6 capsule links
    (r = 1.2 cm, 0.2 kg, ~15 cm) run knot surface to knot surface. The net
    starts at rest in a sagging shape z = -1.0 m (1 - (x/4.5)^2)(1 - (y/4.5)^2)
    (joint points on that surface, equal chords on each span), so the
    inextensible net can take the truck without stretching;
  * the joints of the net are `cable` joints, stretch 1e-10 m/N (stiff),
    bend and twist 1e-3 rad/(N m) (a rope, not a rod), except that the y
    cables are tied to the knots by ball joints (compliance 1e-10): that
    halves the rows between subsystems (384 instead of 768). SPOOK damping 8
    steps on every joint of the net (not the default 2): the net then soaks
    up the landing; with 2 the truck bounced back up 0.5 m three times on the
    bending springs;
  * subsystems: each x cable with its 8 knots (54 links + 8 knots = 62
    bodies, 63 joints = 378 rows) and each y cable (54 links, 47 cable + 16
    ball joints = 330 rows) is one group, the truck is the group "truck" (22
    bodies, 128 joint rows);
  * the truck (a 3-axle dump truck, 7.3 m x 2.4 m x 2.8 m, front +x; masses
    ours): chassis (2 rails, 4 cross members, bumper: 2230 kg), cab (900),
    exhaust stack (30, fixed to the cab), fuel tank (250) and tool box (100)
    fixed to the chassis, dump bed (floor, sides, headboard, a bracket for
    the hoist: 1900) on a hinge at the rear of the chassis (limits 0 .. 0.9
    rad), tailgate (200) hinged at the top of the bed (limits 0 .. 1.2), two
    hoist cylinders (barrel 80 kg hinged to the chassis, rod 40 kg on a
    prismatic joint with limits and a motor at speed 0 (a locked hoist,
    max force 2e5 N), rod to bed by a ball joint), front axle (350) and two
    rear axles (400) on hinges along x to the chassis (roll, limits +-0.1),
    two steering knuckles (50) on hinges about z to the front axle (limits
    +-0.5, motor at speed 0: locked steering), six wheels (cylinders r = 0.5
    m, 150 kg) on hinges: 22 bodies, 18 joints, 128 rows. Shapes are boxes
    and cylinders, compounds where a part has several. Axle housings are
    boxes, 0.2 m square: thin cylinders (r = 8 cm) let net links sink
    through them (ODE's cylinder-capsule depth then points along the axle,
    up to 24 cm);
  * the drop: the truck starts at rest, level, centred over the net, its
    wheels 0.2 m below the posts' height (0.45-0.7 m above the net under
    them). It lands at ~3 m/s after 0.3 s and the net stops it within
    ~0.2 s (no bounce, chassis 0.54 m below its start); at ~1.5 s it slips
    forward ~0.4 m deeper into the bowl and from ~2 s sits with its chassis
    ~0.67 m below its start, still swaying in the net at 0.1-0.4 m/s; a
    ground plane 3 m below the posts is never reached.
    Joint errors stay below ~1 cm (the last span of the x cable the front
    bumper rests on, ~40 kN), penetration mostly below 3 cm;
  * contact: cable rope mu = 0.3, truck steel mu = 0.4, rubber (wheels)
    against rope 0.8; normal compliance 1e-9 m/N, damping 2; margin 3 cm
    (the truck's boxes and cylinders are not swept like the net's capsules:
    the margin meets them a step before they hit), at most 4 points per
    pair;
  * h = 1/60 s, 4 s (240 steps), solver schur-bpp, semantic partitioning.
Standard library only.
"""
import argparse
import math
import sys

A = 4.5                 # posts at +-A (main() sets it: 1 m beyond the last crossing)
SAG = 1.0
R_LINK = 0.012
R_KNOT = 0.05
M_LINK = 0.2
COMP = "{stretch: 1.0e-10, bend: 1.0e-3, twist: 1.0e-3}, damping: 2.0"


def c(u):
    return 1.0 - (u / A) ** 2


def fmt(v):
    return "[" + ", ".join("%.6f" % x for x in v) + "]"


def sub(a, b):
    return tuple(x - y for x, y in zip(a, b))


def norm(a):
    return math.sqrt(sum(x * x for x in a))


def quat_z_to(d):
    """Quaternion (w, x, y, z) turning +z onto the unit vector d."""
    dx, dy, dz = d
    w = 1.0 + dz
    if w < 1e-9:
        return (0.0, 1.0, 0.0, 0.0)
    q = (w, -dy, dx, 0.0)
    n = norm(q)
    return tuple(x / n for x in q)


def span_points(curve, t0, t1, n):
    """n + 1 points on curve(t), t0 -> t1, first at t0 and last at t1, with n
    equal chords (bisection on the chord length)."""
    end = curve(t1)
    lo, hi = 0.0, 2.0 * norm(sub(curve(t1), curve(t0)))
    for _ in range(80):
        p = 0.5 * (lo + hi)
        pts, t = [curve(t0)], t0
        for _ in range(n):
            a, b = t, t1 + 0.5 * (t1 - t0)
            for _ in range(60):
                m = 0.5 * (a + b)
                if norm(sub(curve(m), pts[-1])) < p:
                    a = m
                else:
                    b = m
            t = b
            pts.append(curve(t))
        # overshoot along the curve: chord too long
        if (t - t1) * (1 if t1 > t0 else -1) > 0:
            hi = p
        else:
            lo = p
    pts[-1] = end
    return pts


def param_at_distance(curve, t_center, direction, dist):
    """Parameter t near t_center, on the `direction` side, with |curve(t) - curve(t_center)| = dist."""
    p0 = curve(t_center)
    a, b = t_center, t_center + direction * 2 * dist
    for _ in range(80):
        m = 0.5 * (a + b)
        if norm(sub(curve(m), p0)) < dist:
            a = m
        else:
            b = m
    return b


def truck(z0):
    """Bodies and joints of the dump truck; z0 = height of the wheel bottoms."""
    B, J = [], []
    z = lambda v: v + z0
    wheel = "{type: cylinder, radius: 0.5, length: 0.35}"
    rails = [("{type: box, size: [7.0, 0.2, 0.3], position: [0.2, %g, 0]}" % y) for y in (-0.45, 0.45)]
    cross = [("{type: box, size: [0.2, 0.7, 0.2], position: [%g, 0, 0]}" % x) for x in (-3.0, -1.9, 0.2, 2.0)]
    bumper = "{type: box, size: [0.2, 2.4, 0.3], position: [3.8, 0, -0.1]}"
    B.append(("chassis", 2230.0, "{type: compound, parts: [%s]}" % ", ".join(rails + cross + [bumper]),
              (0, 0, z(0.95)), None))
    B.append(("cab", 900.0, "{type: box, size: [1.6, 2.4, 1.6]}", (3.0, 0, z(1.95)), None))
    B.append(("exhaust", 30.0, "{type: cylinder, radius: 0.08, length: 1.4}", (2.05, 1.0, z(2.0)), None))
    B.append(("fuel_tank", 250.0, "{type: cylinder, radius: 0.3, length: 1.0}", (1.0, -0.9, z(0.75)),
              "{axis: [0, 1, 0], angle_deg: 90}"))
    B.append(("tool_box", 100.0, "{type: box, size: [0.8, 0.5, 0.5]}", (1.0, 0.9, z(0.8)), None))
    # dump bed: body origin at the floor's centre (x -1.1, z 1.25)
    bed_parts = [
        "{type: box, size: [4.6, 2.4, 0.1]}",                               # floor
        "{type: box, size: [4.6, 0.08, 1.0], position: [0, 1.16, 0.55]}",   # sides
        "{type: box, size: [4.6, 0.08, 1.0], position: [0, -1.16, 0.55]}",
        "{type: box, size: [0.08, 2.4, 1.2], position: [2.26, 0, 0.65]}",   # headboard
        "{type: box, size: [0.55, 1.0, 0.2], position: [2.575, 0, 1.15]}",  # hoist bracket
    ]
    B.append(("bed", 1900.0, "{type: compound, parts: [%s]}" % ", ".join(bed_parts), (-1.1, 0, z(1.25)), None))
    B.append(("tailgate", 200.0, "{type: box, size: [0.08, 2.4, 1.0]}", (-3.44, 0, z(1.8)), None))
    for s, y in (("l", 0.3), ("r", -0.3)):
        B.append(("barrel_" + s, 80.0, "{type: cylinder, radius: 0.1, length: 0.8}", (1.7, y, z(1.6)), None))
        B.append(("rod_" + s, 40.0, "{type: cylinder, radius: 0.06, length: 0.8}", (1.7, y, z(2.2)), None))
    rot_y = "{axis: [1, 0, 0], angle_deg: 90}"      # cylinder axis z -> y
    # axle housings: boxes (the front one ends at the knuckles, y +-0.65, the
    # rear ones at the wheels)
    for name, x, m, l in (("front_axle", 2.6, 350.0, 1.3), ("rear_axle_1", -1.2, 400.0, 1.6),
                          ("rear_axle_2", -2.6, 400.0, 1.6)):
        B.append((name, m, "{type: box, size: [0.2, %g, 0.2]}" % l, (x, 0, z(0.5)), None))
    for s, y in (("l", 0.75), ("r", -0.75)):
        B.append(("knuckle_" + s, 50.0, "{type: box, size: [0.15, 0.1, 0.3]}", (2.6, y, z(0.5)), None))
    wheels = []
    for ax, x in (("f", 2.6), ("r1", -1.2), ("r2", -2.6)):
        for s, y in (("l", 1.0), ("r", -1.0)):
            wheels.append(("wheel_%s%s" % (ax, s), x, y))
            B.append(("wheel_%s%s" % (ax, s), 150.0, wheel, (x, y, z(0.5)), rot_y))
    # joints: (name, type, b0, b1, anchor, extra)
    J.append(("cab_mount", "fixed", "chassis", "cab", (3.0, 0, z(1.1)), ""))
    J.append(("exhaust_mount", "fixed", "cab", "exhaust", (2.15, 1.0, z(2.0)), ""))
    J.append(("tank_mount", "fixed", "chassis", "fuel_tank", (1.0, -0.55, z(0.8)), ""))
    J.append(("box_mount", "fixed", "chassis", "tool_box", (1.0, 0.55, z(0.8)), ""))
    J.append(("bed_pivot", "hinge", "chassis", "bed", (-3.3, 0, z(1.2)), "axis: [0, -1, 0], limits: [0, 0.9]"))
    J.append(("tailgate_pivot", "hinge", "bed", "tailgate", (-3.44, 0, z(2.3)), "axis: [0, 1, 0], limits: [0, 1.2]"))
    for s, y in (("l", 0.3), ("r", -0.3)):
        J.append(("hoist_base_" + s, "hinge", "chassis", "barrel_" + s, (1.7, y, z(1.2)), "axis: [0, 1, 0]"))
        J.append(("hoist_" + s, "prismatic", "barrel_" + s, "rod_" + s, (1.7, y, z(1.9)),
                  "axis: [0, 0, 1], limits: [-0.2, 1.5], motor: {speed: 0, max_force: 2.0e5}"))
        J.append(("hoist_top_" + s, "ball", "rod_" + s, "bed", (1.7, y, z(2.45)), ""))
    for name, x in (("front_axle", 2.6), ("rear_axle_1", -1.2), ("rear_axle_2", -2.6)):
        J.append((name + "_roll", "hinge", "chassis", name, (x, 0, z(0.8)), "axis: [1, 0, 0], limits: [-0.1, 0.1]"))
    for s, y in (("l", 0.75), ("r", -0.75)):
        J.append(("steer_" + s, "hinge", "front_axle", "knuckle_" + s, (2.6, y, z(0.5)),
                  "axis: [0, 0, 1], limits: [-0.5, 0.5], motor: {speed: 0, max_torque: 2.0e4}"))
    for name, x, y in wheels:
        parent = ("knuckle_" + name[-1]) if name.startswith("wheel_f") else ("rear_axle_1" if "r1" in name else "rear_axle_2")
        J.append((name + "_hub", "hinge", parent, name, (x, y, z(0.5)), "axis: [0, 1, 0]"))
    return B, J


def main(ncab, nlink, duration, bend=1e-3, damping=8.0, drop=-0.2):
    global A, COMP, KNOT_BALL
    COMP = "{stretch: 1.0e-10, bend: %g, twist: %g}, damping: %g" % (bend, bend, damping)
    KNOT_BALL = "type: ball, compliance: 1.0e-10, damping: %g" % damping
    us = [(k - (ncab - 1) / 2) * 1.0 for k in range(ncab)]   # crossing coordinates
    A = us[-1] + 1.0
    out = []
    w = out.append
    w("# GENERATED by examples/gen_net_with_truck.py (--cables %d --links %d --duration %g): edit that instead."
      % (ncab, nlink, duration))
    for line in __doc__.strip().splitlines():
        w(("# " + line).rstrip())
    bodies, joints = [], []
    knot_name = {}
    for i, x in enumerate(us):
        for j, y in enumerate(us):
            knot_name[i, j] = "knot_%d_%d" % (i, j)
    # cables: direction 0 = along x (cable index j at y = us[j]), 1 = along y
    n_links = 0
    for d in (0, 1):
        for j, v in enumerate(us):
            if d == 0:
                curve = lambda t, v=v: (t, v, -SAG * c(t) * c(v))
            else:
                curve = lambda t, v=v: (v, t, -SAG * c(t) * c(v))
            cname = ("xcable_%d" if d == 0 else "ycable_%d") % j
            # spans: post -> knot 0, knot k -> knot k+1, knot last -> post
            stops = [(-A, None)] + [(u, (k, j) if d == 0 else (j, k)) for k, u in enumerate(us)] + [(A, None)]
            idx = 0
            for s in range(len(stops) - 1):
                (ta, ka), (tb, kb) = stops[s], stops[s + 1]
                t0 = ta if ka is None else param_at_distance(curve, ta, 1, R_KNOT)
                t1 = tb if kb is None else param_at_distance(curve, tb, -1, R_KNOT)
                pts = span_points(curve, t0, t1, nlink)
                first = idx
                for k in range(nlink):
                    a, b = pts[k], pts[k + 1]
                    ch = sub(b, a)
                    L = norm(ch)
                    ctr = tuple(0.5 * (p + q) for p, q in zip(a, b))
                    q = quat_z_to(tuple(x / L for x in ch))
                    bodies.append("  - {name: %s_%d, mass: %g, shape: {type: capsule, radius: %g, length: %.6f}, "
                                  "position: %s, orientation: [%.9f, %.9f, %.9f, %.9f], material: rope, group: %s}"
                                  % (cname, idx, M_LINK, R_LINK, L - 2 * R_LINK, fmt(ctr), *q, cname))
                    idx += 1
                    n_links += 1
                b0 = "world" if ka is None else knot_name[ka]
                b1 = "world" if kb is None else knot_name[kb]
                # a y cable is tied to the knots (x cables' bodies) by ball joints
                ja = KNOT_BALL if (d == 1 and ka is not None) else "type: cable, compliance: " + COMP
                jb = KNOT_BALL if (d == 1 and kb is not None) else "type: cable, compliance: " + COMP
                joints.append("  - {name: %s_j%d, %s, bodies: [%s, %s_%d], anchor: %s}"
                              % (cname, first, ja, b0, cname, first, fmt(pts[0])))
                for k in range(1, nlink):
                    joints.append("  - {name: %s_j%d, type: cable, compliance: %s, bodies: [%s_%d, %s_%d], anchor: %s}"
                                  % (cname, first + k, COMP, cname, first + k - 1, cname, first + k, fmt(pts[k])))
                joints.append("  - {name: %s_e%d, %s, bodies: [%s_%d, %s], anchor: %s}"
                              % (cname, s, jb, cname, first + nlink - 1, b1, fmt(pts[-1])))
    knots = []
    for (i, j), name in sorted(knot_name.items()):
        x, y = us[i], us[j]
        knots.append("  - {name: %s, mass: %g, shape: {type: sphere, radius: %g}, position: %s, material: rope, "
                     "group: xcable_%d}" % (name, M_LINK, R_KNOT, fmt((x, y, -SAG * c(x) * c(y))), j))
    tb, tj = truck(drop)
    n_rows_truck = 0
    out_truck_b, out_truck_j = [], []
    for name, m, shape, pos, ori in tb:
        mat = "rubber" if name.startswith("wheel") else "steel"
        o = (", orientation: %s" % ori) if ori else ""
        out_truck_b.append("  - {name: %s, mass: %g, shape: %s, position: %s%s, material: %s, group: truck}"
                           % (name, m, shape, fmt(pos), o, mat))
    rows = {"fixed": 6, "hinge": 5, "prismatic": 5, "ball": 3}
    for name, typ, b0, b1, anchor, extra in tj:
        e = (", " + extra) if extra else ""
        n_rows_truck += rows[typ] + extra.count("limits") + extra.count("motor")
        out_truck_j.append("  - {name: %s, type: %s, bodies: [%s, %s], anchor: %s%s, compliance: 1.0e-10}"
                           % (name, typ, b0, b1, fmt(anchor), e))
    assert len(tb) == 22 and n_rows_truck > 120, (len(tb), n_rows_truck)
    w("format: tessera-model/1")
    w("name: net_with_truck")
    w("description: an 8000 kg dump truck (22 bodies, %d joint rows) dropped onto a net of %d cables of 0.2 kg"
      " links (%d links, %d knots)." % (n_rows_truck, 2 * ncab, n_links, ncab * ncab))
    w("settings:")
    w("  step: 0.016666666666666666")
    w("  duration: %g" % duration)
    w("  solver: {type: schur-bpp}")
    w("  partitioning: {method: semantic, max_bodies: 48}")
    w("  contact: {max_per_pair: 4, margin: 0.03}")
    w("materials:")
    w("  - {name: rope, friction: 0.3, compliance: 1.0e-9, damping: 2.0}")
    w("  - {name: steel, friction: 0.4, compliance: 1.0e-9, damping: 2.0}")
    w("  - {name: rubber, friction: 0.8, compliance: 1.0e-9, damping: 2.0}")
    w("material_pairs:")
    w("  - {materials: [rubber, rope], friction: 0.8}")
    w("  - {materials: [steel, rope], friction: 0.4}")
    w("bodies:")
    w("  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: -3.0}}")
    out += out_truck_b + knots + bodies
    w("joints:")
    out += out_truck_j + joints
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--cables", type=int, default=8, help="cables in each direction (1 m apart)")
    ap.add_argument("--links", type=int, default=6, help="links per span")
    ap.add_argument("--duration", type=float, default=4.0)
    ap.add_argument("--bend", type=float, default=1e-3, help="bend and twist compliance of the net, rad/(N m)")
    ap.add_argument("--damping", type=float, default=8.0, help="SPOOK damping of the net's joints, steps")
    ap.add_argument("--drop", type=float, default=-0.2, help="height of the wheel bottoms at t = 0, m")
    a = ap.parse_args()
    sys.stdout.write(main(a.cables, a.links, a.duration, a.bend, a.damping, a.drop))
