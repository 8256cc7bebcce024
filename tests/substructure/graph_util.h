// SPDX-License-Identifier: MIT
// Constraint graphs for the partitioner tests: chains, grids, random contact
// graphs, islands and cliques, as row sets over a stand-in model with masses
// and fixed bodies. Rows carry only their two bodies (the partitioner reads
// nothing else); k rows between two bodies make an edge of weight k.
#ifndef TSR_GRAPH_UTIL_H
#define TSR_GRAPH_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlcp/mlcp.h"
#include "model/model.h"
#include "partition/partition.h"
#include "solvers/test_util.h"

static const TsrPartitionMethod AUTO_METHODS[] = {TSR_PARTITION_MINDP,      TSR_PARTITION_MAXDP, TSR_PARTITION_BFS,
                                                  TSR_PARTITION_MASS_RATIO, TSR_PARTITION_MIX,   TSR_PARTITION_METIS};
#define N_AUTO_METHODS ((int)(sizeof AUTO_METHODS / sizeof AUTO_METHODS[0]))

static inline void add_rows(TsrRowSet *rows, int a, int b, int k) {
  for (int q = 0; q < k; q++) {
    TsrRow *row = tsr_rowset_push(rows);
    row->body[0] = a, row->body[1] = b;
  }
}

// A model of n bodies, none fixed, masses 1; settings zeroed (defaults).
static inline void graph_model(int n, TsrModel *m) {
  memset(m, 0, sizeof *m);
  m->n_bodies = n;
  m->bodies = calloc((size_t)(n > 0 ? n : 1), sizeof *m->bodies);
  for (int k = 0; k < n; k++) m->bodies[k].mass = 1.0;
}

static inline void graph_model_free(TsrModel *m) {
  free(m->bodies);
  memset(m, 0, sizeof *m);
}

// Random masses: log-uniform in [1, 1000] or, with `classes`, one of 10,
// 100, 1000 kg (seed 003's Large Rock Pile). Fixed bodies get mass 0.
static inline void random_masses(Rng *r, TsrModel *m, int classes) {
  for (int k = 0; k < m->n_bodies; k++)
    m->bodies[k].mass = m->bodies[k].fixed ? 0.0
                        : classes          ? pow(10.0, 1 + rng_int(r, 3))
                                           : exp(rng_range(r, 0, log(1000)));
}

// Path 0-1-...-(n-1), k rows per link.
static inline void g_chain(int n, int k, TsrRowSet *rows) {
  for (int i = 0; i + 1 < n; i++) add_rows(rows, i, i + 1, k);
}

// w x h grid, 1-3 rows per edge, and a row to the world for the first line.
static inline void g_grid(Rng *r, int w, int h, TsrRowSet *rows) {
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int i = y * w + x;
      if (x + 1 < w) add_rows(rows, i, i + 1, 1 + rng_int(r, 3));
      if (y + 1 < h) add_rows(rows, i, i + w, 1 + rng_int(r, 3));
      if (y == 0) add_rows(rows, i, -1, 1);
    }
}

// A pile: n bodies at random points of a square; 3 rows (normal, two
// friction) per contact point, 1-4 points per pair closer than `reach`, and
// contacts with the ground (body -1) for the low ones.
static inline void g_contacts(Rng *r, int n, double reach, TsrRowSet *rows) {
  double *x = malloc((size_t)(2 * n + 1) * sizeof *x);
  for (int i = 0; i < 2 * n; i++) x[i] = rng_uniform(r);
  for (int i = 0; i < n; i++) {
    for (int j = i + 1; j < n; j++) {
      double dx = x[2 * i] - x[2 * j], dy = x[2 * i + 1] - x[2 * j + 1];
      if (dx * dx + dy * dy < reach * reach) add_rows(rows, i, j, 3 * (1 + rng_int(r, 4)));
    }
    if (x[2 * i + 1] < 0.2) add_rows(rows, -1, i, 3);
  }
  free(x);
}

// Islands: components of 1-7 bodies (chains or cliques), no rows between.
static inline void g_islands(Rng *r, int n, TsrRowSet *rows) {
  for (int i = 0; i < n;) {
    int size = 1 + rng_int(r, 7), clique = rng_int(r, 2);
    if (i + size > n) size = n - i;
    for (int a = 0; a < size; a++)
      for (int b = a + 1; b < size; b++)
        if (clique || b == a + 1) add_rows(rows, i + a, i + b, 1 + rng_int(r, 3));
    i += size;
  }
}

// Relabels the bodies by a random permutation (perm[old] = new); perm may be NULL.
static inline void shuffle_bodies(Rng *r, int n, TsrRowSet *rows, int *perm) {
  int *p = perm ? perm : malloc((size_t)(n > 0 ? n : 1) * sizeof *p);
  for (int i = 0; i < n; i++) p[i] = i;
  for (int i = n - 1; i > 0; i--) {
    int j = rng_int(r, i + 1), t = p[i];
    p[i] = p[j], p[j] = t;
  }
  for (int i = 0; i < rows->count; i++)
    for (int s = 0; s < 2; s++)
      if (rows->rows[i].body[s] >= 0) rows->rows[i].body[s] = p[rows->rows[i].body[s]];
  if (!perm) free(p);
}

// Interface rows counted here: rows whose two moving bodies lie in different
// subsystems, and rows with no moving body at all (between two fixed bodies:
// they belong to no subsystem either; the world never makes them).
static inline int cut_rows(const TsrModel *m, const TsrRowSet *rows, const int *part) {
  int cut = 0;
  for (int i = 0; i < rows->count; i++) {
    int a = rows->rows[i].body[0], b = rows->rows[i].body[1];
    int ma = a >= 0 && !m->bodies[a].fixed, mb = b >= 0 && !m->bodies[b].fixed;
    cut += ma && mb ? part[a] != part[b] : !ma && !mb;
  }
  return cut;
}

static inline int max_size(const TsrModel *m, const TsrPartition *p) {
  int best = 0;
  int *size = calloc((size_t)p->n_subsystems + 1, sizeof *size);
  for (int k = 0; k < m->n_bodies; k++)
    if (!m->bodies[k].fixed && p->body_subsystem[k] >= 0) size[p->body_subsystem[k]]++;
  for (int s = 0; s < p->n_subsystems; s++)
    if (size[s] > best) best = size[s];
  free(size);
  return best;
}

static inline TsrPartitionOptions popts(TsrPartitionMethod method, TsrPartitionRefine refine, int max_bodies) {
  TsrPartitionOptions o = {
      .method = method, .refine = refine, .max_bodies = max_bodies, .mass_ratio = 10, .mix_ratio = 0.5};
  return o;
}

#endif
