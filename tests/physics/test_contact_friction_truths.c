// SPDX-License-Identifier: MIT
// Friction against analytic truths, with direct-bpp, schur-bpp and pgs, on
// surfaces and headings skew to the world axes. h = 1/60 throughout; the
// materials' compliance eps (1e-9 m/N each, 2e-9 for a like pair: rows.c
// adds them) and damping d = 2.
//
//  1. Incline (theta 30 and 20 degrees, facing 37 and 200 degrees; 2 and
//     50 kg): a sphere and a solid cylinder (on its side) above the rolling
//     threshold mu_c = k / (1 + k) tan(theta), k = I / (m r^2), roll: a =
//     g sin / (1 + k); below it they slide and roll: a = g (sin - mu cos),
//     alpha = mu g cos / (k r). Fitted over steps 30..90, within 1e-6
//     relative (measured <= 7e-7; 1e-13 but for what follows). A rolling
//     cylinder's two rim points never match from step to step (they move
//     5 cm along both bodies, the matching radius is 2 cm), so they get no
//     stiction anchor and creep at the friction rows' C lambda: 4 (2 eps)
//     (F / 2) / (h (1 + 4 d)) with F = m g sin / 3 the friction: 1.5e-6 m/s
//     at 50 kg (measured: exactly that). Its slip is checked against 1.01
//     times this. pgs below the threshold: the two rim points sat 1e-10 m
//     apart in depth after a tilt of 1e-7 rad, one counted as not touching,
//     and the other got the pair's whole carried load as its friction bound:
//     the cylinder turned at 0.1 rad/s and a was 5% off (rows.c, touch).
//  2. A ball set on the floor with backspin or topspin (v0 along a skew
//     heading, w0 about the horizontal normal to it) slides with
//     deceleration mu g of its slip u = v - r w, du/dt = -(7/2) mu g, until
//     t* = 2 |u0| / (7 mu g), then rolls at (5 v0 + 2 r w0) / 7 (angular
//     momentum about the contact point). Dropped from a height it ends at
//     the same speed (the impact's impulses pass through that point). Each
//     step while it slides takes mu times the last step's normal impulse
//     off the slip, which settles to m g h as the ball sinks to its
//     deflection (SPOOK's transient; the first step's is the estimate of
//     rows.c): within 1e-2 mu g h (measured 7e-4 at 500 kg on a box floor,
//     3e-6 at 1 kg). It rolls from the first step after t*, at the end
//     speed to 1e-9 m/s (measured: 1e-15).
//  3. A box riding on another that slides on the floor (material pairs:
//     mu1 floor/bottom, mu2 bottom/top; masses 10:2, 2:50, 100:1): the top
//     sticks and both slow at mu1 g when mu1 <= mu2; else the top slows at
//     mu2 g and the bottom at (mu1 (M + m) - mu2 m) g / M. 1e-5 relative:
//     each corner's bound is its normal impulse of the step before, which
//     moves between corners as the friction's moment settles (measured:
//     6e-7 at most). Thrown 3 or 10 degrees off the lower box's course,
//     the top box's friction opposes its slide over the lower one as the
//     lower one slows, and the slide turns: both velocities after 0.5 s
//     within 1% of the 3 m/s throw of Coulomb's (point masses, integrated
//     in 2e5 steps; measured 0.5%). The box's t2 row held the slide's
//     first direction instead and dragged the top box sideways: 0.69 m/s
//     off (rows.c, kinetic).
//  4. A conveyor: a plank on a prismatic joint driven at U, a box set on it
//     at rest speeds up at mu g from the first step, v = mu g t within 1e-3
//     mu g h (each step's bound is the normal impulse of the step before,
//     which settles to m g h as the plank's joint takes the load: measured
//     2e-4 at 200 kg), and rides at U from step ceil(U / (mu g h)). (The
//     first step once had no friction: the plank's free velocity falls with
//     gravity like the box's, so the first-bound estimate, rows.c, sees no
//     approach; the first step is now solved again with its own normal
//     impulses, sim/world.c first_step_friction.)
//  5. Static friction is Coulomb's along the load: a box on the floor pulled
//     through its centre by a rope (a motor-driven slider with max_force F)
//     at 0, 20 and 45 degrees to its sides holds at F = 0.9 mu m g (moves
//     less than 1e-6 m, the contacts' compliance) and goes at 1.2 mu m g at
//     0, 20 and 45 degrees (more than 0.3 m in 1 s; Coulomb: 0.34 m at 0
//     degrees), along the rope within 0.5 degrees (measured 0.01). At 45
//     degrees it stayed put (3.5e-8 m) with its friction rows along its
//     sides: their box of bounds holds sqrt(2) mu m g along the diagonal
//     (rows.c, tangent rule 2). At 20 degrees it slid along its side, 20
//     degrees off the rope, while t2 held the slide's first direction
//     (rows.c, kinetic).
//  6. No restitution: a ball dropped from 0.5 m onto the floor does not
//     bounce (its centre never more than 1e-6 m above where it rests) and
//     rests at the contact's deflection, eps m g below touching, to 1e-9 m.
//     A ball rolling on the floor keeps its kinetic energy (rolling does no
//     work) to 1e-9 relative.
#include <math.h>
#include <string.h>

