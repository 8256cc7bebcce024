// SPDX-License-Identifier: MIT
// The step pipeline (ARCHITECTURE.md "One step, as data flows"):
//   collide -> constrain -> partition -> solve -> integrate -> record.
// tsr_world_step() reads like that table of contents; each stage is timed
// into the step's statistics.
#ifndef TSR_WORLD_H
#define TSR_WORLD_H

#include "contact/contact.h"
#include "dynamics/bodies.h"
#include "io/run_file.h"
#include "joints/joints.h"
#include "mlcp/mlcp.h"
#include "model/model.h"
#include "partition/partition.h"
#include "solvers/solver.h"

typedef struct TsrWorld {
  const TsrModel *model;
  double h;
  long step;    // steps taken
  double time;  // simulated time
  TsrBodies bodies;
  TsrJoints joints;
  TsrContacts contacts;
  // The bodies' state the contacts detected ahead were detected at
  // (world.c detect_ahead): x, q, v, w of every body.
  double *ahead_state;
  size_t cap_ahead_state;
  TsrRowSet rows;
  TsrMlcp mlcp;
  TsrSolver *solver;
  TsrSolverParams solver_params;
  TsrPartition partition;
  // per-step buffers, grown as needed and reused
  double *v_free, *v_new;    // [6n]
  double *geo;               // [n] geometric stiffness inertia of this step (world.c)
  TsrVec3 *v_plus, *w_plus;  // [n] v+ of the last solve, for detecting again (world.c recollide)
  int first_friction;        // the first step solved again with its own friction (world.c first_step_friction)
  int recollide_passes;      // struck bodies: most detections and solves again per step (world.c recollide)
  double struck_tol;         // m
  long resolves;             // steps solved again for struck bodies so far
  int row_cap;
  double *lambda;       // [rows] solution of the last step
  int8_t *index_set;    // [rows]
  double *prev_lambda;  // warm start: the previous step's joint rows (contacts keep their own)
  int8_t *prev_index_set;
  double *keep_lambda;  // the solution a friction refresh started from (world.c; NULL without friction_refresh)
  int8_t *keep_set;
  int prev_joint_rows;
  // what the last step produced
  TsrStepStats stats;
  TsrSolveStats solve_stats;
  int solve_status;         // solver return of the last step
  double assemble_seconds;  // assembly of A and b in the last step (stage 4, not in stats.solve_seconds)
  int bad_body;             // body with a non-finite state after the last step, or -1
  // Why the last step failed, when it is not the solver's own failure (""
  // otherwise); and a warning the caller shows once (notice_new set by the
  // step that wrote it): world.c check_coupling.
  char error[320], notice[320];
  int notice_new, dense_warned;
  int *body_rows;     // [n] scratch of check_coupling
  int densest_body;   // check_coupling's: the body touching the most rows, -1 for none
  double *sub_rows;   // [2 n] scratch of check_coupling (schur_bytes: rows, coupled interface rows)
  double schur_held;  // the largest Schur-block estimate of the steps solved: what the solver keeps
  int dense_rows;     // its thresholds: TSR_DENSE_ROWS, TSR_MEMORY_LIMIT (bytes; -1: the machine's)
  double memory_limit;
  // Called (when set) with the assembled MLCP and the warm start, just before
  // the solver runs: benchmarks replay the same problem to other solvers
  // (`tessera compare --replay`, cli/compare_replay.c; bench/bench_replay.c).
  void (*solve_hook)(const struct TsrWorld *w, void *ctx);
  void *solve_hook_ctx;
  // frame scratch
  double *f_pos, *f_ori, *f_vel;
  int32_t *f_body_sub;
  int8_t *f_row_type, *f_row_index;
  int32_t *f_row_source, *f_row_body, *f_row_sub;
  int f_contact_cap;
  int32_t *f_contact_body;
  double *f_contact_point, *f_contact_normal, *f_contact_depth, *f_contact_impulse, *f_contact_tangent;
} TsrWorld;

// Builds the world at the model's initial state; 0 on success, else a message
// in err (also when two bodies could meet in a shape pairing that ODE's
// collision library cannot collide: see contact/collide.c).
int tsr_world_create(TsrWorld *w, const TsrModel *m, char *err, int errlen);
void tsr_world_free(TsrWorld *w);

// One step of length h. Returns 0 on success; 1 when the solver failed (its
// status in solve_status); 2 when the state became non-finite (bad_body); 3
// when the state is finite but the step's joint error, MLCP error or
// penetration is not (error says which). 2 and 3: the simulation diverged.
int tsr_world_step(TsrWorld *w);

// The solver parameters a world makes from the model's settings for a solver
// of the given type (the model's own type in tsr_world_create).
void tsr_world_solver_params(const TsrModel *m, TsrSolverType type, TsrSolverParams *p);

// The k_max a run of the model with solver `type` uses: the model's
// settings.solver.max_coupling_iterations, or the solver's own when the
// model leaves it out (tsr_solver_default_kmax).
int tsr_world_kmax(const TsrModel *m, TsrSolverType type);

// Stage 3's policy for a solver of the given type at a step: one subsystem
// for the whole-system solvers; else the model's partitioning method, re-run
// every `partitioning.every` steps (and when part is empty), the rows
// re-assigned in between. Benchmarks that replay a run's MLCPs to other
// solvers (`tessera compare --replay`) keep one partition per solver this way.
int tsr_world_partition(const TsrModel *m, long step, const TsrRowSet *rows, TsrSolverType type, TsrPartition *part);

// The current state as a frame (rows of the last step unless `initial`).
// The arrays live in the world until the next call.
void tsr_world_frame(TsrWorld *w, int initial, TsrFrame *f);

#endif
