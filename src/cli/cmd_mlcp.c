// SPDX-License-Identifier: MIT
// `tessera mlcp solve FILE [--solver S] [--format lcp|mlcp|relay]
//  [--max-pivots N] [--iterations N] [--solution]`: reads one problem in the
// Siconos numerics text format, solves it, prints the size, the solver, its
// status, iterations and the natural residual of seed 000 Eq. 29.
// Exit status: 0 solved, 1 the solver failed or did not converge, 2 bad usage
// or an unreadable file.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "linalg/chol.h"
#include "mlcp/mlcp.h"
#include "model/model.h"
#include "solvers/lemke.h"
#include "solvers/solver.h"

static const char mlcp_usage[] =
    "usage: tessera mlcp solve FILE [options]\n"
    "\n"
    "Solves one MLCP / LCP / box-LCP stored in the Siconos numerics text format.\n"
    "\n"
    "options:\n"
    "  --solver S          direct-bpp (default), pgs, pgs-sm; schur-bpp, schur-pgs-sm\n"
    "                      and fbic accepted too, with the whole problem as one\n"
    "                      subsystem (a file holds no partition); lemke (Lemke's\n"
    "                      complementary pivoting, dense: LCPs, and MLCPs whose free\n"
    "                      rows' block is invertible; no box bounds; at most 5000 rows)\n"
    "  --format F          lcp, mlcp or relay (default: from the path)\n"
    "  --max-pivots N      BPP pivot cap (default 50); lemke's (default 1000 + 50 n)\n"
    "  --iterations N      PGS sweep cap (default 1000)\n"
    "  --solution          print lambda and w, one row per line\n";

// --max-pivots and --iterations: 1 .. TSR_MAX_PIVOTS, as a model's max_pivots.
static int parse_int(const char *opt, const char *s, int *v) {
  long x;
  if (tsr_cli_parse_long("mlcp", opt, s, 1, TSR_MAX_PIVOTS, &x)) return -1;
  *v = (int)x;
  return 0;
}