#include "sim_helpers.h"
#include "tsr_test.h"

static const char *const SOLVERS[] = {"direct-bpp", "schur-bpp", "pgs"};
static const double G = 9.81, H = 1.0 / 60.0;

// 1. Incline.
static void incline(int cyl, double th_deg, double az_deg, double mu, double mass, const char *solver) {
  const double th = th_deg * M_PI / 180, az = az_deg * M_PI / 180, r = 0.1;
  const TsrVec3 n = tsr_v3(-sin(th) * cos(az), -sin(th) * sin(az), cos(th));
  const TsrVec3 d = tsr_v3(-cos(th) * cos(az), -cos(th) * sin(az), -sin(th));  // downhill
  const TsrVec3 ax = tsr_v3_cross(n, d);                                       // rolling: w along it
  char shape[256], yaml[2048];
  if (cyl)
    snprintf(shape, sizeof shape,
             "{type: cylinder, radius: %g, length: 0.3}, orientation: {axis: [%.17g, %.17g, 0], angle_deg: 90}", r,
             cos(az), sin(az));
  else
    snprintf(shape, sizeof shape, "{type: sphere, radius: %g}", r);
  snprintf(yaml, sizeof yaml,
           "format: tessera-model/1\nname: incline\n"
           "settings: {step: %.17g, steps: 90, solver: {type: %s}}\n"
           "materials: [{name: m, friction: %.17g, compliance: 1.0e-9, damping: 2.0}]\n"
           "bodies:\n"
           "  - {name: slope, fixed: true, shape: {type: plane, normal: [%.17g, %.17g, %.17g], offset: 0}}\n"
           "  - {name: roller, mass: %g, shape: %s, position: [%.17g, %.17g, %.17g]}\n",
           H, solver, mu, n.x, n.y, n.z, mass, shape, r * n.x, r * n.y, r * n.z);
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  double v1 = 0, w1 = 0, t1 = 0;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    if (w.step == 30) v1 = tsr_v3_dot(w.bodies.v[1], d), w1 = tsr_v3_dot(w.bodies.w[1], ax), t1 = w.time;
  }
  const double v2 = tsr_v3_dot(w.bodies.v[1], d), w2 = tsr_v3_dot(w.bodies.w[1], ax);
  const double a = (v2 - v1) / (w.time - t1), alpha = (w2 - w1) / (w.time - t1);
  const double k = cyl ? 0.5 : 0.4, s = sin(th), c = cos(th), mu_c = k / (1 + k) * tan(th);
  const int rolls = mu > mu_c;
  const double ea = rolls ? G * s / (1 + k) : G * (s - mu * c), ealpha = rolls ? ea / r : mu * G * c / (k * r);
  const double creep = cyl ? 4.0 * 2e-9 * (mass * G * s / 3) / (H * (1 + 4 * 2.0)) : 0.0;
  fprintf(stderr,
          "%-10s %s theta %2.0f facing %3.0f mu %.4f (mu_c %.4f) %2g kg: a %.9f (%.9f), alpha %.8f (%.8f), slip %.3e "
          "m/s\n",
          solver, cyl ? "cylinder" : "sphere  ", th_deg, az_deg, mu, mu_c, mass, a, ea, alpha, ealpha, v2 - r * w2);
  const double tol = strcmp(solver, "pgs") ? 1e-6 : 1e-5;
  ENSURE_NEAR(a, ea, tol * ea);
  ENSURE_NEAR(alpha, ealpha, tol * ealpha);
  if (rolls) ENSURE(fabs(v2 - r * w2) <= 1.01 * creep + 1e-12);
  ENSURE(tsr_v3_norm(tsr_v3_madd(w.bodies.v[1], d, -v2)) < 1e-4);  // no drift across the slope
  tsr_test_world_free(&m, &w);
}

