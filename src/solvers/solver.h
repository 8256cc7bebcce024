// SPDX-License-Identifier: MIT
// One interface for every MLCP solver (ARCHITECTURE.md "Solvers").
//
// A solver is created once per run with its parameters and keeps its own
// workspace (and CHOLMOD context) between steps. `lambda` is in/out: on entry
// the warm start (the caller maps the previous step's impulses onto this
// step's rows, zeros where there is nothing to map), on exit the solution.
// `index_set` is in/out the same way (BPP may start from it when warm_start
// is on). Return: 0 solved to the solver's own stopping rule, > 0 a warning
// (iteration cap reached: the best iterate is returned), < 0 failure.
#ifndef TSR_SOLVER_H
#define TSR_SOLVER_H

#include <stdint.h>

#include "mlcp/mlcp.h"
#include "model/model.h"
#include "partition/partition.h"

typedef struct {
  TsrSolverType type;
  int max_pivots;               // kappa_iter for BPP (seed 000 Table 1: 50)
  double index_tolerance;       // eta (1e-5)
  int iterations;               // PGS sweeps (1000)
  double tolerance;             // epsilon (1e-9)
  int warm_start;               // 1
  int max_coupling_iterations;  // k_max (substructured solvers)
  int threads;                  // 0 = every core
  double pivot_tolerance;       // BPP feasibility test of a pivot, relative (1e-10; see solvers/bpp.c).
                                // index_tolerance (eta) stays the tolerance of index-set classification.
} TsrSolverParams;

typedef struct {
  int iterations;           // pivots (BPP, summed over solves) or sweeps (PGS)
  int coupling_iterations;  // k (0 when not substructuring)
  int converged;            // met its own stopping rule before its cap
  int subsystems;           // N (1 for whole-system solvers)
  int interface_rows;       // |Gamma| (0 for whole-system solvers)
  double residual;          // natural residual norm, Eq. 29, whole system
  int factorizations;       // number of factorisations done
} TsrSolveStats;

typedef struct TsrSolver TsrSolver;

// 1 for the solvers that split the system into subsystems (schur-bpp,
// schur-pgs-sm, fbic), which take a partition.
int tsr_solver_substructured(TsrSolverType type);

// Fills params with seed 000 Table 1 defaults for `type`.
void tsr_solver_default_params(TsrSolverType type, TsrSolverParams *params);

// k_max of seed 000 Table 1 for a solver: 250 for fbic, 10 otherwise. A
// model that leaves settings.solver.max_coupling_iterations out gets this
// for whichever solver runs it (tessera run --solver, compare, replay).
int tsr_solver_default_kmax(TsrSolverType type);
// NULL when the type is not implemented yet (message in err).
TsrSolver *tsr_solver_create(const TsrSolverParams *params, char *err, int errlen);
// Returns 0 (solved), 1 (not converged: stats->converged = 0), or < 0: the
// solver failed; TSR_SOLVER_REFUSED when a factorisation would have cost
// more than the limit (linalg/chol.h, tsr_chol_refusal says which).
#define TSR_SOLVER_REFUSED (-40)
int tsr_solver_solve(TsrSolver *s, const TsrMlcp *p, const TsrPartition *part, double *lambda, int8_t *index_set,
                     TsrSolveStats *stats);
void tsr_solver_free(TsrSolver **s);

// How the last solve ended, in words, for the solvers that say (lemke: the
// end of its path, the pivot cap, a ray, a refusal); NULL for the others.
const char *tsr_solver_note(const TsrSolver *s);

// Substructured solvers: cumulative seconds spent since creation extracting
// the subsystems (setup), forming S_Gamma / z_Gamma, in the interface MLCP and
// in the subsystem MLCPs. Returns -1 (nothing set) for other solvers.
// Steps on which a substructured solver's result was not within tolerance and
// the whole system was solved again by the direct solver (solver.c).
int tsr_solver_fallbacks(const TsrSolver *s);
// Seconds spent in those direct solves, since creation.
double tsr_solver_fallback_seconds(const TsrSolver *s);
// Substructured solvers: measure cond_2(S_Gamma) at every coupling iteration
// (tsr_schur_measure_cond); *mean gets their mean, returns how many (0 when
// the solver does not substructure or nothing was measured).
void tsr_solver_measure_cond(TsrSolver *s, int on);
long tsr_solver_cond_mean(const TsrSolver *s, double *mean);

int tsr_solver_phase_seconds(const TsrSolver *s, double *setup, double *schur, double *iface, double *subsystems);
// Substructured solvers: the critical paths of the parallel phases (the
// longest S_Gamma block and the longest subsystem solve of every coupling
// iteration, summed; TsrSchurTimes) and the time in merged re-runs (schur-bpp,
// schur-pgs-sm), in seconds. Returns -1 (nothing set) for other solvers.
int tsr_solver_critical_seconds(const TsrSolver *s, double *schur_longest, double *subsystems_longest, double *merged);
// Substructured solvers: the parallel slack of their solves so far (seconds,
// TsrSchurTimes.slack): their solve time less this bounds from below what
// they would take at any thread count on the same partitions. Returns -1
// (nothing set) for other solvers.
int tsr_solver_slack_seconds(const TsrSolver *s, double *slack);

#endif
