#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes examples/tandem_cranes.yaml (seed 000 §7.1 "tandem cranes").

    python3 examples/gen_tandem_cranes.py > examples/tandem_cranes.yaml
    python3 examples/gen_tandem_cranes.py --duration 1 > /tmp/short.yaml

What the paper gives: two cranes of about 75,000 kg each (tracks and
drivetrain, boom and hoist, cables, hooks) hold a 3,500 kg pipe in the air;
the pipe is given an initial velocity so that it slides; semantic
partitioning, 24-50 bodies per subsystem (Table 2).

What we chose (the paper shows only a picture):
  * the pipe: a steel pipe 12 m long, 0.76 m across (30"), 3,500 kg, thin
    walled (inertia [42240, 42240, 480] kg m^2 about its own axes), along x at
    3 m above the ground, centred at the origin;
  * each crane (a crawler crane, 75,100 kg without rope and hook): carbody
    (18,500 kg) on two track frames (10,000 each, fixed joints; they stand on
    the ground), per track a drive sprocket (600, hinge with a motor at speed
    0: the brake), an idler (500) and 4 road rollers (150) on hinges inside
    the track frame (the drivetrain); the upperworks (12,000) on a slewing
    hinge about z (motor at speed 0: slew brake) with counterweight (12,000),
    operator cab (800) and A-frame (1,200) fixed to it and two winch drums
    (1,000 and 800, hinges with motors at speed 0: drum brakes); a 22 m boom
    of three sections (2,200, 1,800 and 1,400 kg, fixed joints) on a hinge
    at the upperworks (limits -0.05 .. 0.2 rad), luffed at 60 degrees and
    held by the boom hoist: a pendant rope from the A-frame top to the boom
    tip (a unilateral distance joint); 24 bodies, subsystem "crane_X/base";
  * the hoist rope: 31 capsule links (0.5 m, r = 2 cm, 2 kg: 75,100:2 is the
    paper's ~40,000:1 scale) hanging from the boom tip to an 800 kg hook
    block, cable joints (stretch 1e-10 m/N, bend and twist 1e-2 rad/(N m));
    subsystem "crane_X/rope" (31 bodies);
  * the sling: an endless sling of 31 links (0.2 m, r = 1.5 cm, 1 kg) from
    the bottom of the hook block down around the underside of the pipe and
    back (ball joints at the hook block, cable joints between links, as the
    rope); the pipe rests in it by contact only; subsystem "crane_X/hook"
    (hook block + sling: 32 bodies). The pipe is its own subsystem;
  * crane A stands at (-4, -12.5, 0) with its boom pointing +y, crane B at
    (4, 12.5, 0) pointing -y: the boom tips are above x = -4 and x = +4, the
    slings hold the pipe 2 m from each end. Links start 1 mm clear of the
    pipe;
  * the pipe starts moving at 2 m/s along its own axis (x). It slides
    through the slings (mu = 0.1 between sling and pipe: a coated pipe; at
    0.25 it slid 3 cm) by ~0.34 m in the first second while dragging slings
    and hooks along, then pipe, slings and hooks swing together on the
    15.5 m ropes (period ~8 s, ~1.8 m each way), and at each turn of the
    swing the pipe slides again (~0.16 m at the first): ~0.5 m through the
    slings in 8 s. The pipe stays 3.0 m (+-3 cm) below the hooks; the cranes do not
    move (the load is ~3% of their weight);
  * contact: steel, mu = 0.1 (sling-pipe; the only steel-steel contact),
    tracks and ground mu = 0.5; normal compliance 1e-9 m/N, damping 2;
    margin 1 cm, at most 4 points per pair; joints of the cranes compliance
    1e-10;
  * h = 1/60 s, 8 s (480 steps), solver schur-bpp with max_pivots 500
    (with the default 50 the interface BPP runs out of pivots in ~3% of
    steps, |Gamma| = 162, and the step is still reported converged with an
    MLCP error up to 3.5: see the report of issue 6), semantic partitioning.
Standard library only.
"""
import argparse
import math
import sys

BOOM_LEN = 22.0
ALPHA = math.radians(60.0)
PIVOT = (1.5, 3.0)           # boom pivot (forward, up) in the crane frame
PIPE_R, PIPE_L, PIPE_Z = 0.38, 12.0, 3.0
ROPE_N, ROPE_P, ROPE_R = 31, 0.5, 0.02
SLING_N, SLING_R = 31, 0.015
HOOK = (0.5, 0.4, 0.8)       # hook block box (x, y, z)
HANG = 0.3                   # the rope hangs from 0.3 m below the boom's axis at its end
SLING_HALF = 0.1             # sling ends +-0.1 m (y) at the hook block bottom
CABLE = "{stretch: 1.0e-10, bend: 1.0e-2, twist: 1.0e-2}"


def fmt(v):
    return "[" + ", ".join("%.6f" % x for x in v) + "]"


def qmul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return (w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
            w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2)


def qaxis(ax, ang):
    s = math.sin(ang / 2)
    return (math.cos(ang / 2), ax[0] * s, ax[1] * s, ax[2] * s)


def fq(q):
    return "[%.9f, %.9f, %.9f, %.9f]" % q


class Crane:
    """Crane frame: origin on the ground at the slewing centre, forward f,
    left l, up z."""

    def __init__(self, tag, centre, yaw):
        self.tag, self.c, self.yaw = tag, centre, yaw
        self.f = (math.cos(yaw), math.sin(yaw), 0.0)
        self.l = (-math.sin(yaw), math.cos(yaw), 0.0)
        self.q = qaxis((0, 0, 1), yaw)

    def p(self, a, b, h):
        return tuple(self.c[k] + a * self.f[k] + b * self.l[k] + (h if k == 2 else 0.0) for k in range(3))

    def lateral(self):    # orientation of a cylinder whose axis is l
        return qmul(self.q, qaxis((1, 0, 0), -math.pi / 2))

    def boom(self):       # body x along the boom
        return qmul(self.q, qaxis((0, 1, 0), -ALPHA))

    def boom_point(self, s, up=0.0):
        """Point at distance s along the boom axis from the pivot, `up` across it."""
        a = PIVOT[0] + s * math.cos(ALPHA) - up * math.sin(ALPHA)
        h = PIVOT[1] + s * math.sin(ALPHA) + up * math.cos(ALPHA)
        return self.p(a, 0.0, h)


def crane(cr, hook_x):
    """Bodies and joints of one crane, rope, hook and sling."""
    t = cr.tag
    B, J = [], []
    g = "crane_%s/base" % t

    def body(name, mass, shape, pos, q=None, group=g, extra=""):
        o = (", orientation: %s" % fq(q)) if q else ""
        B.append("  - {name: %s_%s, mass: %g, shape: %s, position: %s%s%s, group: %s}"
                 % (t, name, mass, shape, fmt(pos), o, extra, group))

    def joint(name, typ, b0, b1, anchor, extra=""):
        w0 = b0 if b0 == "world" else "%s_%s" % (t, b0)
        J.append("  - {name: %s_%s, type: %s, bodies: [%s, %s_%s], anchor: %s%s, compliance: 1.0e-10}"
                 % (t, name, typ, w0, t, b1, fmt(anchor), (", " + extra) if extra else ""))

    q = cr.q
    body("carbody", 18500.0, "{type: box, size: [4.0, 4.0, 1.2]}", cr.p(0, 0, 1.4), q)
    lat = cr.lateral()
    for s, b in (("l", 2.4), ("r", -2.4)):
        body("track_" + s, 10000.0, "{type: box, size: [7.0, 1.0, 1.2]}", cr.p(0, b, 0.6), q, extra=", material: track")
        joint("track_mount_" + s, "fixed", "carbody", "track_" + s, cr.p(0, b * 0.85, 1.0))
        body("sprocket_" + s, 600.0, "{type: cylinder, radius: 0.45, length: 0.6}", cr.p(-3.05, b, 0.6), lat)
        joint("drive_" + s, "hinge", "track_" + s, "sprocket_" + s, cr.p(-3.05, b, 0.6),
              "axis: %s, motor: {speed: 0, max_torque: 5.0e5}" % fmt(cr.l))
        body("idler_" + s, 500.0, "{type: cylinder, radius: 0.45, length: 0.6}", cr.p(3.05, b, 0.6), lat)
        joint("idler_" + s, "hinge", "track_" + s, "idler_" + s, cr.p(3.05, b, 0.6), "axis: %s" % fmt(cr.l))
        for k, a in enumerate((-1.8, -0.6, 0.6, 1.8)):
            body("roller_%s%d" % (s, k), 150.0, "{type: cylinder, radius: 0.25, length: 0.6}", cr.p(a, b, 0.4), lat)
            joint("roller_%s%d" % (s, k), "hinge", "track_" + s, "roller_%s%d" % (s, k), cr.p(a, b, 0.4),
                  "axis: %s" % fmt(cr.l))
    body("upperworks", 12000.0, "{type: box, size: [6.0, 3.6, 1.5]}", cr.p(-0.5, 0, 2.8), q)
    joint("slew", "hinge", "carbody", "upperworks", cr.p(0, 0, 2.0),
          "axis: [0, 0, 1], motor: {speed: 0, max_torque: 1.0e7}")
    body("counterweight", 12000.0, "{type: box, size: [1.5, 3.6, 2.0]}", cr.p(-4.25, 0, 3.05), q)
    joint("cw_mount", "fixed", "upperworks", "counterweight", cr.p(-3.5, 0, 3.0))
    body("cab", 800.0, "{type: box, size: [1.2, 1.0, 1.8]}", cr.p(1.8, -1.4, 4.45), q)
    joint("cab_mount", "fixed", "upperworks", "cab", cr.p(1.8, -1.4, 3.55))
    body("a_frame", 1200.0, "{type: box, size: [0.4, 3.0, 3.0]}", cr.p(-2.0, 0, 5.05), q)
    joint("a_frame_mount", "fixed", "upperworks", "a_frame", cr.p(-2.0, 0, 3.55))
    for name, a, m in (("main_drum", -1.0, 1000.0), ("boom_drum", 0.3, 800.0)):
        body(name, m, "{type: cylinder, radius: 0.5, length: 1.6}", cr.p(a, 0, 4.1), lat)
        joint(name, "hinge", "upperworks", name, cr.p(a, 0, 4.1),
              "axis: %s, motor: {speed: 0, max_torque: 1.0e6}" % fmt(cr.l))
    bq = cr.boom()
    sections = (("boom_butt", 0.0, 8.0, 2200.0), ("boom_insert", 8.0, 8.0, 1800.0), ("boom_tip", 16.0, 6.0, 1400.0))
    for name, s0, ln, m in sections:
        body(name, m, "{type: box, size: [%g, 1.2, 0.9]}" % ln, cr.boom_point(s0 + ln / 2), bq)
    joint("boom_pivot", "hinge", "upperworks", "boom_butt", cr.p(PIVOT[0], 0, PIVOT[1]),
          "axis: %s, limits: [-0.05, 0.2]" % fmt(tuple(-x for x in cr.l)))
    joint("boom_pin_1", "fixed", "boom_butt", "boom_insert", cr.boom_point(8.0))
    joint("boom_pin_2", "fixed", "boom_insert", "boom_tip", cr.boom_point(16.0))
    top = cr.p(-2.0, 0, 6.55)
    tip = cr.boom_point(BOOM_LEN, 0.45)
    J.append("  - {name: %s_pendant, type: distance, bodies: [%s_a_frame, %s_boom_tip], anchors: [%s, %s], "
             "unilateral: true, compliance: 1.0e-10}" % (t, t, t, fmt(top), fmt(tip)))
    # hoist rope: from a point just ahead of and below the tip, straight down
    hang = cr.boom_point(BOOM_LEN, -HANG)
    assert abs(hang[0] - hook_x) < 1e-9 and abs(hang[1]) < 1e-9, hang
    B.append("  - {name: %s_rope, count: %d, mass: 2.0, shape: {type: capsule, radius: %g, length: %g}, "
             "position: %s, stride: {position: [0, 0, %g]}, group: crane_%s/rope}"
             % (t, ROPE_N, ROPE_R, ROPE_P - 2 * ROPE_R, fmt((hook_x, 0.0, hang[2] - ROPE_P / 2)), -ROPE_P, t))
    J.append("  - {name: %s_rope_top, type: cable, bodies: [%s_boom_tip, \"%s_rope[0]\"], anchor: %s, compliance: %s}"
             % (t, t, t, fmt(hang), CABLE))
    J.append("  - {name: %s_rope_link, type: cable, count: %d, bodies: [\"%s_rope[i]\", \"%s_rope[i+1]\"], "
             "anchor: %s, stride: {anchor: [0, 0, %g]}, compliance: %s}"
             % (t, ROPE_N - 1, t, t, fmt((hook_x, 0.0, hang[2] - ROPE_P)), -ROPE_P, CABLE))
    hook_top = hang[2] - ROPE_N * ROPE_P
    hz = hook_top - HOOK[2] / 2
    B.append("  - {name: %s_hook, mass: 800.0, shape: {type: compound, parts: [{type: box, size: %s}, "
             "{type: cylinder, radius: 0.1, length: 0.3, position: [0, 0, %g]}]}, position: %s, group: crane_%s/hook}"
             % (t, fmt(HOOK), HOOK[2] / 2 + 0.15, fmt((hook_x, 0.0, hz)), t))
    J.append("  - {name: %s_rope_hook, type: cable, bodies: [\"%s_rope[%d]\", %s_hook], anchor: %s, compliance: %s}"
             % (t, t, ROPE_N - 1, t, fmt((hook_x, 0.0, hook_top)), CABLE))
    # sling, in the y-z plane at x = hook_x
    zb = hz - HOOK[2] / 2
    pts = sling_points(zb)
    for k in range(SLING_N):
        (y0, z0), (y1, z1) = pts[k], pts[k + 1]
        L = math.hypot(y1 - y0, z1 - z0)
        d = ((y1 - y0) / L, (z1 - z0) / L)
        # +z onto (0, dy, dz): rotation about x by -atan2(dy, dz)
        qq = qaxis((1, 0, 0), -math.atan2(d[0], d[1]))
        B.append("  - {name: %s_sling_%d, mass: 1.0, shape: {type: capsule, radius: %g, length: %.6f}, "
                 "position: %s, orientation: %s, group: crane_%s/hook}"
                 % (t, k, SLING_R, L - 2 * SLING_R, fmt((hook_x, 0.5 * (y0 + y1), 0.5 * (z0 + z1))), fq(qq), t))
    J.append("  - {name: %s_sling_end_0, type: ball, bodies: [%s_hook, %s_sling_0], anchor: %s, compliance: 1.0e-10}"
             % (t, t, t, fmt((hook_x, pts[0][0], pts[0][1]))))
    for k in range(1, SLING_N):
        J.append("  - {name: %s_sling_j%d, type: cable, bodies: [%s_sling_%d, %s_sling_%d], anchor: %s, compliance: %s}"
                 % (t, k, t, k - 1, t, k, fmt((hook_x, pts[k][0], pts[k][1])), CABLE))
    J.append("  - {name: %s_sling_end_1, type: ball, bodies: [%s_hook, %s_sling_%d], anchor: %s, compliance: 1.0e-10}"
             % (t, t, t, SLING_N - 1, fmt((hook_x, pts[-1][0], pts[-1][1]))))
    return B, J


def sling_points(zb):
    """SLING_N + 1 joint points (y, z) of the sling: straight from (-SLING_HALF,
    zb) to the pipe, round its underside, straight up to (SLING_HALF, zb);
    equal chords, link middles 1 mm clear of the pipe."""
    gap = 0.001
    # joint points on a circle whose chords' middles are at PIPE_R + SLING_R + gap
    # (the pitch is found below; iterate twice on the circle radius)
    pitch = 0.2
    for _ in range(3):
        rc = math.hypot(PIPE_R + SLING_R + gap, pitch / 2)
        a1, a2 = (-SLING_HALF, zb), (SLING_HALF, zb)

        def tangent(a, left):
            dy, dz = a[0], a[1] - PIPE_Z
            d = math.hypot(dy, dz)
            phi = math.atan2(dz, dy)
            t = phi + math.acos(rc / d) if left else phi - math.acos(rc / d)
            return t, math.sqrt(d * d - rc * rc)

        t1, l1 = tangent(a1, True)           # left side, angle near pi
        t2, l2 = tangent(a2, False)          # right side, angle near 0
        t2 += 2 * math.pi
        arc = rc * (t2 - t1)
        p1 = (rc * math.cos(t1), PIPE_Z + rc * math.sin(t1))
        p2 = (rc * math.cos(t2), PIPE_Z + rc * math.sin(t2))

        def at(s):
            if s <= l1:
                f = s / l1
                return (a1[0] + f * (p1[0] - a1[0]), a1[1] + f * (p1[1] - a1[1]))
            if s <= l1 + arc:
                th = t1 + (s - l1) / rc
                return (rc * math.cos(th), PIPE_Z + rc * math.sin(th))
            f = min(1.0, (s - l1 - arc) / l2)
            return (p2[0] + f * (a2[0] - p2[0]), p2[1] + f * (a2[1] - p2[1]))

        total = l1 + arc + l2
        # equal chords: bisection on the chord so that SLING_N chords end at a2
        lo, hi = 0.5 * total / SLING_N, total / SLING_N
        for _ in range(60):
            pitch = 0.5 * (lo + hi)
            pts, s = [at(0.0)], 0.0
            for _ in range(SLING_N):
                x0 = pts[-1]
                a, b = s, s + 2 * pitch
                for _ in range(60):
                    m = 0.5 * (a + b)
                    q = at(min(m, total))
                    if math.hypot(q[0] - x0[0], q[1] - x0[1]) < pitch and m < total:
                        a = m
                    else:
                        b = m
                s = b
                pts.append(at(min(s, total)))
            if s < total - 1e-9:
                lo = pitch
            else:
                hi = pitch
    pts[-1] = a2
    return pts


def main(duration, v0):
    out = []
    w = out.append
    w("# GENERATED by examples/gen_tandem_cranes.py (--duration %g --velocity %g): edit that instead." % (duration, v0))
    for line in __doc__.strip().splitlines():
        w(("# " + line).rstrip())
    bodies, joints = [], []
    reach = PIVOT[0] + BOOM_LEN * math.cos(ALPHA) + HANG * math.sin(ALPHA)   # to the rope
    for tag, hx, yaw in (("a", -4.0, math.pi / 2), ("b", 4.0, -math.pi / 2)):
        cy = -reach if yaw > 0 else reach
        b, j = crane(Crane(tag, (hx, cy, 0.0), yaw), hx)
        bodies += b
        joints += j
    w("format: tessera-model/1")
    w("name: tandem_cranes")
    w("description: two 75 t crawler cranes hold a 3500 kg pipe in slings; the pipe slides along its axis.")
    w("settings:")
    w("  step: 0.016666666666666666")
    w("  duration: %g" % duration)
    w("  solver: {type: schur-bpp, max_pivots: 500}")
    w("  partitioning: {method: semantic}")
    w("  contact: {max_per_pair: 4, margin: 0.01}")
    w("materials:")
    w("  - {name: steel, friction: 0.1, compliance: 1.0e-9, damping: 2.0}")
    w("  - {name: track, friction: 0.5, compliance: 1.0e-9, damping: 2.0}")
    w("  - {name: ground, friction: 0.5, compliance: 1.0e-9, damping: 2.0}")
    w("bodies:")
    w("  - {name: ground, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: 0.0}, material: ground}")
    w("  - name: pipe")
    w("    mass: 3500.0")
    w("    inertia: [42240.0, 42240.0, 480.0]")
    w("    shape: {type: cylinder, radius: %g, length: %g}" % (PIPE_R, PIPE_L))
    w("    position: [0, 0, %g]" % PIPE_Z)
    w("    orientation: {axis: [0, 1, 0], angle_deg: 90}")
    w("    velocity: [%g, 0, 0]" % v0)
    w("    group: pipe")
    out += bodies
    w("joints:")
    out += joints
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--duration", type=float, default=8.0)
    ap.add_argument("--velocity", type=float, default=2.0, help="initial speed of the pipe along its axis, m/s")
    a = ap.parse_args()
    sys.stdout.write(main(a.duration, a.velocity))