static void test_incline(void) {
  for (int s = 0; s < 3; s++)
    for (int cyl = 0; cyl < 2; cyl++) {
      const double k = cyl ? 0.5 : 0.4;
      const double c30 = k / (1 + k) * tan(30 * M_PI / 180), c20 = k / (1 + k) * tan(20 * M_PI / 180);
      incline(cyl, 30, 37, 1.5 * c30, 2.0, SOLVERS[s]);
      incline(cyl, 30, 37, 0.5 * c30, 2.0, SOLVERS[s]);
      incline(cyl, 20, 200, 1.2 * c20, 50.0, SOLVERS[s]);
      incline(cyl, 20, 200, 0.8 * c20, 50.0, SOLVERS[s]);
    }
}

// 2. Spin on the floor.
static void spin(double v0, double w0, double drop, double mu, double mass, int box_floor, const char *solver) {
  const double r = 0.1, az = 0.61;
  const TsrVec3 d = tsr_v3(cos(az), sin(az), 0), ax = tsr_v3_cross(tsr_v3(0, 0, 1), d), wv = tsr_v3_scale(ax, w0);
  char yaml[2048];
  snprintf(yaml, sizeof yaml,
           "format: tessera-model/1\nname: spin\n"
           "settings: {step: %.17g, steps: 90, solver: {type: %s}}\n"
           "materials: [{name: m, friction: %.17g, compliance: 1.0e-9, damping: 2.0}]\n"
           "bodies:\n"
           "  - {name: floor, fixed: true, %s}\n"
           "  - {name: ball, mass: %g, shape: {type: sphere, radius: %g}, position: [0, 0, %.17g],\n"
           "     velocity: [%.17g, %.17g, 0], angular_velocity: [%.17g, %.17g, %.17g]}\n",
           H, solver, mu,
           box_floor ? "shape: {type: box, size: [100, 100, 1]}, position: [0, 0, -0.5], "
                       "orientation: {axis: [0, 0, 1], angle_deg: 17}"
                     : "shape: {type: plane, normal: [0, 0, 1], offset: 0}",
           mass, r, r + drop, v0 * d.x, v0 * d.y, wv.x, wv.y, wv.z);
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  const double u0 = v0 - r * w0, t_roll = fabs(u0) / (3.5 * mu * G), v_end = (5 * v0 + 2 * r * w0) / 7;
  long rolled = -1;
  double worst = 0.0, first = 0.0, v_last = v0;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    const double v = tsr_v3_dot(w.bodies.v[1], d), om = tsr_v3_dot(w.bodies.w[1], ax);
    if (rolled < 0 && fabs(v - r * om) < 1e-3 * fabs(u0)) rolled = w.step;
    const double loss = (u0 > 0 ? v_last - v : v - v_last) - mu * G * H;  // this step's loss of slip speed less mu g h
    if (w.step == 1) first = loss;
    if (rolled < 0 && w.step > 1) worst = fmax(worst, fabs(loss));
    v_last = v;
  }
  const double v = tsr_v3_dot(w.bodies.v[1], d);
  fprintf(stderr,
          "%-10s v0 %.1f w0 %6.1f drop %.1f mu %.1f %3g kg %s: rolls at step %ld (t*/h %.2f), then %.12f m/s "
          "((5 v0 + 2 r w0) / 7 = %.12f), loss per step off mu g h by %.1e (first step %.1e)\n",
          solver, v0, w0, drop, mu, mass, box_floor ? "box floor" : "plane", rolled, t_roll / H, v, v_end, worst,
          first);
  ENSURE_NEAR(v, v_end, 1e-9);
  if (drop == 0.0) {
    ENSURE(rolled == (long)ceil(t_roll / H));
    ENSURE(worst < 1e-2 * mu * G * H);
    ENSURE(fabs(first) < 1e-2 * mu * G * H);
  }
  tsr_test_world_free(&m, &w);
}

