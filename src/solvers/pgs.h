// SPDX-License-Identifier: MIT
// Projected Gauss-Seidel on the whole MLCP (seed 000 §7.1 baseline "PGS").
#ifndef TSR_PGS_H
#define TSR_PGS_H

#include "mlcp/mlcp.h"
#include "solvers/solver.h"

typedef struct TsrPgs TsrPgs;

TsrPgs *tsr_pgs_create(void);
void tsr_pgs_free(TsrPgs **g);

// lambda [m] in/out: the warm start when params->warm_start (else it starts
// from 0 clamped to the bounds), the last sweep's iterate on exit. Uses
// params->iterations (sweeps) and params->tolerance. Sets stats->iterations
// (sweeps), converged, residual (Eq. 29). Returns 0 converged, 1 sweep cap
// reached, < 0 failure (a diagonal entry <= 0: PGS cannot divide by it).
int tsr_pgs_solve(const TsrMlcp *p, const TsrSolverParams *params, double *lambda, TsrSolveStats *stats, TsrPgs *g);

#endif
