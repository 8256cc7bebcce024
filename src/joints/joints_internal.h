// SPDX-License-Identifier: MIT
// Shared by the joint-type files: body poses and row construction.
#ifndef TSR_JOINTS_INTERNAL_H
#define TSR_JOINTS_INTERNAL_H

#include "joints/joints.h"
#include "joints/spook.h"

// Pose and velocity of one side of a joint (the world when body < 0).
typedef struct {
  int body;
  TsrVec3 x;
  TsrQuat q;
  TsrVec3 v, w;
} TsrSide;

static inline TsrSide tsr_joint_side(const TsrBodies *b, int k) {
  if (k < 0) return (TsrSide){-1, tsr_v3(0, 0, 0), tsr_q_identity(), tsr_v3(0, 0, 0), tsr_v3(0, 0, 0)};
  return (TsrSide){k, b->x[k], b->q[k], b->v[k], b->w[k]};
}

// Everything a joint-type function needs for one evaluation.
typedef struct {
  const TsrJointFrame *f;
  const TsrJointDef *d;
  TsrSide s[2];
  TsrVec3 r[2];          // anchor offsets from each centre of mass, world
  TsrVec3 p[2];          // anchor points, world
  TsrVec3 vf[2], wf[2];  // each side's free velocity over the step (gravity in), world
  double h;
  int source;  // joint index
  TsrRowSet *rows;
  int failed;  // a row could not be added (out of memory)
} TsrJointCtx;

// Adds a row with velocity lin0.v0 + ang0.w0 + lin1.v1 + ang1.w1, violation g,
// compliance eps and damping d (SPOOK, spook.h), bounds [lo, hi].
void tsr_joint_row(TsrJointCtx *c, int8_t type, TsrVec3 lin0, TsrVec3 ang0, TsrVec3 lin1, TsrVec3 ang1, double g,
                   double eps, double lo, double hi, int unilateral);

// Marks the last row added as a force through a point: arms a0, a1 from the
// bodies' centres (world), for geometric stiffness.
void tsr_joint_set_arms(TsrJointCtx *c, TsrVec3 a0, TsrVec3 a1);
// Three rows keeping the anchor points together (p0 - p1 = 0), world axes.
void tsr_joint_point_rows(TsrJointCtx *c, double eps);
// Rotation vector taking body 1 from where the initial relative orientation
// puts it to where it is (world frame); rate w1 - w0.
TsrVec3 tsr_joint_rotation_error(const TsrJointCtx *c);
// One angular row about world direction e with violation g (rate e.(w1 - w0)).
void tsr_joint_angular_row(TsrJointCtx *c, int8_t type, TsrVec3 e, double g, double eps, double lo, double hi,
                           int unilateral);
// Limit row for a coordinate s with rate ds/dt along (lin, ang) blocks, and a
// motor row on the same rate. Both always present when declared.
void tsr_joint_limit_row(TsrJointCtx *c, TsrVec3 lin0, TsrVec3 ang0, TsrVec3 lin1, TsrVec3 ang1, double s);
void tsr_joint_motor_row(TsrJointCtx *c, TsrVec3 lin0, TsrVec3 ang0, TsrVec3 lin1, TsrVec3 ang1);

void tsr_joint_ball(TsrJointCtx *c);
void tsr_joint_hinge(TsrJointCtx *c);
void tsr_joint_universal(TsrJointCtx *c);
void tsr_joint_prismatic(TsrJointCtx *c);
void tsr_joint_fixed(TsrJointCtx *c);
void tsr_joint_cable(TsrJointCtx *c);
void tsr_joint_distance(TsrJointCtx *c);

// Hinge angle / prismatic slide since the initial configuration.
double tsr_joint_hinge_angle(const TsrJointCtx *c);
double tsr_joint_slide(const TsrJointCtx *c);

#endif
