// SPDX-License-Identifier: MIT
// Projected Gauss-Seidel with subspace minimisation (Silcowitz, Niebe and
// Erleben 2011; seed 000 §5.1): the "pgs-sm" whole-system solver and the
// interface solver of "schur-pgs-sm". See pgs_sm.c.
#ifndef TSR_PGS_SM_H
#define TSR_PGS_SM_H

#include <stdint.h>

#include "mlcp/mlcp.h"
#include "solvers/solver.h"

typedef struct TsrPgsSm TsrPgsSm;

TsrPgsSm *tsr_pgs_sm_create(void);
void tsr_pgs_sm_free(TsrPgsSm **g);

// lambda [m] in/out: the warm start when params->warm_start, else 0 (clamped
// to the bounds); the solution on exit. index_set [m] out (may be NULL).
// Uses params->max_pivots (outer iterations, each = PGS sweeps + subspace
// minimisation), params->pivot_tolerance (feasibility of the tight rows'
// slack, relative to ||b||_inf). stats: iterations (outer iterations)
// and factorizations ADDED to, converged and residual set. Returns 0 when an
// index set was found feasible, 1 at the cap or when the set stagnated, < 0
// failure (a diagonal entry <= 0, allocation).
int tsr_pgs_sm_solve(const TsrMlcp *p, const TsrSolverParams *params, double *lambda, int8_t *index_set,
                     TsrSolveStats *stats, TsrPgsSm *g);

#endif
