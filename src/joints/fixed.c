// SPDX-License-Identifier: MIT
// Fixed joint and cable segment: all six relative motions constrained.
//   3 point rows (ball joint), then 3 angular rows on the rotation error
//   theta (world rotation vector from the initial relative orientation to the
//   current one; rate w1 - w0), projected on the axes of body 0's frame.
// A cable segment is the same joint with its own compliance per motion
// (seed 000 §7.1 cables: nearly inextensible, soft in bending and torsion):
// stretch for the point rows, bend for the two axes across the cable, twist
// about it.
#include "joints/joints_internal.h"

static void weld(TsrJointCtx *c, double eps_lin, double eps_bend, double eps_twist) {
  tsr_joint_point_rows(c, eps_lin);
  TsrVec3 th = tsr_joint_rotation_error(c);
  TsrVec3 n = tsr_q_rotate(c->s[0].q, c->f->axis_a);
  TsrVec3 t1 = tsr_q_rotate(c->s[0].q, c->f->t1_a);
  TsrVec3 t2 = tsr_q_rotate(c->s[0].q, c->f->t2_a);
  tsr_joint_angular_row(c, TSR_ROW_JOINT, t1, tsr_v3_dot(t1, th), eps_bend, -INFINITY, INFINITY, 0);
  tsr_joint_angular_row(c, TSR_ROW_JOINT, t2, tsr_v3_dot(t2, th), eps_bend, -INFINITY, INFINITY, 0);
  tsr_joint_angular_row(c, TSR_ROW_JOINT, n, tsr_v3_dot(n, th), eps_twist, -INFINITY, INFINITY, 0);
}

void tsr_joint_fixed(TsrJointCtx *c) { weld(c, c->d->compliance, c->d->compliance, c->d->compliance); }

void tsr_joint_cable(TsrJointCtx *c) {
  weld(c, c->d->cable_compliance[0], c->d->cable_compliance[1], c->d->cable_compliance[2]);
}
