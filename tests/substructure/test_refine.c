// SPDX-License-Identifier: MIT
// Kernighan-Lin and Fiduccia-Mattheyses refinement (seed 003 §2.2): never
// more interface rows than before, on many random graphs, from every
// automatic method and from random partitions; KL keeps every subsystem's
// size, FM fills no subsystem beyond TSR_FM_CAP(max_bodies) (nor empties
// one); when they stop, no swap
// (KL) or move (FM) of positive gain is left at the interface; and on two
// cliques joined by one row, shuffled and split badly, both find the minimum
// cut, the single row between the cliques.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_util.h"
#include "sub_util.h"
#include "tsr_test.h"

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

// Sorted subsystem sizes into size[0 .. N).
static void sorted_sizes(const TsrModel *m, const TsrPartition *p, int *size) {
  for (int s = 0; s < p->n_subsystems; s++) size[s] = 0;
  for (int k = 0; k < m->n_bodies; k++)
    if (p->body_subsystem[k] >= 0) size[p->body_subsystem[k]]++;
  qsort(size, (size_t)p->n_subsystems, sizeof *size, cmp_int);
}

// Rows between body u and subsystem s.
static int rows_between(const TsrModel *m, const TsrRowSet *rows, const int *part, int u, int s) {
  int c = 0;
  for (int i = 0; i < rows->count; i++) {
    int a = rows->rows[i].body[0], b = rows->rows[i].body[1];
    if (a < 0 || b < 0 || m->bodies[a].fixed || m->bodies[b].fixed || a == b) continue;
    if (a == u && part[b] == s)
      c++;
    else if (b == u && part[a] == s)
      c++;
  }
  return c;
}

static int rows_uv(const TsrRowSet *rows, int u, int v) {
  int c = 0;
  for (int i = 0; i < rows->count; i++) {
    int a = rows->rows[i].body[0], b = rows->rows[i].body[1];
    c += (a == u && b == v) || (a == v && b == u);
  }
  return c;
}

// FM's stopping rule, by brute force: no body at the interface has a move
// of positive gain into an adjacent subsystem holding fewer than
// TSR_FM_CAP(max_bodies), its own keeping a body.
static int fm_gain_left(const TsrModel *m, const TsrRowSet *rows, const TsrPartition *p, int mb) {
  int n = m->n_bodies, *size = calloc((size_t)p->n_subsystems + 1, sizeof *size), left = 0;
  for (int k = 0; k < n; k++)
    if (p->body_subsystem[k] >= 0) size[p->body_subsystem[k]]++;
  for (int u = 0; u < n; u++) {
    int own = p->body_subsystem[u];
    if (own < 0) continue;
    int I = rows_between(m, rows, p->body_subsystem, u, own);
    for (int t = 0; t < p->n_subsystems; t++)
      if (t != own && size[t] < TSR_FM_CAP(mb) && size[own] > 1) {
        int E = rows_between(m, rows, p->body_subsystem, u, t);
        if (E > 0 && E - I > 0) left++;
      }
  }
  free(size);
  return left;
}

// KL's stopping rule: no pair (i in a, j in b) of interface bodies facing
// each other has alpha_KL = (E_i - I_i) + (E_j - I_j) - 2 rows(i, j) > 0.
static int kl_gain_left(const TsrModel *m, const TsrRowSet *rows, const TsrPartition *p) {
  int n = m->n_bodies, left = 0;
  const int *part = p->body_subsystem;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      int a = part[i], b = part[j];
      if (a < 0 || b < 0 || a == b) continue;
      int Ei = rows_between(m, rows, part, i, b), Ej = rows_between(m, rows, part, j, a);
      if (!Ei || !Ej) continue;
      int g = Ei - rows_between(m, rows, part, i, a) + Ej - rows_between(m, rows, part, j, b) - 2 * rows_uv(rows, i, j);
      left += g > 0;
    }
  return left;
}

static void make_random(Rng *r, int t, TsrModel *m, TsrRowSet *rows) {
  int n = 4 + rng_int(r, 70);
  tsr_rowset_clear(rows);
  switch (t % 4) {
    case 0:
      g_contacts(r, n, 2.2 / sqrt((double)n), rows);
      break;
    case 1: {
      int w = 2 + rng_int(r, 6);
      n = w * (1 + n / w);
      g_grid(r, w, n / w, rows);
      break;
    }
    case 2:
      g_islands(r, n, rows);
      g_contacts(r, n, 1.0 / sqrt((double)n), rows);  // and a few links between them
      break;
    default:
      g_chain(n, 1 + rng_int(r, 3), rows);
      g_contacts(r, n, 1.5 / sqrt((double)n), rows);
  }
  graph_model(n, m);
  for (int k = 0; k < n; k++) m->bodies[k].fixed = rng_uniform(r) < 0.06;
  random_masses(r, m, 0);
  shuffle_bodies(r, n, rows, NULL);
}

