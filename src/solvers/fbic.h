// SPDX-License-Identifier: MIT
// Force-based interface coupling (Lacoursiere 2007; seed 000 §2, §4.1): block
// iterations between the subsystem MLCPs (Eq. 16) and an interface MLCP built
// from A_Gamma alone (Eq. 17). See fbic.c.
#ifndef TSR_FBIC_H
#define TSR_FBIC_H

#include <stdint.h>

#include "mlcp/mlcp.h"
#include "partition/partition.h"
#include "solvers/schur.h"
#include "solvers/solver.h"

typedef struct TsrFbic TsrFbic;

TsrFbic *tsr_fbic_create(void);
void tsr_fbic_free(TsrFbic **f);
// lambda in/out (warm start of lambda_Gamma when params->warm_start);
// index_set in/out (warm start of every BPP). Uses max_coupling_iterations
// (250) and tolerance (epsilon: relative change of lambda_Gamma). Returns 0
// converged, 1 at k_max, < 0 failure.
int tsr_fbic_solve(const TsrMlcp *p, const TsrPartition *part, const TsrSolverParams *params, double *lambda,
                   int8_t *index_set, TsrSolveStats *stats, TsrFbic *f);
const TsrSchurTimes *tsr_fbic_times(const TsrFbic *f);

#endif
