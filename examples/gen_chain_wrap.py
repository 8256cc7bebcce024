#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes examples/chain_wrap.yaml (seed 000 §7.1 "chain wrap").

    python3 examples/gen_chain_wrap.py > examples/chain_wrap.yaml

What the paper gives: a stiff chain of 100 links, 0.25 kg each, neighbouring
links coupled by universal joints, the last link coupled to a 500 kg box
(2000:1); the chain wraps around an obstacle; semantic partitioning, "each
sequential grouping of 12 bodies" (Table 2 says 16; we use groups of 12 links
and max_bodies 16). Constraint compliances 1e-7 .. 1e-10.

What we chose (the paper shows only a picture):
  * links: capsules r = 1 cm, cylindrical part 8 cm, 10 cm pitch (a 10 m
    chain), as in the other chain scenes;
  * obstacle: a fixed horizontal cylinder, radius 0.5 m, 1 m long, axis y,
    centre at the origin; no ground;
  * link_0 is tied to the world by a ball joint at (-2, 0, -3), below and to
    the left of the obstacle, so the chain runs up to the cylinder, wraps over
    its top (about 125 degrees at t = 0) and hangs down its right side
    (a bollard or a pulley with one end made fast);
  * the last link holds the 500 kg box (0.5 m cube) by a universal joint
    (axes as between links);
  * start: every segment straight and tangent to the cylinder (the
    frictionless equilibrium shape), at rest, except that the hanging part
    (about 5.3 m plus the box) is swung out 30 degrees away from the anchor.
    Released, the box swings like a pendulum (period ~4.7 s) under the
    cylinder and back: the departure point of the chain moves from 30 degrees
    above to 30 degrees below the cylinder's horizontal, so about 0.5 m of
    chain wraps onto the cylinder and off again while the contact carries the
    box's whole weight (tension ~4.9-6.5 kN);
  * universal axes: y (bending in the plane of the wrap) and the in-plane
    normal of the chain at that joint; joint compliance 1e-10, damping 2;
  * contact: steel, mu = 0.4, normal compliance 1e-9 m/N; the links start
    0.1 mm clear of the cylinder at their middles (the joint points, on a
    polygon around it, 2.5 mm); contact margin 5 mm, at most 2 points per pair;
  * h = 1/240 s, 10 s (2400 steps), solver direct-bpp, semantic partitioning
    with max_bodies 16: the box is its own group "load".
