// SPDX-License-Identifier: MIT
// The whole system's pivoting solve (direct-bpp) island by island.
//
// Bodies that share no constraint row, directly or through other moving
// bodies, make independent blocks of A: A is block diagonal over these
// islands (rows linked by a nonzero of A), and the MLCP of Eq. 8 is the
// union of one MLCP per island. Solving each on its own is still a direct
// solve of the whole system, with the same solution; what changes is what
// block pivoting shares between unrelated problems when it runs on their
// union: its feasibility tolerance (relative to the largest |b| and bound
// of the whole system, bpp.c), its pivot budget, its Júdice-Pires count of
// infeasible rows, and its restarts. A light chain beside a 49 t load was
// left at 1.4e-6 of its rows' own terms that way, every polishing stage
// failing on the union, while each island alone reaches round-off (seed
// 5126 of tests/substructure/test_random_models.py's chain family).
#ifndef TSR_ISLANDS_H
#define TSR_ISLANDS_H

#include <stdint.h>

#include "mlcp/mlcp.h"
#include "solvers/solver.h"

typedef struct TsrIslands TsrIslands;

TsrIslands *tsr_islands_create(void);
void tsr_islands_free(TsrIslands **is);

// tsr_bpp_retry_solve on p (same arguments and returns), one island of A at a
// time when A has several, in the order of their first rows. lambda in: the
// warm start, out: the solution. stats: pivots and factorisations summed over
// the islands, converged when every island converged, residual that of the
// whole system (Eq. 29). A problem with a dense copy of A (p->dense) is solved
// whole, and so is every problem with TSR_DIRECT_WHOLE=1 in the environment
// (to measure what the islands do). Returns 0, 1 when an island's solve did not converge (its best
// iterate is kept), < 0 on failure.
int tsr_islands_solve(const TsrMlcp *p, const TsrSolverParams *params, double *lambda, int8_t *index_set,
                      TsrSolveStats *stats, TsrIslands *is);

// Islands found by the last tsr_islands_solve (1 when it solved p whole).
int tsr_islands_count(const TsrIslands *is);

#endif