static void test_spin(void) {
  for (int s = 0; s < 3; s++) {
    spin(3.0, -40.0, 0.0, 0.3, 1.0, 0, SOLVERS[s]);     // backspin
    spin(3.0, 80.0, 0.0, 0.3, 1.0, 0, SOLVERS[s]);      // topspin
    spin(2.0, -100.0, 0.0, 0.5, 500.0, 1, SOLVERS[s]);  // backspin that reverses it
    spin(3.0, -40.0, 0.2, 0.3, 1.0, 0, SOLVERS[s]);     // dropped
    spin(2.0, -100.0, 0.5, 0.5, 500.0, 1, SOLVERS[s]);
  }
}

// 3. A box riding on a sliding box: the lower one (M, mu1 on the floor)
// thrown at v0 along az, the top one (mm, mu2 on the lower) at v0 along
// az + dphi; 30 steps.
static void ride_world(double mu1, double mu2, double M, double mm, double az, double dphi, double v0,
                       const char *solver, TsrModel *m, TsrWorld *w) {
  char yaml[4096];
  snprintf(yaml, sizeof yaml,
           "format: tessera-model/1\nname: ride\n"
           "settings: {step: %.17g, steps: 30, solver: {type: %s}}\n"
           "materials: [{name: f, friction: 0.5}, {name: b, friction: 0.5}, {name: t, friction: 0.5}]\n"
           "material_pairs: [{materials: [f, b], friction: %.17g}, {materials: [b, t], friction: %.17g}]\n"
           "bodies:\n"
           "  - {name: floor, fixed: true, material: f, shape: {type: plane, normal: [0, 0, 1], offset: 0}}\n"
           "  - {name: bottom, mass: %g, material: b, shape: {type: box, size: [1.2, 0.8, 0.3]}, position: [0, 0, "
           "0.15],\n"
           "     orientation: {axis: [0, 0, 1], angle_deg: 11}, velocity: [%.17g, %.17g, 0]}\n"
           "  - {name: top, mass: %g, material: t, shape: {type: box, size: [0.4, 0.3, 0.2]}, position: [0, 0, 0.4],\n"
           "     orientation: {axis: [0, 0, 1], angle_deg: 52}, velocity: [%.17g, %.17g, 0]}\n",
           H, solver, mu1, mu2, M, v0 * cos(az), v0 * sin(az), mm, v0 * cos(az + dphi), v0 * sin(az + dphi));
  tsr_test_world(yaml, NULL, 0, m, w);
}

static void ride(double mu1, double mu2, double M, double mm, const char *solver) {
  const double az = 0.47, v0 = 3.0;
  const TsrVec3 d = tsr_v3(cos(az), sin(az), 0);
  TsrModel m;
  TsrWorld w;
  ride_world(mu1, mu2, M, mm, az, 0.0, v0, solver, &m, &w);
  double ab = mu1 * G, at = mu1 * G;
  if (mu1 > mu2) at = mu2 * G, ab = (mu1 * (M + mm) - mu2 * mm) * G / M;
  ENSURE(v0 / fmax(ab, at) > 30 * H);  // both still slide at the end
  double vb1 = 0, vt1 = 0, t1 = 0;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    if (w.step == 10) vb1 = tsr_v3_dot(w.bodies.v[1], d), vt1 = tsr_v3_dot(w.bodies.v[2], d), t1 = w.time;
  }
  const double gb = (vb1 - tsr_v3_dot(w.bodies.v[1], d)) / (w.time - t1);
  const double gt = (vt1 - tsr_v3_dot(w.bodies.v[2], d)) / (w.time - t1);
  fprintf(stderr, "%-10s mu1 %.1f mu2 %.1f, %3g kg under %2g kg: bottom %.9f (%.9f), top %.9f (%.9f) m/s^2\n", solver,
          mu1, mu2, M, mm, gb, ab, gt, at);
  ENSURE_NEAR(gb, ab, 1e-5 * ab);
  ENSURE_NEAR(gt, at, 1e-5 * at);
  tsr_test_world_free(&m, &w);
}

