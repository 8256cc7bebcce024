// SPDX-License-Identifier: MIT
// Joints: from model joints and body state to constraint rows (seed 000 Eq. 1
// and 3), one function per joint type. Anchors and axes, given in world
// coordinates at the initial configuration, are stored in body frames here.
//
// Row velocity convention: J v = d g / dt, where g is the row's position-level
// violation; a positive impulse pushes along +J (body 0 along +dir, body 1
// along -dir for a linear row).
#ifndef TSR_JOINTS_H
#define TSR_JOINTS_H

#include "dynamics/bodies.h"
#include "mlcp/mlcp.h"
#include "model/model.h"

typedef struct {
  TsrJointType type;
  int body[2];         // -1 for the world
  TsrVec3 anchor[2];   // in each body's frame (world frame for the world)
  TsrVec3 axis_a;      // hinge/prismatic/cable axis, universal a1: body 0 frame
  TsrVec3 t1_a, t2_a;  // two unit vectors completing axis_a to a basis, body 0 frame
  TsrVec3 axis_b;      // hinge axis, universal a2: body 1 frame
  TsrQuat rel0;        // initial relative orientation conj(q0) q1
  double length;       // distance joint
  double angle;        // hinge: its angle since the start, turns included (tsr_joints_track)
  double motor_lag;    // motor: its servo's lag behind the target, s - s0 - speed t (joints.c)
} TsrJointFrame;

typedef struct {
  int n;
  TsrJointFrame *frames;
  int n_rows;  // the joints' rows, first in every step's row set: rows [0, n_rows) (fixed for a run)
  int motors;  // whether any joint has a motor
} TsrJoints;

int tsr_joints_init(TsrJoints *js, const TsrModel *m, const TsrBodies *b);
void tsr_joints_free(TsrJoints *js);

// Number of rows a joint contributes (fixed for a run: limit and motor rows
// are always present, so rows keep their order from step to step).
int tsr_joint_row_count(const TsrJointDef *d);
// Of those, the rows of the joint itself (limits and motors aside; a rope's
// row too, though it can go slack).
int tsr_joint_equality_rows(const TsrJointDef *d);

// Rank of the k rows rows[pick[0..k)] (k <= 12) as a map of the velocities of
// the two bodies lo and hi (>= 0; a side of -1, the world or a fixed body,
// has none; a row's J[s] goes with whichever of the two its body[s] is): a
// row whose part outside the span of the others is below 1e-8 of its own
// norm depends on them (modified Gram-Schmidt, largest remaining row first).
// Joint rows depend on the relative motion only: the rank is at most 6.
int tsr_joint_rows_rank(const TsrRow *rows, const int *pick, int k, int lo, int hi);

// Appends every joint's rows, in model order (OUTPUT.md row order). v_free:
// the bodies' velocities at the end of the step without constraints (6 a
// body: v, w; NULL: their velocities now), which picks each limit's side.
// Returns 0 (js->n_rows rows added), or -1 when memory for a row ran out
// (some rows are then missing).
int tsr_joints_build_rows(const TsrJoints *js, const TsrModel *m, const TsrBodies *b, const double *v_free, double h,
                          TsrRowSet *rows);

// After the bodies moved: follows each limited hinge's angle through whole
// turns (a pose gives the angle only up to turns, and a limit beyond half a
// turn needs them, see hinge.c; the next step's limit row reads the same
// pose's angle again, from this one: storing it in place of that would tie
// the rows to this call having followed every change of pose), and each
// motor's lag behind its target (joints.c), from the step's rows, their
// impulses lambda and the solved velocities v_new (6 a body: v, w), h the
// step.
void tsr_joints_track(TsrJoints *js, const TsrModel *m, const TsrBodies *b, double h, const TsrRowSet *rows,
                      const double *lambda, const double *v_new);

// Largest position-level violation of a joint's translational constraints
// over all joints, m (/stats/joint_error).
double tsr_joints_max_error(const TsrJoints *js, const TsrModel *m, const TsrBodies *b);

#endif
