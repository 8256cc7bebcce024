// SPDX-License-Identifier: MIT
// Prismatic joint: body 1 slides along axis n fixed in body 0, without
// rotating relative to it. Two linear rows across the axis and three angular
// rows (5), then an optional limit and motor on the slide s = n.(p1 - p0).
//   linear row k (t_k across n):  g = t_k.(p1 - p0),
//   d g/dt = t_k.(v1 + w1 x r1 - v0 - w0 x (p1 - x0))   (t_k turns with body 0)
//   => J0 = [-t_k, -((p1 - x0) x t_k)],  J1 = [t_k, r1 x t_k].
#include "joints/joints_internal.h"

double tsr_joint_slide(const TsrJointCtx *c) {
  TsrVec3 n = tsr_q_rotate(c->s[0].q, c->f->axis_a);
  return tsr_v3_dot(n, tsr_v3_sub(c->p[1], c->p[0]));
}

static void slide_row(TsrJointCtx *c, int8_t type, TsrVec3 t, double g, double eps, int bounded) {
  TsrVec3 arm0 = tsr_v3_sub(c->p[1], c->s[0].x);
  TsrVec3 l0 = tsr_v3_neg(t), a0 = tsr_v3_neg(tsr_v3_cross(arm0, t));
  TsrVec3 l1 = t, a1 = tsr_v3_cross(c->r[1], t);
  if (type == TSR_ROW_LIMIT) {
    tsr_joint_limit_row(c, l0, a0, l1, a1, g);
  } else if (type == TSR_ROW_MOTOR) {
    tsr_joint_motor_row(c, l0, a0, l1, a1);
  } else {
    (void)bounded;
    tsr_joint_row(c, TSR_ROW_JOINT, l0, a0, l1, a1, g, eps, -INFINITY, INFINITY, 0);
  }
  tsr_joint_set_arms(c, arm0, c->r[1]);
}

void tsr_joint_prismatic(TsrJointCtx *c) {
  TsrVec3 d = tsr_v3_sub(c->p[1], c->p[0]);
  TsrVec3 t1 = tsr_q_rotate(c->s[0].q, c->f->t1_a);
  TsrVec3 t2 = tsr_q_rotate(c->s[0].q, c->f->t2_a);
  TsrVec3 n = tsr_q_rotate(c->s[0].q, c->f->axis_a);
  slide_row(c, TSR_ROW_JOINT, t1, tsr_v3_dot(t1, d), c->d->compliance, 0);
  slide_row(c, TSR_ROW_JOINT, t2, tsr_v3_dot(t2, d), c->d->compliance, 0);
  TsrVec3 th = tsr_joint_rotation_error(c);
  const TsrVec3 e[3] = {n, t1, t2};
  for (int k = 0; k < 3; k++)
    tsr_joint_angular_row(c, TSR_ROW_JOINT, e[k], tsr_v3_dot(e[k], th), c->d->compliance, -INFINITY, INFINITY, 0);
  if (c->d->has_limits) slide_row(c, TSR_ROW_LIMIT, n, tsr_v3_dot(n, d), 0, 1);
  if (c->d->has_motor) slide_row(c, TSR_ROW_MOTOR, n, 0, 0, 1);
}