Standard library only.
"""
import math
import sys

N = 100
PITCH = 0.1
R_LINK = 0.01
R_CYL = 0.5
GAP = 0.0001                # clearance of the link middles from the cylinder surface
# joint points on a circle of radius RC: a link's chord midpoint is at
# sqrt(RC^2 - (PITCH/2)^2) = R_CYL + R_LINK + GAP from the axis
RC = math.hypot(R_CYL + R_LINK + GAP, PITCH / 2)
ANCHOR = (-2.0, -3.0)       # (x, z) of the ball joint to the world
SWING_DEG = 30.0            # hanging part swung out from the vertical
BOX = 0.5
GROUP = 12


def path():
    """The chain's centre line as a function of arc length s in [0, N*PITCH]:
    straight from the anchor to T1, clockwise arc T1 -> T2, straight on."""
    ax, az = ANCHOR
    d = math.hypot(ax, az)
    alpha = math.atan2(az, ax)
    # tangent points from the anchor: alpha +- acos(RC/d); clockwise travel at
    # angle t has direction (sin t, -cos t); pick the one the anchor line meets.
    best = None
    for sgn in (1, -1):
        t = alpha + sgn * math.acos(RC / d)
        px, pz = RC * math.cos(t), RC * math.sin(t)
        ux, uz = px - ax, pz - az
        l = math.hypot(ux, uz)
        dot = (ux * math.sin(t) - uz * math.cos(t)) / l
        if best is None or dot > best[0]:
            best = (dot, t % (2 * math.pi), l)
    _, t1, l1 = best
    phi = math.radians(SWING_DEG)
    t2 = phi                       # departure angle: tangent (sin phi, -cos phi)
    arc = RC * (t1 - t2)
    l3 = N * PITCH - l1 - arc
    assert arc > 0 and l3 > 1.0, (t1, t2, l1, arc, l3)
    p1 = (RC * math.cos(t1), RC * math.sin(t1))
    p2 = (RC * math.cos(t2), RC * math.sin(t2))
    d3 = (math.sin(phi), -math.cos(phi))

    def at(s):
        if s <= l1:
            f = s / l1
            return (ax + f * (p1[0] - ax), az + f * (p1[1] - az))
        if s <= l1 + arc:
            t = t1 - (s - l1) / RC
            return (RC * math.cos(t), RC * math.sin(t))
        u = s - l1 - arc
        return (p2[0] + u * d3[0], p2[1] + u * d3[1])

    return at, (t1, l1, arc, l3, d3)


def fmt(v):
    return "[" + ", ".join("%.6f" % x for x in v) + "]"


def main():
    at, (t1, l1, arc, l3, d3) = path()
    # joint points exactly one pitch apart (chords, not arc length)
    pts, s = [at(0.0)], 0.0
    for _ in range(N):
        x0, z0 = pts[-1]
        lo, hi = s, s + 2 * PITCH
        for _ in range(100):
            mid = 0.5 * (lo + hi)
            x, z = at(mid)
            if math.hypot(x - x0, z - z0) < PITCH:
                lo = mid
            else:
                hi = mid
        s = hi
        pts.append(at(s))
    dirs = []
    for i in range(N):
        (x0, z0), (x1, z1) = pts[i], pts[i + 1]
        l = math.hypot(x1 - x0, z1 - z0)
        dirs.append(((x1 - x0) / l, (z1 - z0) / l))
    chord_min = min(math.hypot(pts[i + 1][0] - pts[i][0], pts[i + 1][1] - pts[i][1]) for i in range(N))

    out = []
    w = out.append
    w("# GENERATED by examples/gen_chain_wrap.py: seed 000 §7.1 chain wrap. Edit that instead.")
    w("# What the paper gives: a stiff chain of 100 links (0.25 kg each), universal")
    w("# joints between neighbours, the last link coupled to a 500 kg box (2000:1),")
    w("# the chain wraps around an obstacle; semantic subsystems of 12 bodies.")
    w("# Our choices: capsule links r = 1 cm, 10 cm pitch (10 m); the obstacle a fixed")
    w("# horizontal cylinder r = 0.5 m (axis y) at the origin, no ground; link_0 tied")
    w("# to the world by a ball joint at (-2, 0, -3); the chain runs up %.2f m to the" % l1)
    w("# cylinder, wraps over its top (%.0f deg, %.2f m) and hangs %.2f m down its right" % (
        math.degrees(arc / RC), arc, l3))
    w("# side, swung out %g deg; the last link holds the 500 kg box (0.5 m cube) by a" % SWING_DEG)
    w("# universal joint. Released at rest, the box swings under the cylinder and back")
    w("# (period ~4.7 s), wrapping ~0.5 m more chain onto the cylinder and off again.")
    w("# Universal axes y and the chain's in-plane normal; joint compliance 1e-10;")
    w("# steel mu = 0.4, contact compliance 1e-9 m/N, margin 5 mm; link middles start")
    w("# 0.1 mm clear of the cylinder; groups of %d links, the box its own group." % GROUP)
    w("# Time step h = 1/240 s (the papers' scenes use 1/60): at 1/60 the links at the")
    w("# tangent points, 0.25 kg with 2e-4 kg m^2 of inertia under ~5 kN of tension,")
    w("# turn 0.3-0.8 rad in a step; the velocity-level step's position drift")
    w("# (~(w h)^2 r) then reaches cm, its stabilisation feeds the spin, and the box")
    w("# gains energy. At 1/240 the joint error stays below 0.5 mm (tests/physics).")
    w("format: tessera-model/1")
    w("name: chain_wrap")
    w("description: 100-link chain wrapped over a fixed cylinder, holding a swinging 500 kg box.")
    w("settings:")
    w("  step: 0.004166666666666667")
    w("  duration: 10.0")
    w("  solver: {type: direct-bpp}")
    w("  partitioning: {method: semantic, max_bodies: 16}")
    w("  contact: {max_per_pair: 2, margin: 0.005}")
    w("materials:")
    w("  - {name: steel, friction: 0.4, compliance: 1.0e-9, damping: 2.0}")
    w("bodies:")
    w("  - name: obstacle")
    w("    fixed: true")
    w("    shape: {type: cylinder, radius: %g, length: 1.0}" % R_CYL)
    w("    position: [0, 0, 0]")
    w("    orientation: {axis: [1, 0, 0], angle_deg: 90}")
    for i in range(N):
        (x0, z0), (x1, z1) = pts[i], pts[i + 1]
        c = (0.5 * (x0 + x1), 0.0, 0.5 * (z0 + z1))
        beta = math.atan2(dirs[i][0], dirs[i][1])
        w('  - {name: link_%d, mass: 0.25, shape: {type: capsule, radius: %g, length: 0.08}, '
          'position: %s, orientation: {axis: [0, 1, 0], angle: %.9f}, group: chain/%d}'
          % (i, R_LINK, fmt(c), beta, i // GROUP))
    end = pts[N]
    bc = (end[0] + 0.5 * BOX * d3[0], 0.0, end[1] + 0.5 * BOX * d3[1])
    w("  - name: box")
    w("    mass: 500.0")
    w("    shape: {type: box, size: [%g, %g, %g]}" % (BOX, BOX, BOX))
    w("    position: %s" % fmt(bc))
    w("    orientation: {axis: [0, 1, 0], angle: %.9f}" % math.atan2(-d3[0], -d3[1]))
    w("    group: load")
    w("joints:")
    w("  - name: top")
    w("    type: ball")
    w('    bodies: [world, link_0]')
    w("    anchor: %s" % fmt((ANCHOR[0], 0.0, ANCHOR[1])))

    def axes(dx, dz):
        # y, and y x (dx, 0, dz): perpendicular to y and to the chain
        return "[[0, 1, 0], [%.9f, 0, %.9f]]" % (dz, -dx)

    for i in range(1, N):
        mx, mz = dirs[i - 1][0] + dirs[i][0], dirs[i - 1][1] + dirs[i][1]
        l = math.hypot(mx, mz)
        w('  - {name: u_%d, type: universal, bodies: [link_%d, link_%d], anchor: %s, '
          'axes: %s, compliance: 1.0e-10}'
          % (i - 1, i - 1, i, fmt((pts[i][0], 0.0, pts[i][1])), axes(mx / l, mz / l)))
    w("  - name: hook")
    w("    type: universal")
    w('    bodies: [link_%d, box]' % (N - 1))
    w("    anchor: %s" % fmt((end[0], 0.0, end[1])))
    w("    axes: %s" % axes(*d3))
    w("    compliance: 1.0e-10")
    assert abs(chord_min - PITCH) < 1e-9, chord_min
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(main())
