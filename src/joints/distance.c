// SPDX-License-Identifier: MIT
// Distance joint: |p0 - p1| = L (1 row), u = (p0 - p1) / |p0 - p1|:
//   g = |p0 - p1| - L,  J0 = [u, r0 x u],  J1 = [-u, -(r1 x u)].
// Unilateral (a rope that can go slack): L - |p0 - p1| >= 0 with lambda >= 0,
// the same row negated, speculative while slack (spook.h). It is one-sided
// like a joint limit and typed as one (TSR_ROW_LIMIT): in the run file a
// type-0 row is bilateral, and its index set always 0 (OUTPUT.md).
#include "joints/joints_internal.h"

void tsr_joint_distance(TsrJointCtx *c) {
  TsrVec3 d = tsr_v3_sub(c->p[0], c->p[1]);
  double len = tsr_v3_norm(d);
  // A zero-length separation has no direction; any unit vector keeps the row well-formed.
  TsrVec3 u = len > 1e-12 ? tsr_v3_scale(d, 1.0 / len) : tsr_v3(0, 0, 1);
  double g = len - c->f->length;
  TsrVec3 l0 = u, a0 = tsr_v3_cross(c->r[0], u), l1 = tsr_v3_neg(u), a1 = tsr_v3_neg(tsr_v3_cross(c->r[1], u));
  if (c->d->unilateral) {
    tsr_joint_row(c, TSR_ROW_LIMIT, tsr_v3_neg(l0), tsr_v3_neg(a0), tsr_v3_neg(l1), tsr_v3_neg(a1), -g,
                  c->d->compliance, 0.0, INFINITY, 1);
  } else {
    tsr_joint_row(c, TSR_ROW_JOINT, l0, a0, l1, a1, g, c->d->compliance, -INFINITY, INFINITY, 0);
  }
  tsr_joint_set_arms(c, c->r[0], c->r[1]);
}