// 3b. The same, the top box thrown dphi off the lower one's course: both
// velocities at 0.5 s against Coulomb's point masses (the top's friction
// against its velocity over the lower box, the floor's against the lower
// box's velocity), integrated with steps of 2.5 us.
static void ride_askew(double mu1, double mu2, double M, double mm, double dphi_deg, const char *solver) {
  const double az = 0.47, v0 = 3.0, dphi = dphi_deg * M_PI / 180;
  TsrModel m;
  TsrWorld w;
  ride_world(mu1, mu2, M, mm, az, dphi, v0, solver, &m, &w);
  while (w.step < m.settings.steps) ENSURE(tsr_world_step(&w) == 0);
  double vb[2] = {v0 * cos(az), v0 * sin(az)}, vt[2] = {v0 * cos(az + dphi), v0 * sin(az + dphi)};
  const int n = 200000;
  const double dt = m.settings.steps * H / n;
  for (int i = 0; i < n; i++) {
    const double r[2] = {vt[0] - vb[0], vt[1] - vb[1]}, rs = hypot(r[0], r[1]), bs = hypot(vb[0], vb[1]);
    for (int k = 0; k < 2; k++) {
      const double ft = rs > 1e-12 ? -mu2 * mm * G * r[k] / rs : 0.0;  // on the top box
      const double ff = bs > 1e-12 ? -mu1 * (M + mm) * G * vb[k] / bs : 0.0;
      vt[k] += dt * ft / mm;
      vb[k] += dt * (ff - ft) / M;
    }
  }
  double off = 0.0;
  for (int k = 0; k < 2; k++) {
    const double *st = k ? &w.bodies.v[1].x : &w.bodies.v[2].x, *ref = k ? vb : vt;
    off = fmax(off, fmax(fabs(st[0] - ref[0]), fabs(st[1] - ref[1])));
  }
  fprintf(stderr,
          "%-10s mu1 %.1f mu2 %.1f, %3g kg under %2g kg, thrown %2.0f degrees off: top (%.4f %.4f) Coulomb "
          "(%.4f %.4f), bottom (%.4f %.4f) Coulomb (%.4f %.4f) m/s\n",
          solver, mu1, mu2, M, mm, dphi_deg, w.bodies.v[2].x, w.bodies.v[2].y, vt[0], vt[1], w.bodies.v[1].x,
          w.bodies.v[1].y, vb[0], vb[1]);
  ENSURE(off <= 0.01 * v0);
  tsr_test_world_free(&m, &w);
}

static void test_ride_askew(void) {
  for (int s = 0; s < 3; s++) {
    ride_askew(0.5, 0.3, 10, 2, 3, SOLVERS[s]);
    ride_askew(0.5, 0.2, 100, 1, -10, SOLVERS[s]);
    ride_askew(0.3, 0.5, 10, 2, 3, SOLVERS[s]);
  }
}

static void test_ride(void) {
  for (int s = 0; s < 3; s++) {
    ride(0.3, 0.5, 10, 2, SOLVERS[s]);
    ride(0.5, 0.3, 10, 2, SOLVERS[s]);
    ride(0.3, 0.5, 2, 50, SOLVERS[s]);
    ride(0.5, 0.2, 100, 1, SOLVERS[s]);
  }
}

