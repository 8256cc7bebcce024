// SPDX-License-Identifier: MIT
// A factorisation called by one thread runs in that thread: CHOLMOD 5.12
// clears its Map array (matrices of more than 128 rows) in an OpenMP team of
// a compiled-in 4 threads, which made direct-bpp with --threads 1 use four
// (linalg/chol.c, serial_cholmod_begin). Here a 400-row SPD matrix dense
// enough for CHOLMOD's supernodal path is factorised and solved from serial
// code and from a one-thread parallel region (how the substructured solvers
// run with --threads 1); the process must still have one thread
// (/proc/self/task), the OpenBLAS workers stopped at tsr_chol_create.
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linalg/chol.h"
#include "test_util.h"
#include "tsr_test.h"

static int threads_now(void) {
  DIR *d = opendir("/proc/self/task");
  if (!d) return -1;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

static void test_cholmod_one_thread(void) {
  if (threads_now() < 0) TSR_SKIP("no /proc/self/task to count this process's threads");
  int m = 400;
  Rng r = {7};
  // Banded SPD matrix, half-bandwidth 60: supernodal work for CHOLMOD.
  int *Ap = malloc((size_t)(m + 1) * sizeof *Ap), *Ai = malloc((size_t)m * 121 * sizeof *Ai);
  double *Ax = malloc((size_t)m * 121 * sizeof *Ax);
  int z = 0;
  for (int j = 0; j < m; j++) {
    Ap[j] = z;
    for (int i = j - 60 < 0 ? 0 : j - 60; i <= (j + 60 < m ? j + 60 : m - 1); i++) {
      Ai[z] = i;
      Ax[z++] = i == j ? 130.0 : 1.0 / (1.0 + abs(i - j));
    }
  }
  Ap[m] = z;
  setenv("TSR_CHOL_SPARSE", "cholmod", 1);
  TsrChol *c = tsr_chol_create();
  unsetenv("TSR_CHOL_SPARSE");
  ENSURE(c != NULL);
  ENSURE(tsr_chol_set_matrix(m, Ap, Ai, Ax, 1, c) == 0);
  int *F = malloc((size_t)m * sizeof *F), nf = 0;
  for (int i = 0; i < m; i++)
    if (i % 7) F[nf++] = i;
  double *b = malloc((size_t)m * sizeof *b), *x = malloc((size_t)m * sizeof *x);
  for (int k = 0; k < nf; k++) b[k] = rng_range(&r, -1, 1);
  int before = threads_now();
  ENSURE(tsr_chol_factor(F, nf, c) == 0);
  ENSURE(tsr_chol_method(c) == TSR_CHOL_SPARSE);
  ENSURE(tsr_chol_solve(b, x, c) == 0);
  int serial = threads_now();
  int in_region = 0;
#pragma omp parallel num_threads(1)
  {
    ENSURE(tsr_chol_factor(F, nf - 1, c) == 0);
    ENSURE(tsr_chol_solve(b, x, c) == 0);
    in_region = threads_now();
  }
  printf("threads: %d after tsr_chol_create, %d after a serial factorisation, %d inside a one-thread region\n", before,
         serial, in_region);
  ENSURE(before == 1);
  ENSURE(serial == 1);
  ENSURE(in_region == 1);
  tsr_chol_free(&c);
  free(Ap), free(Ai), free(Ax), free(F), free(b), free(x);
}

int main(void) {
  RUN_TEST(test_cholmod_one_thread);
  return TSR_TEST_RESULT();
}
