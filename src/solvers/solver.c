// SPDX-License-Identifier: MIT
// The solver interface (solver.h): defaults of seed 000 Table 1, creation of
// the implemented solvers, dispatch. Each solver instance owns its workspace
// and its CHOLMOD context, reused from step to step.
#include "solvers/solver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/bpp.h"
#include "solvers/fbic.h"
#include "solvers/pgs.h"
#include "solvers/pgs_sm.h"
#include "solvers/schur.h"

struct TsrSolver {
  TsrSolverParams params;
  TsrBpp *bpp;
  TsrPgs *pgs;
  TsrPgsSm *pgs_sm;
  TsrSchur *schur;
  TsrFbic *fbic;
};

// Names as in the model files (kept here so that this module does not depend
// on the model loader).
static const char *type_name(TsrSolverType t) {
  switch (t) {
  case TSR_SOLVER_DIRECT_BPP: return "direct-bpp";
  case TSR_SOLVER_PGS: return "pgs";
  case TSR_SOLVER_PGS_SM: return "pgs-sm";
  case TSR_SOLVER_SCHUR_BPP: return "schur-bpp";
  case TSR_SOLVER_SCHUR_PGS_SM: return "schur-pgs-sm";
  case TSR_SOLVER_FBIC: return "fbic";
  default: return "unknown";
  }
}

void tsr_solver_default_params(TsrSolverType type, TsrSolverParams *params) {
  memset(params, 0, sizeof *params);
  params->type = type;
  params->max_pivots = 50;         // kappa_iter, Table 1 (BPP, Schur-*, FBIC)
  params->index_tolerance = 1e-5;  // eta
  params->iterations = 1000;       // PGS sweeps
  params->tolerance = 1e-9;        // epsilon
  params->warm_start = 1;
  params->max_coupling_iterations = type == TSR_SOLVER_FBIC ? 250 : 10;  // k_max
  params->threads = 0;
  params->pivot_tolerance = 1e-10;
  if (type == TSR_SOLVER_PGS) params->max_pivots = 0;
}

TsrSolver *tsr_solver_create(const TsrSolverParams *params, char *err, int errlen) {
  if (params->type < 0 || params->type >= TSR_SOLVER_COUNT) {
    if (err && errlen > 0)
      snprintf(err, (size_t)errlen, "solver '%s' is not available in this build yet", type_name(params->type));
    return NULL;
  }
  TsrSolver *s = calloc(1, sizeof *s);
  if (!s) goto oom;
  s->params = *params;
  if (params->type == TSR_SOLVER_DIRECT_BPP && !(s->bpp = tsr_bpp_create())) goto oom;
  if (params->type == TSR_SOLVER_PGS && !(s->pgs = tsr_pgs_create())) goto oom;
  if (params->type == TSR_SOLVER_PGS_SM && !(s->pgs_sm = tsr_pgs_sm_create())) goto oom;
  if (params->type == TSR_SOLVER_SCHUR_BPP && !(s->schur = tsr_schur_create(TSR_SCHUR_IFACE_BPP))) goto oom;
  if (params->type == TSR_SOLVER_SCHUR_PGS_SM && !(s->schur = tsr_schur_create(TSR_SCHUR_IFACE_PGS_SM))) goto oom;
  if (params->type == TSR_SOLVER_FBIC && !(s->fbic = tsr_fbic_create())) goto oom;
  return s;
oom:
  tsr_solver_free(&s);
  if (err && errlen > 0) snprintf(err, (size_t)errlen, "out of memory creating solver '%s'", type_name(params->type));
  return NULL;
}

int tsr_solver_solve(TsrSolver *s, const TsrMlcp *p, const TsrPartition *part, double *lambda, int8_t *index_set,
                     TsrSolveStats *stats) {
  memset(stats, 0, sizeof *stats);
  stats->subsystems = 1;
  switch (s->params.type) {
  case TSR_SOLVER_DIRECT_BPP:
    return tsr_bpp_solve(p, &s->params, lambda, index_set, stats, s->bpp);
  case TSR_SOLVER_PGS: {
    int rc = tsr_pgs_solve(p, &s->params, lambda, stats, s->pgs);
    if (index_set) tsr_mlcp_index_set(p, lambda, s->params.index_tolerance, index_set);
    return rc;
  }
  case TSR_SOLVER_PGS_SM:
    return tsr_pgs_sm_solve(p, &s->params, lambda, index_set, stats, s->pgs_sm);
  case TSR_SOLVER_SCHUR_BPP:
  case TSR_SOLVER_SCHUR_PGS_SM:
    return tsr_schur_solve(p, part, &s->params, lambda, index_set, stats, s->schur);
  case TSR_SOLVER_FBIC:
    return tsr_fbic_solve(p, part, &s->params, lambda, index_set, stats, s->fbic);
  default:
    return -1;
  }
}

void tsr_solver_free(TsrSolver **ps) {
  TsrSolver *s = ps ? *ps : NULL;
  if (!s) return;
  tsr_bpp_free(&s->bpp);
  tsr_pgs_free(&s->pgs);
  tsr_pgs_sm_free(&s->pgs_sm);
  tsr_schur_free(&s->schur);
  tsr_fbic_free(&s->fbic);
  free(s);
  *ps = NULL;
}

int tsr_solver_phase_seconds(const TsrSolver *s, double *setup, double *schur, double *iface, double *subsystems) {
  const TsrSchurTimes *t = s->schur ? tsr_schur_times(s->schur) : s->fbic ? tsr_fbic_times(s->fbic) : NULL;
  if (!t) return -1;
  *setup = t->setup, *schur = t->schur, *iface = t->iface, *subsystems = t->subsystems;
  return 0;
}
