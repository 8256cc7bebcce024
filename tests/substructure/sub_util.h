// SPDX-License-Identifier: MIT
// Helpers of the substructuring tests: random multibody-like MLCPs built from
// random Jacobians and body masses (A = J M^-1 J^T + C through
// tsr_mlcp_assemble), a stand-in model for the partitioner, and the
// partition invariants.
#ifndef TSR_SUB_UTIL_H
#define TSR_SUB_UTIL_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mlcp/mlcp.h"
#include "model/model.h"
#include "partition/partition.h"
#include "solvers/test_util.h"

// n bodies (n_fixed of them fixed, the first ones), rows: a chain through all
// bodies (rows_per_joint rows per link) plus `extra` random pairs and some
// rows to the world. Compliance in [cmin, cmax].
static inline void random_rows(Rng *r, int n, int n_fixed, int rows_per_joint, int extra, double cmin, double cmax,
                               TsrRowSet *rows) {
  tsr_rowset_clear(rows);
  for (int k = 0; k + 1 < n + extra; k++) {
    int a, b;
    if (k + 1 < n)
      a = k, b = k + 1;
    else
      a = rng_int(r, n), b = rng_int(r, n);
    if (a == b) b = -1;  // a row to the world
    for (int q = 0; q < rows_per_joint; q++) {
      TsrRow *row = tsr_rowset_push(rows);
      row->body[0] = a, row->body[1] = b;
      for (int s = 0; s < 2; s++)
        for (int c = 0; c < 6; c++) row->J[s][c] = rng_normal(r);
      row->compliance = exp(rng_range(r, log(cmin), log(cmax)));
      row->lo = -INFINITY, row->hi = INFINITY;
    }
  }
  (void)n_fixed;
}

// Assembles A from rows; fixed bodies (k < n_fixed) get zero inverse mass.
static inline void random_assemble(Rng *r, int n, int n_fixed, const TsrRowSet *rows, TsrMlcp *p) {
  double *im = calloc((size_t)n, sizeof *im), *ii = calloc((size_t)9 * n, sizeof *ii),
         *v = calloc((size_t)6 * n, sizeof *v);
  for (int k = n_fixed; k < n; k++) {
    im[k] = 1.0 / exp(rng_range(r, log(0.1), log(10.0)));
    for (int a = 0; a < 3; a++) ii[9 * k + 4 * a] = 1.0 / exp(rng_range(r, log(0.01), log(1.0)));
  }
  tsr_mlcp_assemble(rows, n, im, ii, v, p);
  free(im), free(ii), free(v);
}

// A model with n bodies (the first n_fixed fixed) and groups "g/<k / every>"
// for bodies with (k % 7) != 3 (others ungrouped), enough for the partitioner.
static inline void fake_model(int n, int n_fixed, int every, TsrModel *m) {
  memset(m, 0, sizeof *m);
  m->n_bodies = n;
  m->bodies = calloc((size_t)n, sizeof *m->bodies);
  for (int k = 0; k < n; k++) {
    m->bodies[k].fixed = k < n_fixed;
    if (every > 0 && k % 7 != 3) {
      m->bodies[k].group = malloc(32);
      snprintf(m->bodies[k].group, 32, "g/%d", k / every);
    }
  }
}

static inline void fake_model_free(TsrModel *m) {
  for (int k = 0; k < m->n_bodies; k++) free(m->bodies[k].group);
  free(m->bodies);
  memset(m, 0, sizeof *m);
}

// Partition invariants; returns the number of violations (printed).
static inline int partition_violations(const TsrModel *m, const TsrRowSet *rows, const TsrPartition *p, int max_bodies,
                                       int check_max, const char *what) {
  int bad = 0, n = m->n_bodies, N = p->n_subsystems;
  int *size = calloc((size_t)(N + 1), sizeof *size);
  if (p->n_bodies != n) fprintf(stderr, "  %s: n_bodies %d != %d\n", what, p->n_bodies, n), bad++;
  for (int k = 0; k < n; k++) {
    int s = p->body_subsystem[k];
    if (m->bodies[k].fixed) {
      if (s != -1) fprintf(stderr, "  %s: fixed body %d in subsystem %d\n", what, k, s), bad++;
    } else if (s < 0 || s >= N) {
      fprintf(stderr, "  %s: moving body %d in subsystem %d (N = %d)\n", what, k, s, N), bad++;
    } else {
      size[s]++;
    }
  }
  for (int s = 0; s < N; s++)
    if (size[s] == 0) fprintf(stderr, "  %s: subsystem %d is empty\n", what, s), bad++;
  int n_iface = 0;
  if (p->n_rows != rows->count) fprintf(stderr, "  %s: n_rows %d != %d\n", what, p->n_rows, rows->count), bad++;
  for (int i = 0; i < rows->count && i < p->n_rows; i++) {
    const TsrRow *r = &rows->rows[i];
    int s0 = r->body[0] >= 0 ? p->body_subsystem[r->body[0]] : -1;
    int s1 = r->body[1] >= 0 ? p->body_subsystem[r->body[1]] : -1;
    int cross = s0 >= 0 && s1 >= 0 && s0 != s1;
    int expect = cross ? -1 : (s0 >= 0 ? s0 : s1);
    if (p->row_subsystem[i] != expect)
      fprintf(stderr, "  %s: row %d in %d, expected %d\n", what, i, p->row_subsystem[i], expect), bad++;
    n_iface += p->row_subsystem[i] < 0;
  }
  if (n_iface != p->n_interface_rows)
    fprintf(stderr, "  %s: n_interface_rows %d, counted %d\n", what, p->n_interface_rows, n_iface), bad++;
  if (check_max) {
    // mindp: at most max_bodies, except for orphans, which had no neighbour
    // left in G0 when they joined: every neighbour of an orphan lies in its
    // subsystem or in one formed before it (lower index).
    int *inside = calloc((size_t)(N + 1), sizeof *inside);
    for (int k = 0; k < n; k++) {
      int s = p->body_subsystem[k];
      if (s < 0) continue;
      int all_in = 1, any = 0;
      for (int i = 0; i < rows->count; i++) {
        const TsrRow *r = &rows->rows[i];
        int o = r->body[0] == k ? r->body[1] : r->body[1] == k ? r->body[0] : -2;
        if (o < 0 || o == k || m->bodies[o].fixed) continue;
        any = 1;
        if (p->body_subsystem[o] > s) all_in = 0;
      }
      inside[s] += all_in && any;
    }
    for (int s = 0; s < N; s++)
      if (size[s] > max_bodies && size[s] - inside[s] > max_bodies)
        fprintf(stderr, "  %s: subsystem %d has %d bodies > %d\n", what, s, size[s], max_bodies), bad++;
    free(inside);
  }
  free(size);
  return bad;
}

#endif