int tsr_cmd_mlcp(int argc, char **argv) {
  if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    fputs(mlcp_usage, stdout);
    return 0;
  }
  if (argc < 2 || strcmp(argv[1], "solve")) {
    tsr_cli_error("mlcp: expected 'solve' (see 'tessera mlcp --help')");
    return 2;
  }
  const char *path = NULL, *solver_name = "direct-bpp";
  int kind = TSR_SICONOS_AUTO, max_pivots = 0, iterations = 0, print_solution = 0;
  for (int a = 2; a < argc; a++) {
    TsrCliArg arg;
    tsr_cli_arg("mlcp", argv[a], &arg);
    const char *o = arg.name;
    int help = tsr_cli_flag(&arg, "--help", "-h"), sol = help ? 0 : tsr_cli_flag(&arg, "--solution", NULL);
    if (help < 0 || sol < 0) return 2;
    if (help) {
      fputs(mlcp_usage, stdout);
      return 0;
    } else if (sol) {
      print_solution = 1;
    } else if (!strcmp(o, "--solver") || !strcmp(o, "--format") || !strcmp(o, "--max-pivots") ||
               !strcmp(o, "--iterations")) {
      const char *v = tsr_cli_value(&arg, argc, argv, &a);
      if (!v) return 2;
      if (!strcmp(o, "--solver")) {
        solver_name = v;
      } else if (!strcmp(o, "--format")) {
        if (!strcmp(v, "lcp"))
          kind = TSR_SICONOS_LCP;
        else if (!strcmp(v, "mlcp"))
          kind = TSR_SICONOS_MLCP;
        else if (!strcmp(v, "relay"))
          kind = TSR_SICONOS_RELAY;
        else {
          tsr_cli_error("mlcp: unknown format '%s' (expected lcp, mlcp or relay)", v);
          return 2;
        }
      } else if (parse_int(o, v, !strcmp(o, "--max-pivots") ? &max_pivots : &iterations)) {
        return 2;
      }
    } else if (o[0] == '-' && o[1]) {
      tsr_cli_error("mlcp: unknown option '%s' (see 'tessera mlcp --help')", arg.arg);
      return 2;
    } else if (path) {
      tsr_cli_error("mlcp: more than one FILE given ('%s', '%s')", path, arg.arg);
      return 2;
    } else {
      path = arg.arg;
    }
  }
  if (!path) {
    tsr_cli_error("mlcp solve: missing FILE");
    return 2;
  }
  // lemke is a solver of this command only (not of model files: model.h).
  int type_id = !strcmp(solver_name, "lemke") ? (int)TSR_SOLVER_LEMKE : tsr_solver_type_from_name(solver_name);
  if (type_id < 0) {
    tsr_cli_error("mlcp: unknown solver '%s' (direct-bpp, pgs, pgs-sm, schur-bpp, schur-pgs-sm, fbic, lemke)",
                  solver_name);
    return 2;
  }
  TsrSolverType type = (TsrSolverType)type_id;

  TsrMlcp p;
  tsr_mlcp_init(&p);
  char err[512];
  if (tsr_mlcp_read_siconos_as(path, kind, &p, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    tsr_mlcp_free(&p);
    return 2;
  }
  if (err[0]) fprintf(stderr, "%s\n", err);  // a warning (mlcp.h)
  // PGS-SM's sweeps read row i of A as column i (solvers/pgs_sm.c).
  if (type == TSR_SOLVER_PGS_SM && !p.symmetric) {
    tsr_cli_error("mlcp: pgs-sm needs a symmetric matrix, and %s's is not (use direct-bpp or pgs)", path);
    tsr_mlcp_free(&p);
    return 2;
  }
  // Lemke's bounds and size, refused before solving as pgs-sm's asymmetry is
  // (its singular free block can only be found by factorising: a failure).
  if (type == TSR_SOLVER_LEMKE && tsr_lemke_check(&p, err, sizeof err)) {
    tsr_cli_error("mlcp: %s: %s", path, err);
    tsr_mlcp_free(&p);
    return 2;
  }
  TsrSolverParams params;
  tsr_solver_default_params(type, &params);
  params.warm_start = 0;
  if (max_pivots) params.max_pivots = max_pivots;
  if (iterations) params.iterations = iterations;
  if (tsr_chol_flops_limit_from_env(err, (int)sizeof err)) {  // as `run` reads it
    tsr_cli_error("mlcp: %s", err);
    tsr_mlcp_free(&p);
    return 2;
  }
  TsrSolver *solver = tsr_solver_create(&params, err, (int)sizeof err);
  if (!solver) {
    tsr_cli_error("mlcp: %s", err);
    tsr_mlcp_free(&p);
    return 2;
  }
  int m = p.m;
  double *lambda = calloc((size_t)(m > 0 ? m : 1), sizeof *lambda);
  double *w = calloc((size_t)(m > 0 ? m : 1), sizeof *w);
  int8_t *index_set = calloc((size_t)(m > 0 ? m : 1), 1);
  int rc_exit = 1;
  if (!lambda || !w || !index_set) {
    tsr_cli_error("mlcp: out of memory");
    goto done;
  }
  TsrSolveStats stats;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = tsr_solver_solve(solver, &p, NULL, lambda, index_set, &stats);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double res = tsr_mlcp_residual_ws(&p, lambda, w, NULL), b2 = 0.0;
  for (int i = 0; i < m; i++) b2 += p.b[i] * p.b[i];
  double rel = res / fmax(1.0, sqrt(b2));
  int nbil = 0, nuni = 0, nbox = 0;
  for (int i = 0; i < m; i++) {
    int fl = isfinite(p.lo[i]), fh = isfinite(p.hi[i]);
    if (!fl && !fh)
      nbil++;
    else if (fl && fh)
      nbox++;
    else
      nuni++;
  }
  printf("problem: %s\n", path);
  printf("size: %d rows (%d bilateral, %d one-sided, %d boxed), nnz %d, %s\n", m, nbil, nuni, nbox, m ? p.Ap[m] : 0,
         p.symmetric ? "symmetric" : "nonsymmetric");
  printf("solver: %s\n", solver_name);
  printf("status: %s (%d)\n", rc == 0 ? "solved" : rc > 0 ? "not converged" : "failed", rc);
  if (rc < 0 && !p.symmetric && m > TSR_CHOL_LU_MAX)
    tsr_cli_error(
        "mlcp: the matrix is not symmetric, so its free blocks are factorised by dense LU, which is "
        "refused above %d rows (%.1f GB); pgs needs no factorisation",
        TSR_CHOL_LU_MAX, (double)TSR_CHOL_LU_MAX * TSR_CHOL_LU_MAX * 8 / 1e9);
  if (rc == TSR_SOLVER_REFUSED) {
    char cost[160];
    tsr_chol_refusal_text(cost, sizeof cost, -1);
    tsr_cli_error("mlcp: %s; pgs needs no factorisation, and TSR_FACTOR_FLOPS=1e300 lifts the limit", cost);
  }
  const char *note = tsr_solver_note(solver);
  if (rc != 0 && note) tsr_cli_error("mlcp: %s: %s", solver_name, note);
  printf("iterations: %d\n", stats.iterations);
  printf("factorizations: %d\n", stats.factorizations);
  printf("time: %.3f ms\n", (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6);
  printf("residual: %.3e\n", res);
  printf("relative residual: %.3e\n", rel);
  if (print_solution) {
    printf("# row lambda w state\n");
    for (int i = 0; i < m; i++)
      printf("%d %.17g %.17g %s\n", i, lambda[i], w[i],
             index_set[i] == TSR_INDEX_FREE    ? "free"
             : index_set[i] == TSR_INDEX_LOWER ? "lower"
                                               : "upper");
  }
  rc_exit = rc == 0 ? 0 : 1;
done:
  free(lambda);
  free(w);
  free(index_set);
  tsr_solver_free(&solver);
  tsr_mlcp_free(&p);
  return rc_exit;
}
