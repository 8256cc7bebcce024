// SPDX-License-Identifier: MIT
// tsr_chol_schur (linalg/chol.h): S = G_F A_FF^-1 G_F^T from a factorisation
// of a principal submatrix A_FF of a random sparse SPD matrix, compared with
// the same product formed densely by LAPACK (dpotrf / dpotrs on the gathered
// A_FF). It is an identity, so the only difference is rounding: relative to
// max|S|, below 1e-10 for condition numbers ~1e4. Checked on every path:
// LDL (up-looking, the substructured solvers' subsystems) with the plain AMD
// order and with the coupled rows ordered last (tsr_chol_order_last, CAMD),
// CHOLMOD, and dense (|F| <= TSR_CHOL_DENSE_MAX). With the rows ordered last,
// the LDL path forms only a trailing block of Z = D^-1/2 L^-1 P G^T, so a
// wrong start row would show here as a wrong S.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linalg/chol.h"
#include "test_util.h"
#include "tsr_test.h"

extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
extern void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda, double *b,
                    const int *ldb, int *info);

typedef struct {
  int m, *Ap, *Ai;
  double *Ax, *dense;  // CSC (both triangles, rows sorted) and column-major copy
} Sparse;

// A = B B^T + I/10 with B sparse (each column of B touches a few nearby rows
// and one random one, as a chain with a few contacts).
static void random_sparse_spd(Rng *r, int m, Sparse *s) {
  s->m = m;
  s->dense = calloc((size_t)m * m, sizeof *s->dense);
  int nb = m;
  for (int k = 0; k < nb; k++) {
    int idx[4] = {k, (k + 1) % m, (k + 2) % m, rng_int(r, m)};
    double val[4];
    for (int a = 0; a < 4; a++) val[a] = rng_range(r, -1.0, 1.0);
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++) s->dense[(size_t)idx[b] * m + idx[a]] += val[a] * val[b];
  }
  for (int i = 0; i < m; i++) s->dense[(size_t)i * m + i] += 0.1;
  int nnz = 0;
  for (size_t q = 0; q < (size_t)m * m; q++) nnz += s->dense[q] != 0.0;
  s->Ap = malloc((size_t)(m + 1) * sizeof *s->Ap);
  s->Ai = malloc((size_t)nnz * sizeof *s->Ai);
  s->Ax = malloc((size_t)nnz * sizeof *s->Ax);
  int z = 0;
  for (int j = 0; j < m; j++) {
    s->Ap[j] = z;
    for (int i = 0; i < m; i++)
      if (s->dense[(size_t)j * m + i] != 0.0) s->Ai[z] = i, s->Ax[z++] = s->dense[(size_t)j * m + i];
  }
  s->Ap[m] = z;
}

// One case: F (nf rows), G^T (nf x ng, column-major over F) touching only
// the rows flagged in `coupled`; path forced by TSR_CHOL_SPARSE (or NULL).
static double schur_error(const Sparse *s, const int *F, int nf, const double *Gt, int ng, const int8_t *coupled,
                          const char *path, int *method) {
  int m = s->m;
  if (path) setenv("TSR_CHOL_SPARSE", path, 1);
  TsrChol *c = tsr_chol_create();
  unsetenv("TSR_CHOL_SPARSE");
  ENSURE(c != NULL);
  ENSURE(tsr_chol_set_matrix(m, s->Ap, s->Ai, s->Ax, 1, c) == 0);
  ENSURE(tsr_chol_order_last(m, coupled, c) == 0);
  ENSURE(tsr_chol_factor(F, nf, c) == 0);
  *method = tsr_chol_method(c);
  double *Z = malloc((size_t)nf * ng * sizeof *Z), *S = malloc((size_t)ng * ng * sizeof *S);
  memcpy(Z, Gt, (size_t)nf * ng * sizeof *Z);
  ENSURE(tsr_chol_schur(Z, ng, S, c) == 0);
  // Reference: dense A_FF, K = A_FF^-1 G^T, S = G K.
  double *D = malloc((size_t)nf * nf * sizeof *D), *K = malloc((size_t)nf * ng * sizeof *K);
  for (int b = 0; b < nf; b++)
    for (int a = 0; a < nf; a++) D[(size_t)b * nf + a] = s->dense[(size_t)F[b] * m + F[a]];
  memcpy(K, Gt, (size_t)nf * ng * sizeof *K);
  int info = 0;
  dpotrf_("L", &nf, D, &nf, &info);
  ENSURE(info == 0);
  dpotrs_("L", &nf, &ng, D, &nf, K, &nf, &info);
  ENSURE(info == 0);
  double err = 0.0, smax = 0.0;
  for (int b = 0; b < ng; b++)
    for (int a = 0; a < ng; a++) {
      double v = 0.0;
      for (int k = 0; k < nf; k++) v += Gt[(size_t)a * nf + k] * K[(size_t)b * nf + k];
      err = fmax(err, fabs(v - S[(size_t)b * ng + a]));
      smax = fmax(smax, fabs(v));
    }
  tsr_chol_free(&c);
  free(Z), free(S), free(D), free(K);
  return err / fmax(smax, 1e-300);
}

static void test_schur_paths(void) {
  static const int sizes[] = {30, 120, 400};
  int cases = 0;
  for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
    for (int seed = 0; seed < 3; seed++) {
      int m = sizes[si], ng = 6;
      Rng r = {1234567ULL * (uint64_t)m + (uint64_t)seed};
      Sparse s;
      random_sparse_spd(&r, m, &s);
      // F: about 80% of the rows; coupled rows: 8 random rows of F.
      int *F = malloc((size_t)m * sizeof *F), nf = 0;
      int8_t *coupled = calloc((size_t)m, 1);
      for (int i = 0; i < m; i++)
        if (rng_uniform(&r) < 0.8) F[nf++] = i;
      for (int k = 0; k < 8; k++) coupled[F[rng_int(&r, nf)]] = 1;
      double *Gt = calloc((size_t)nf * ng, sizeof *Gt);
      for (int a = 0; a < ng; a++)
        for (int k = 0; k < nf; k++)
          if (coupled[F[k]] && rng_uniform(&r) < 0.6) Gt[(size_t)a * nf + k] = rng_range(&r, -1.0, 1.0);
      const char *paths[] = {"ldl", "ldl", "cholmod", NULL};
      for (int pth = 0; pth < 4; pth++) {
        int method = 0;
        double e = schur_error(&s, F, nf, Gt, ng, pth == 1 ? coupled : NULL, paths[pth], &method);
        fprintf(stderr, "  m=%d nf=%d seed=%d path %s%s (method %d): relative error %.2e\n", m, nf, seed,
                paths[pth] ? paths[pth] : "auto", pth == 1 ? " + coupled rows last" : "", method, e);
        ENSURE_MSG(e < 1e-10, "m=%d seed=%d path %d: %.3e", m, seed, pth, e);
        if (nf > TSR_CHOL_DENSE_MAX && pth <= 1) ENSURE(method == TSR_CHOL_SPARSE_LDL);
        cases++;
      }
      free(F), free(coupled), free(Gt);
      free(s.Ap), free(s.Ai), free(s.Ax), free(s.dense);
    }
  fprintf(stderr, "  %d cases\n", cases);
}

int main(void) {
  RUN_TEST(test_schur_paths);
  return TSR_TEST_RESULT();
}
