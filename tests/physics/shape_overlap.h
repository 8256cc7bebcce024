// SPDX-License-Identifier: MIT
// Signed distances to a cylinder and a box, and the overlap of the two by
// sampling both surfaces: the tests of contact pairs taken from random
// piles measure the true overlap with them, independently of the collider.
#ifndef TSR_SHAPE_OVERLAP_H
#define TSR_SHAPE_OVERLAP_H

#include <math.h>
#include <stdio.h>

#include "math/tsr_math.h"
#include "sim/world.h"
#include "tsr_test.h"

// Signed distance from p to the cylinder of radius r and half length h at
// pose (x, q), its axis along the body's z (< 0: inside).
static inline double test_cylinder_sd(TsrVec3 x, TsrQuat q, double r, double h, TsrVec3 p) {
  TsrVec3 y = tsr_q_rotate_inv(q, tsr_v3_sub(p, x));
  double dr = hypot(y.x, y.y) - r, dz = fabs(y.z) - h;
  if (dr <= 0.0 && dz <= 0.0) return fmax(dr, dz);
  return hypot(fmax(dr, 0.0), fmax(dz, 0.0));
}

// Signed distance from p to the box of half sizes hs at pose (x, q).
static inline double test_box_sd(TsrVec3 x, TsrQuat q, TsrVec3 hs, TsrVec3 p) {
  TsrVec3 y = tsr_q_rotate_inv(q, tsr_v3_sub(p, x));
  double e[3] = {fabs(y.x) - hs.x, fabs(y.y) - hs.y, fabs(y.z) - hs.z};
  if (e[0] <= 0 && e[1] <= 0 && e[2] <= 0) return fmax(e[0], fmax(e[1], e[2]));
  return sqrt(pow(fmax(e[0], 0), 2) + pow(fmax(e[1], 0), 2) + pow(fmax(e[2], 0), 2));
}

// The overlap of a box (half sizes hs at (xb, qb)) and a cylinder (r, half
// length h at (xc, qc)): the deepest sample of either surface inside the
// other (< 0: the gap, about). The box's faces on a 41 x 41 grid; the
// cylinder's side at stations + 1 stations, per_turn points around, and
// its ends on 12 rings.
static inline double test_box_cylinder_overlap(TsrVec3 xb, TsrQuat qb, TsrVec3 hs, TsrVec3 xc, TsrQuat qc, double r,
                                               double h, int stations, int per_turn) {
  double best = -INFINITY;
  for (int i = 0; i <= 40; i++)
    for (int j = 0; j <= 40; j++)
      for (int k = 0; k <= 40; k++) {
        if (i % 40 && j % 40 && k % 40) continue;  // the surface only
        TsrVec3 l = tsr_v3((i / 20.0 - 1) * hs.x, (j / 20.0 - 1) * hs.y, (k / 20.0 - 1) * hs.z);
        best = fmax(best, -test_cylinder_sd(xc, qc, r, h, tsr_v3_add(xb, tsr_q_rotate(qb, l))));
      }
  for (int s = 0; s <= stations; s++)
    for (int t = 0; t < per_turn; t++)
      for (int ring = 0; ring <= ((s % stations) ? 0 : 12); ring++) {
        double rr = r * (1.0 - ring / 12.0), th = 2.0 * M_PI * t / per_turn;
        TsrVec3 l = tsr_v3(rr * cos(th), rr * sin(th), (2.0 * s / stations - 1) * h);
        best = fmax(best, -test_box_sd(xb, qb, hs, tsr_v3_add(xc, tsr_q_rotate(qc, l))));
      }
  return best;
}

// Steps w `steps` times and returns the largest overlap (by the test's
// own measure) after any of them, printing each.
static inline double test_worst_overlap(TsrWorld *w, int steps, double (*overlap)(const TsrWorld *)) {
  double worst = -INFINITY;
  for (int s = 0; s < steps; s++) {
    ENSURE(tsr_world_step(w) == 0);
    const double o = overlap(w);
    fprintf(stderr, "step %d: overlap %.2f mm\n", s + 1, 1e3 * o);
    worst = fmax(worst, o);
  }
  return worst;
}

#endif
