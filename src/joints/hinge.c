// SPDX-License-Identifier: MIT
// Hinge: a ball joint (3 rows) plus two angular rows keeping the axis n0 fixed
// in body 0 aligned with n1 fixed in body 1:
//   g_k = t_k . (n0 x n1),  rate t_k . (w1 - w0),  t_1, t_2 perpendicular to n0,
// then an optional limit row on the hinge angle and an optional motor row on
// its rate n0 . (w1 - w0), bounded by max_torque h.
#include "joints/joints_internal.h"

double tsr_joint_hinge_angle(const TsrJointCtx *c) {
  // Relative rotation since the initial configuration, in body 0's frame:
  // Q = conj(q0) q1 conj(rel0) is a rotation about axis_a by the hinge angle,
  // known from the pose up to whole turns. The nearest to the angle the
  // previous step ended with (f->angle) is the one the hinge turned to: no
  // hinge turns half a turn in a step. Without that, a hinge driven past
  // 2 pi read an angle 4 pi lower, and a limit beyond it (limits [-1, 7])
  // pushed it on with every turn (a wheel driven at 2 rad/s spun up to
  // 200 rad/s).
  TsrQuat Q = tsr_q_mul(tsr_q_mul(tsr_q_conj(c->s[0].q), c->s[1].q), tsr_q_conj(c->f->rel0));
  double s = Q.x * c->f->axis_a.x + Q.y * c->f->axis_a.y + Q.z * c->f->axis_a.z;
  double a = 2.0 * atan2(s, Q.w);
  return a + 2.0 * M_PI * round((c->f->angle - a) / (2.0 * M_PI));
}

void tsr_joint_hinge(TsrJointCtx *c) {
  tsr_joint_point_rows(c, c->d->compliance);
  TsrVec3 n0 = tsr_q_rotate(c->s[0].q, c->f->axis_a);
  TsrVec3 n1 = tsr_q_rotate(c->s[1].q, c->f->axis_b);
  TsrVec3 t1 = tsr_q_rotate(c->s[0].q, c->f->t1_a);
  TsrVec3 t2 = tsr_q_rotate(c->s[0].q, c->f->t2_a);
  TsrVec3 x = tsr_v3_cross(n0, n1);
  tsr_joint_angular_row(c, TSR_ROW_JOINT, t1, tsr_v3_dot(t1, x), c->d->compliance, -INFINITY, INFINITY, 0);
  tsr_joint_angular_row(c, TSR_ROW_JOINT, t2, tsr_v3_dot(t2, x), c->d->compliance, -INFINITY, INFINITY, 0);
  TsrVec3 zero = tsr_v3(0, 0, 0);
  if (c->d->has_limits) tsr_joint_limit_row(c, zero, tsr_v3_neg(n0), zero, n0, tsr_joint_hinge_angle(c));
  if (c->d->has_motor) tsr_joint_motor_row(c, zero, tsr_v3_neg(n0), zero, n0);
}