// 4. Conveyor.
static void conveyor(double U, double mu, double mass, const char *solver) {
  const double az = 0.83;
  const TsrVec3 d = tsr_v3(cos(az), sin(az), 0);
  char yaml[4096];
  snprintf(yaml, sizeof yaml,
           "format: tessera-model/1\nname: conveyor\n"
           "settings: {step: %.17g, steps: 45, solver: {type: %s}}\n"
           "materials: [{name: m, friction: %.17g}]\n"
           "bodies:\n"
           "  - {name: plank, mass: 30, shape: {type: box, size: [8, 1, 0.1]}, position: [0, 0, -0.05],\n"
           "     orientation: {axis: [0, 0, 1], angle: %.17g}, velocity: [%.17g, %.17g, 0]}\n"
           "  - {name: box, mass: %g, shape: {type: box, size: [0.3, 0.2, 0.2]}, position: [0, 0, 0.1],\n"
           "     orientation: {axis: [0, 0, 1], angle_deg: 21}}\n"
           "joints:\n"
           "  - {name: belt, type: prismatic, bodies: [world, plank], anchor: [0, 0, -0.05], axis: [%.17g, %.17g, 0],\n"
           "     motor: {speed: %.17g, max_force: 1.0e6}}\n",
           H, solver, mu, az, U * d.x, U * d.y, mass, d.x, d.y, U);
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  long rides = -1;
  double worst = 0.0;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    const double v = tsr_v3_dot(w.bodies.v[1], d);
    if (rides < 0 && fabs(v - U) < 1e-4 * U) rides = w.step;
    if (rides < 0) worst = fmax(worst, fabs(v - mu * G * w.time));
  }
  const long expect = (long)ceil(U / (mu * G * H));
  fprintf(stderr, "%-10s conveyor at %.1f m/s, mu %.1f, %3g kg box: rides from step %ld (%ld), off mu g t by %.1e\n",
          solver, U, mu, mass, rides, expect, worst);
  ENSURE(rides == expect);
  ENSURE(worst < 1e-3 * mu * G * H);
  ENSURE_NEAR(tsr_v3_dot(w.bodies.v[1], d), U, 1e-6);
  tsr_test_world_free(&m, &w);
}

static void test_conveyor(void) {
  for (int s = 0; s < 3; s++) conveyor(1.5, 0.3, 2.0, SOLVERS[s]), conveyor(2.0, 0.6, 200.0, SOLVERS[s]);
}

// 5. A box pulled by a rope through its centre at yaw to its sides.
static double pull(double k, double yaw_deg, const char *solver) {
  const double az = 0.3, mu = 0.5, mass = 4.0;
  const TsrVec3 d = tsr_v3(cos(az), sin(az), 0);
  char yaml[4096];
  snprintf(yaml, sizeof yaml,
           "format: tessera-model/1\nname: pull\n"
           "settings: {step: %.17g, steps: 60, solver: {type: %s}}\n"
           "materials: [{name: m, friction: %.17g}]\n"
           "bodies:\n"
           "  - {name: floor, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: 0}}\n"
           "  - {name: box, mass: %g, shape: {type: box, size: [0.4, 0.4, 0.2]}, position: [0, 0, 0.1],\n"
           "     orientation: {axis: [0, 0, 1], angle: %.17g}}\n"
           "  - {name: slider, mass: 1, shape: {type: sphere, radius: 0.05}, position: [%.17g, %.17g, 0.1]}\n"
           "joints:\n"
           "  - {name: rail, type: prismatic, bodies: [world, slider], anchor: [%.17g, %.17g, 0.1], axis: [%.17g, "
           "%.17g, 0],\n"
           "     motor: {speed: 0.5, max_force: %.17g}}\n"
           "  - {name: rope, type: distance, bodies: [slider, box], anchors: [[%.17g, %.17g, 0.1], [0, 0, 0.1]], "
           "unilateral: true}\n",
           H, solver, mu, mass, az + yaw_deg * M_PI / 180, d.x, d.y, d.x, d.y, d.x, d.y, k * mu * mass * G, d.x, d.y);
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  while (w.step < m.settings.steps) ENSURE(tsr_world_step(&w) == 0);
  const double s = hypot(w.bodies.x[1].x, w.bodies.x[1].y);
  // where it went, in degrees off the rope (0 when it did not move)
  const double off = s > 0.0 ? fabs(atan2(w.bodies.x[1].y, w.bodies.x[1].x) - az) * 180 / M_PI : 0.0;
  fprintf(stderr,
          "%-10s pulled at %.1f mu m g, %2.0f degrees to its sides: moved %.3e m in 1 s, %.3f degrees off the "
          "rope\n",
          solver, k, yaw_deg, s, off);
  // Sliding, it goes along the rope whatever its yaw: its friction is all
  // against its velocity (rows.c, kinetic). 0.5 degrees: the first step's
  // friction, before it slides, is along the box's axes (measured 0.01).
  if (s > 0.3) ENSURE(off < 0.5);
  tsr_test_world_free(&m, &w);
  return s;
}

