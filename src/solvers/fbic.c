// SPDX-License-Identifier: MIT
// Force-based interface coupling, FBIC (Lacoursiere 2007; seed 000 §4.1).
// Block Gauss-Seidel between the two halves of Eq. 15, warm-started:
//
//   subsystems  A_i lambda_i + (b_i0 + G_i^T lambda_Gamma) = w_i,        (Eq. 16, parallel)
//   interface   A_Gamma lambda_Gamma + (b_Gamma + sum_i G_i lambda_i) = w_Gamma   (Eq. 17)
//
// each an MLCP solved by BPP (warm-started from its last index set). A_Gamma
// holds only the interface bodies' inverse mass, so the coupling is weak and
// stiff chains need many iterations (seed 000 Table 3). Stop when
// max |lambda_Gamma^k - lambda_Gamma^(k-1)| <= epsilon * ||lambda_Gamma^k||_inf
// and no subsystem's index set changed, or at k_max (250); converged also
// needs every BPP of the last iteration to have solved its MLCP (a BPP out of
// pivots returns its best iterate, whose set can repeat: the Siconos
// deltasigma MLCP, one subsystem, was reported solved at relative residual
// 0.51). The sum over subsystems is taken in subsystem order (same result
// for any thread count).
#include "solvers/fbic.h"
#include "solvers/stop.h"
#include "util/fnv.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct TsrFbic {
  TsrSubstructure ss;
};

TsrFbic *tsr_fbic_create(void) {
  TsrFbic *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  tsr_mlcp_init(&f->ss.iface);
  if (!(f->ss.ibpp = tsr_bpp_create())) {
    free(f);
    return NULL;
  }
  tsr_bpp_enable_reuse(f->ss.ibpp, 1);
  tsr_chol_blas_single_thread();
  return f;
}

void tsr_fbic_free(TsrFbic **pf) {
  TsrFbic *f = pf ? *pf : NULL;
  if (!f) return;
  tsr_substructure_free(&f->ss);
  free(f);
  *pf = NULL;
}

const TsrSchurTimes *tsr_fbic_times(const TsrFbic *f) { return &f->ss.times; }

// FNV-1a over the bits of every subsystem's impulses: whether an iteration
// left them exactly as they were.
static uint64_t sub_lambda_hash(const TsrSubstructure *ss) {
  uint64_t h = TSR_FNV_OFFSET;
  for (int i = 0; i < ss->n_sub; i++) h = tsr_fnv1a(h, ss->sub[i].lambda, (size_t)ss->sub[i].n * sizeof(double));
  return h;
}

static int fbic_solve(const TsrMlcp *p, const TsrPartition *part, const TsrSolverParams *params, double *lambda,
                      int8_t *index_set, TsrSolveStats *stats, void *solver) {
  TsrFbic *f = solver;
  TsrSubstructure *ss = &f->ss;
  double t0 = tsr_substructure_now();
  stats->converged = 0;
  if (tsr_substructure_setup(p, part, params, ss)) return -1;
  int ng = ss->ng, N = ss->n_sub;
  stats->subsystems = ss->n_reported;
  stats->interface_rows = ng;
  tsr_substructure_start(p, params, lambda, index_set, ss);
  // A_Gamma and b_Gamma, fixed for the step.
  if (tsr_substructure_interface(p, 0, ss)) return -1;
  double *bG = ss->lam_g_old;  // b_Gamma copy
  int kmax = params->max_coupling_iterations > 0 ? params->max_coupling_iterations : 250;
  double eps = params->tolerance > 0 ? params->tolerance : 1e-9;
  TsrSolverParams ip = *params;
  ip.warm_start = 1;
  tsr_bpp_invalidate(ss->ibpp);
  double t1 = tsr_substructure_now();
  ss->times.setup += t1 - t0;
  int k = 0, converged = 0, pivots = 0, factorizations = 0, unsolved = 0;  // unsolved: the last iteration's BPPs
  for (int g = 0; g < ng; g++) bG[g] = ss->iface.b[g];
  // lam_g_old is bG; the change is measured against a second buffer: reuse
  // the slack scratch w (size m >= ng).
  double *prev = ss->w;
  while (!converged && k < kmax && !tsr_stop_requested()) {
    k++;
    double ta = tsr_substructure_now();
    for (int i = 0; i < N; i++) memcpy(ss->sub[i].prev_set, ss->sub[i].set, (size_t)ss->sub[i].n);
    // (hashed only after a failed iteration: hashing every iteration cost
    // cable_spinner's fbic a quarter of its time)
    uint64_t lam_before = unsolved ? sub_lambda_hash(ss) : 0;
    if (tsr_substructure_solve_subsystems(params, ss)) return -1;
    double tb = tsr_substructure_now();
    int same = 1, solved = 1;
    for (int g = 0; g < ng; g++) ss->iface.b[g] = bG[g];
    for (int i = 0; i < N; i++) {
      TsrSchurSub *u = &ss->sub[i];
      solved &= u->rc == 0;
      pivots += u->st.iterations;
      factorizations += u->st.factorizations;
      if (same && memcmp(u->set, u->prev_set, (size_t)u->n)) same = 0;
      for (int c = 0; c < u->n; c++)
        for (int q = u->Gp[c]; q < u->Gp[c + 1]; q++) ss->iface.b[u->Gg[q]] += u->Gx[q] * u->lambda[c];
    }
    memcpy(prev, ss->lam_g, (size_t)ng * sizeof *prev);
    TsrSolveStats ist = {0};
    if (!ss->iretry && !(ss->iretry = tsr_bpp_retry_create())) return -1;
    int irc = ng > 0 ? tsr_bpp_retry_solve(&ss->iface, &ip, ss->lam_g, ss->set_g, &ist, ss->ibpp, ss->iretry) : 0;
    if (irc < 0) return -1;
    solved &= irc == 0;
    pivots += ist.iterations;
    factorizations += ist.factorizations;
    double dmax = 0.0, lmax = 0.0;
    for (int g = 0; g < ng; g++) {
      dmax = fmax(dmax, fabs(ss->lam_g[g] - prev[g]));
      lmax = fmax(lmax, fabs(ss->lam_g[g]));
    }
    double tc = tsr_substructure_now();
    ss->times.subsystems += tb - ta;
    ss->times.iface += tc - tb;
    if (solved && (ng == 0 || (k > 1 && same && dmax <= eps * lmax))) converged = 1;
    // A BPP failed, and the next iteration would start from exactly what this
    // one did (the same sets, lambda_Gamma and subsystem impulses, from which
    // the restarts' projected Newton starts): it would fail the same way.
    if (!converged && !solved && unsolved && same && dmax == 0.0 && sub_lambda_hash(ss) == lam_before) break;
    unsolved = !solved;
  }
  tsr_substructure_gather(ss, lambda, index_set);
  ss->times.solves++;
  stats->coupling_iterations = p->m ? k : 0;  // no rows: nothing was iterated
  stats->converged = converged;
  stats->iterations = pivots;
  stats->factorizations = factorizations;
  stats->residual = tsr_mlcp_residual_ws(p, lambda, ss->w, NULL);
  return converged ? 0 : 1;
}

// The coupling iterations on one team of threads (team.h): up to 250
// parallel loops a step, each of which would otherwise wait for its threads
// to wake.
int tsr_fbic_solve(const TsrMlcp *p, const TsrPartition *part, const TsrSolverParams *params, double *lambda,
                   int8_t *index_set, TsrSolveStats *stats, TsrFbic *f) {
  return tsr_substructure_on_team(fbic_solve, f, &f->ss, p, part, params, lambda, index_set, stats);
}