// Checks one refinement of `before` (already a valid partition) with `how`.
static void check_refined(const TsrModel *m, const TsrRowSet *rows, const TsrPartition *before, TsrPartitionRefine how,
                          int mb, const char *what) {
  TsrPartition p;
  tsr_partition_init(&p);
  // a copy, then refine in place
  ENSURE(tsr_partition_build_opts(m, rows, &(TsrPartitionOptions){.method = TSR_PARTITION_NONE}, &p) == 0);
  memcpy(p.body_subsystem, before->body_subsystem, (size_t)m->n_bodies * sizeof(int));
  p.n_subsystems = before->n_subsystems;
  ENSURE(tsr_partition_refine(m, rows, how, mb, &p) == 0);
  char w[160];
  snprintf(w, sizeof w, "%s +%s", what, tsr_partition_refine_name(how));
  ENSURE_MSG(partition_violations(m, rows, &p, mb, 0, w) == 0, "%s", w);
  ENSURE_MSG(p.n_interface_rows <= before->n_interface_rows, "%s: %d > %d", w, p.n_interface_rows,
             before->n_interface_rows);
  int N = before->n_subsystems + 1;
  int *s0 = calloc((size_t)N, sizeof *s0), *s1 = calloc((size_t)N, sizeof *s1);
  sorted_sizes(m, before, s0);
  sorted_sizes(m, &p, s1);
  if (how == TSR_REFINE_KL) {
    ENSURE_MSG(p.n_subsystems == before->n_subsystems && !memcmp(s0, s1, (size_t)p.n_subsystems * sizeof(int)),
               "%s: sizes changed", w);
    ENSURE_MSG(kl_gain_left(m, rows, &p) == 0, "%s: a positive swap is left", w);
  } else {
    int cap = before->n_subsystems ? s0[before->n_subsystems - 1] : 0;
    if (cap < TSR_FM_CAP(mb)) cap = TSR_FM_CAP(mb);
    ENSURE_MSG(max_size(m, &p) <= cap, "%s: %d > %d", w, max_size(m, &p), cap);
    ENSURE_MSG(fm_gain_left(m, rows, &p, mb) == 0, "%s: a positive move is left", w);
  }
  free(s0), free(s1);
  tsr_partition_free(&p);
}

static void test_random_graphs(void) {
  Rng r = {9001};
  TsrRowSet rows = {0};
  int kept = 0, lowered = 0;
  for (int t = 0; t < 60; t++) {
    TsrModel m;
    make_random(&r, t, &m, &rows);
    int mb = 2 + rng_int(&r, 12);
    for (int a = 0; a <= N_AUTO_METHODS; a++) {
      TsrPartition base;
      tsr_partition_init(&base);
      char what[128];
      if (a < N_AUTO_METHODS) {
        TsrPartitionOptions o = popts(AUTO_METHODS[a], TSR_REFINE_NONE, mb);
        ENSURE(tsr_partition_build_opts(&m, &rows, &o, &base) == 0);
        snprintf(what, sizeof what, "graph %d %s max %d", t, tsr_partition_method_name(o.method), mb);
        // build with refinement = build, then refine
        for (int rf = TSR_REFINE_KL; rf <= TSR_REFINE_FM; rf++) {
          TsrPartition p, q;
          tsr_partition_init(&p), tsr_partition_init(&q);
          o.refine = (TsrPartitionRefine)rf;
          ENSURE(tsr_partition_build_opts(&m, &rows, &o, &p) == 0);
          o.refine = TSR_REFINE_NONE;
          ENSURE(tsr_partition_build_opts(&m, &rows, &o, &q) == 0);
          ENSURE(tsr_partition_refine(&m, &rows, (TsrPartitionRefine)rf, mb, &q) == 0);
          ENSURE(p.n_subsystems == q.n_subsystems &&
                 !memcmp(p.body_subsystem, q.body_subsystem, (size_t)m.n_bodies * sizeof(int)));
          kept += p.n_interface_rows == base.n_interface_rows;
          lowered += p.n_interface_rows < base.n_interface_rows;
          tsr_partition_free(&p), tsr_partition_free(&q);
        }
      } else {
        // a random partition: ceil(moving / mb) subsystems, bodies dealt at random
        ENSURE(tsr_partition_build_opts(&m, &rows, &(TsrPartitionOptions){.method = TSR_PARTITION_NONE}, &base) == 0);
        int nm = 0;
        for (int k = 0; k < m.n_bodies; k++) nm += !m.bodies[k].fixed;
        int N = (nm + mb - 1) / mb, dealt = 0;
        int *perm = malloc((size_t)m.n_bodies * sizeof *perm);
        for (int k = 0; k < m.n_bodies; k++) perm[k] = k;
        for (int k = m.n_bodies - 1; k > 0; k--) {
          int j = rng_int(&r, k + 1), x = perm[k];
          perm[k] = perm[j], perm[j] = x;
        }
        for (int k = 0; k < m.n_bodies; k++) {
          int b = perm[k];
          base.body_subsystem[b] = m.bodies[b].fixed ? -1 : dealt++ % N;
        }
        free(perm);
        base.n_subsystems = N;
        tsr_partition_assign_rows(&rows, &base);
        snprintf(what, sizeof what, "graph %d random split max %d", t, mb);
      }
      check_refined(&m, &rows, &base, TSR_REFINE_KL, mb, what);
      check_refined(&m, &rows, &base, TSR_REFINE_FM, mb, what);
      tsr_partition_free(&base);
    }
    graph_model_free(&m);
  }
  fprintf(stderr, "  automatic methods refined: |Gamma| kept %d times, lowered %d times\n", kept, lowered);
  tsr_rowset_free(&rows);
}