static void test_pull(void) {
  for (int s = 0; s < 3; s++) {
    const double yaws[] = {0.0, 20.0, 45.0};
    for (int y = 0; y < 3; y++) ENSURE(pull(0.9, yaws[y], SOLVERS[s]) < 1e-6);
    ENSURE(pull(1.2, 0.0, SOLVERS[s]) > 0.3);
    ENSURE(pull(1.2, 20.0, SOLVERS[s]) > 0.3);
    ENSURE(pull(1.2, 45.0, SOLVERS[s]) > 0.3);
  }
}

// 6. No bounce; rolling keeps its energy.
static void drop(const char *solver) {
  const double r = 0.1, mass = 3.0, eps = 2e-9;
  char yaml[1024];
  snprintf(yaml, sizeof yaml,
           "format: tessera-model/1\nname: drop\n"
           "settings: {step: %.17g, steps: 120, solver: {type: %s}}\n"
           "materials: [{name: m, friction: 0.5, compliance: 1.0e-9, damping: 2.0}]\n"
           "bodies:\n"
           "  - {name: floor, fixed: true, shape: {type: plane, normal: [0, 0, 1], offset: 0}}\n"
           "  - {name: ball, mass: %g, shape: {type: sphere, radius: %g}, position: [0.3, -0.2, %.17g],\n"
           "     velocity: [0.7, 0.4, 0], angular_velocity: [-4, 7, 0]}\n",
           H, solver, mass, r, r + 0.5);
  TsrModel m;
  TsrWorld w;
  tsr_test_world(yaml, NULL, 0, &m, &w);
  const double rest = r - eps * mass * G;
  double above = -INFINITY;
  long landed = -1;
  double e_roll = 0.0, e_worst = 0.0;
  while (w.step < m.settings.steps) {
    ENSURE(tsr_world_step(&w) == 0);
    const double z = w.bodies.x[1].z;
    if (landed < 0 && w.contacts.n > 0 && w.contacts.c[0].impulse[0] > 0.0) landed = w.step;
    if (landed >= 0) above = fmax(above, z - rest);
    const double ke = 0.5 * mass * tsr_v3_dot(w.bodies.v[1], w.bodies.v[1]) +
                      0.5 * tsr_v3_dot(tsr_bodies_angular_momentum(&w.bodies, 1), w.bodies.w[1]);
    if (w.step == 80) e_roll = ke;
    if (w.step > 80) e_worst = fmax(e_worst, fabs(ke - e_roll));
  }
  fprintf(stderr,
          "%-10s dropped ball: lands at step %ld, highest after %.3e m above rest, rests at %.3e m from r - eps m g; "
          "rolling kinetic energy %.9f J, changed by %.1e\n",
          solver, landed, above, w.bodies.x[1].z - rest, e_roll, e_worst);
  ENSURE(landed > 0 && above < 1e-6);
  ENSURE_NEAR(w.bodies.x[1].z, rest, 1e-9);
  ENSURE(e_worst < 1e-9 * e_roll);
  tsr_test_world_free(&m, &w);
}

static void test_drop(void) {
  for (int s = 0; s < 3; s++) drop(SOLVERS[s]);
}

int main(void) {
  RUN_TEST(test_incline);
  RUN_TEST(test_spin);
  RUN_TEST(test_ride);
  RUN_TEST(test_ride_askew);
  RUN_TEST(test_conveyor);
  RUN_TEST(test_pull);
  RUN_TEST(test_drop);
  return tsr_test_failures ? 1 : 0;
}
