// SPDX-License-Identifier: MIT
// Universal joint: a ball joint (3 rows) plus one angular row keeping axis a1
// (fixed in body 0) perpendicular to a2 (fixed in body 1):
//   g = a1 . a2,  d g/dt = (w0 - w1) . (a1 x a2),  so J0 = [0, c], J1 = [0, -c], c = a1 x a2.
#include "joints/joints_internal.h"

void tsr_joint_universal(TsrJointCtx *c) {
  tsr_joint_point_rows(c, c->d->compliance);
  TsrVec3 a1 = tsr_q_rotate(c->s[0].q, c->f->axis_a);
  TsrVec3 a2 = tsr_q_rotate(c->s[1].q, c->f->axis_b);
  TsrVec3 x = tsr_v3_cross(a1, a2);
  TsrVec3 zero = tsr_v3(0, 0, 0);
  tsr_joint_row(c, TSR_ROW_JOINT, zero, x, zero, tsr_v3_neg(x), tsr_v3_dot(a1, a2), c->d->compliance, -INFINITY,
                INFINITY, 0);
}
