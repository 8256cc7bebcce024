// SPDX-License-Identifier: MIT
// Primal active-set method for the symmetric box MLCP, the finisher of the
// pivoting solvers' restarts where projected Newton cycles at a degenerate
// point. See pas.c.
#ifndef TSR_PAS_H
#define TSR_PAS_H

#include <stdint.h>

#include "mlcp/mlcp.h"
#include "solvers/solver.h"

typedef struct TsrPas TsrPas;

TsrPas *tsr_pas_create(void);
void tsr_pas_free(TsrPas **pas);

// Solves p (p->symmetric, A positive semidefinite; a singular A_FF is
// regularised) from lambda (in: the start, projected onto the bounds; out:
// the best iterate, which is also the last: the objective never increases).
// max_iter active-set changes at most (each one factorisation of A_FF, a
// row update of the last one where linalg/chol.c can). With max_fresh >= 0
// it also stops before a factorisation beyond the first when max_fresh
// fresh ones (not updates) were made beyond the first, or when the path
// held has no cheap updates (CHOLMOD's supernodal one, whose dense factors
// make each change cost ~1 ms even as an update; dense LU, none); -1: no
// such limit.
// index_set [m] out (may
// be NULL). stats: iterations and factorizations are ADDED to; converged and
// residual are set. Returns 0 when the natural residual reached round-off
// (1e-12 max(1, |b|_inf, max|A_ij| |lambda|_inf)) with every row within
// 1e-10 of its own scale (tsr_mlcp_relative_residual), 1 at max_iter or when
// no descent is left at working precision, < 0 failure (allocation, not
// symmetric, no factorisation possible).
int tsr_pas_solve(const TsrMlcp *p, int max_iter, int max_fresh, double *lambda, int8_t *index_set,
                  TsrSolveStats *stats, TsrPas *pas);

#endif