// Two cliques A and B of c bodies (3 rows per pair, like a contact) joined by
// one row, labels shuffled. Of the splits into two sides of at most c + 1
// bodies (c for KL, which keeps sizes), {A, B} alone cuts a single row; any
// other cuts a clique, 3 (c - 1) rows at least. Started from a balanced split
// mixing both cliques, KL and FM find it.
static void test_two_cliques(void) {
  Rng r = {2718};
  for (int t = 0; t < 40; t++) {
    int c = 4 + rng_int(&r, 9), n = 2 * c;
    TsrModel m;
    TsrRowSet rows = {0};
    graph_model(n, &m);
    for (int q = 0; q < 2; q++)
      for (int a = 0; a < c; a++)
        for (int b = a + 1; b < c; b++) add_rows(&rows, q * c + a, q * c + b, 3);
    int ea = rng_int(&r, c), eb = c + rng_int(&r, c);
    add_rows(&rows, ea, eb, 1);
    int perm[64];
    shuffle_bodies(&r, n, &rows, perm);  // body k of the original is perm[k] now
    // the bad split: x bodies of A and c - x of B on side 0, 1 <= x <= c - 1
    int x = 1 + rng_int(&r, c - 1);
    for (int how = TSR_REFINE_KL; how <= TSR_REFINE_FM; how++) {
      TsrPartition p;
      tsr_partition_init(&p);
      ENSURE(tsr_partition_build_opts(&m, &rows, &(TsrPartitionOptions){.method = TSR_PARTITION_NONE}, &p) == 0);
      for (int k = 0; k < c; k++) {
        p.body_subsystem[perm[k]] = k < x ? 0 : 1;
        p.body_subsystem[perm[c + k]] = k < c - x ? 0 : 1;
      }
      p.n_subsystems = 2;
      int mb = how == TSR_REFINE_KL ? c : c + 1;
      ENSURE(tsr_partition_refine(&m, &rows, (TsrPartitionRefine)how, mb, &p) == 0);
      ENSURE_MSG(p.n_subsystems == 2 && p.n_interface_rows == 1, "%s: c %d, x %d: N %d, |Gamma| %d",
                 tsr_partition_refine_name((TsrPartitionRefine)how), c, x, p.n_subsystems, p.n_interface_rows);
      for (int k = 1; k < c; k++) {
        ENSURE(p.body_subsystem[perm[k]] == p.body_subsystem[perm[0]]);
        ENSURE(p.body_subsystem[perm[c + k]] == p.body_subsystem[perm[c]]);
      }
      tsr_partition_free(&p);
    }
    graph_model_free(&m);
    tsr_rowset_free(&rows);
  }
}

// A refinement on one subsystem, or none, changes nothing; semantic and none
// are never refined (the user's groups stay as written).
static void test_no_op(void) {
  Rng r = {1};
  TsrModel m;
  TsrRowSet rows = {0};
  make_random(&r, 0, &m, &rows);
  TsrPartition p, q;
  tsr_partition_init(&p), tsr_partition_init(&q);
  ENSURE(tsr_partition_build_opts(
             &m, &rows, &(TsrPartitionOptions){.method = TSR_PARTITION_NONE, .refine = TSR_REFINE_FM}, &p) == 0);
  int before = cut_rows(&m, &rows, p.body_subsystem);  // rows between fixed bodies only
  ENSURE(p.n_subsystems == 1 && p.n_interface_rows == before);
  ENSURE(tsr_partition_refine(&m, &rows, TSR_REFINE_KL, 4, &p) == 0);
  ENSURE(p.n_subsystems == 1 && p.n_interface_rows == before);
  graph_model_free(&m);
  fake_model(40, 2, 5, &m);  // groups of 5
  tsr_rowset_clear(&rows);
  g_chain(40, 2, &rows);
  ENSURE(tsr_partition_build_opts(&m, &rows, &(TsrPartitionOptions){.method = TSR_PARTITION_SEMANTIC}, &p) == 0);
  ENSURE(tsr_partition_build_opts(
             &m, &rows,
             &(TsrPartitionOptions){.method = TSR_PARTITION_SEMANTIC, .refine = TSR_REFINE_FM, .max_bodies = 40},
             &q) == 0);
  ENSURE(p.n_subsystems == q.n_subsystems && !memcmp(p.body_subsystem, q.body_subsystem, 40 * sizeof(int)));
  tsr_partition_free(&p), tsr_partition_free(&q);
  fake_model_free(&m);
  tsr_rowset_free(&rows);
}

int main(void) {
  RUN_TEST(test_two_cliques);
  RUN_TEST(test_no_op);
  RUN_TEST(test_random_graphs);
  return TSR_TEST_RESULT();
}
