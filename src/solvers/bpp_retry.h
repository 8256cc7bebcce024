// SPDX-License-Identifier: MIT
// Block principal pivoting with restarts: what a pivoting solve does when BPP
// runs out of pivots. The whole system's solve (direct-bpp) and every
// subsystem and interface solve of the substructured solvers use it, so a
// subsystem whose block pivoting wanders is mended inside that subsystem
// instead of by a solve of the whole system. See bpp_retry.c.
#ifndef TSR_BPP_RETRY_H
#define TSR_BPP_RETRY_H

#include <stdint.h>

#include "mlcp/mlcp.h"
#include "solvers/bpp.h"
#include "solvers/solver.h"

typedef struct TsrBppRetry TsrBppRetry;

TsrBppRetry *tsr_bpp_retry_create(void);
void tsr_bpp_retry_free(TsrBppRetry **r);
// tsr_bpp_solve (same arguments and returns; bpp is the caller's BPP
// workspace, so a factorisation it reuses stays valid), then, when it ran out
// of pivots, the restarts of bpp_retry.c. lambda in: the caller's warm start
// (the projected Newton restart starts there; it must be finite), out: the
// solution or the iterate with the lowest residual. The restarts' workspaces
// are allocated on the first failure only.
// Whether the solves that follow are of the class whose next solve starts
// with the first active-set attempt, not block pivoting, when the last one
// of that class was solved by that attempt (bpp_retry.c, SKIP_MIN_ROWS).
// On at creation; solves made with it off neither skip nor count.
void tsr_bpp_retry_set_skip(TsrBppRetry *r, int on);
int tsr_bpp_retry_solve(const TsrMlcp *p, const TsrSolverParams *params, double *lambda, int8_t *index_set,
                        TsrSolveStats *stats, TsrBpp *bpp, TsrBppRetry *r);

#endif
