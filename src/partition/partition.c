// SPDX-License-Identifier: MIT
// Partitions of the moving bodies into subsystems (seed 000 §4, §6).
//
// The constraint graph: nodes are the moving bodies, one undirected edge per
// pair of distinct moving bodies sharing at least one row (a row to the world
// or to a fixed body makes no edge). Three methods:
//
//  semantic  the model's `group` strings (group / group_every), seed 000 §6.1.
//            Ungrouped moving bodies: each connected component of the graph
//            restricted to them becomes one extra subsystem. Merging them into a
//            neighbouring group was the alternative; a separate subsystem keeps
//            the user's groups exactly as written (so `tessera check` and the
//            run file show what the model says) and a free-floating ungrouped
//            body then costs no interface rows at all.
//  mindp     minimum-degree partitioning, Algorithm 2 (§6.2): groups grow from
//            the minimum-degree body of G0 through the minimum-degree adjacent
//            body, up to n_max bodies; then the group's orphans (adjacent bodies
//            left with degree zero in G0) join it. Islands (§7.6): a group whose
//            frontier is empty goes on from the minimum-degree body anywhere in
//            G0, packing small islands into one subsystem without interface rows.
//  none      one subsystem.
//
// Every row then belongs to the subsystem of its moving bodies, or to the
// interface Gamma (-1) when they lie in different subsystems.
#include "partition/partition.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int cap_n, cap_e;
  int *xadj, *adj;     // CSR adjacency of the constraint graph [n+1], [2 * edges]
  int *deg, *stack, *cand, *mark, *tmp;
  int *edge_u, *edge_v;  // edges gathered from rows (with duplicates)
  // semantic: open-addressing table of group strings -> subsystem
  int cap_tab;
  int *tab_body;       // body whose group string owns the slot, or -1
} Work;

void tsr_partition_init(TsrPartition *p) { memset(p, 0, sizeof *p); }

static void work_free(Work *w) {
  if (!w) return;
  free(w->xadj), free(w->adj), free(w->deg), free(w->stack), free(w->cand), free(w->mark), free(w->tmp);
  free(w->edge_u), free(w->edge_v), free(w->tab_body);
  free(w);
}

void tsr_partition_free(TsrPartition *p) {
  free(p->body_subsystem);
  free(p->row_subsystem);
  work_free(p->work);
  memset(p, 0, sizeof *p);
}

static int reserve(TsrPartition *p, int n_bodies, int n_rows) {
  if (n_bodies > p->cap_bodies) {
    int *q = realloc(p->body_subsystem, (size_t)n_bodies * sizeof *q);
    if (!q) return -1;
    p->body_subsystem = q;
    p->cap_bodies = n_bodies;
  }
  if (n_rows > p->cap_rows) {
    int *q = realloc(p->row_subsystem, (size_t)n_rows * sizeof *q);
    if (!q) return -1;
    p->row_subsystem = q;
    p->cap_rows = n_rows;
  }
  return 0;
}

static int grow(int **a, int need) {
  int *q = realloc(*a, (size_t)(need > 0 ? need : 1) * sizeof *q);
  if (!q) return -1;
  *a = q;
  return 0;
}

static Work *work_reserve(TsrPartition *p, int n, int e) {
  Work *w = p->work;
  if (!w && !(w = p->work = calloc(1, sizeof *w))) return NULL;
  if (n + 1 > w->cap_n) {
    int c = n + 1 + n / 4 + 8;
    if (grow(&w->xadj, c) || grow(&w->deg, c) || grow(&w->stack, c) || grow(&w->cand, c) || grow(&w->mark, c) ||
        grow(&w->tmp, c))
      return NULL;
    w->cap_n = c;
  }
  if (e > w->cap_e) {
    int c = e + e / 4 + 8;
    if (grow(&w->adj, 2 * c) || grow(&w->edge_u, c) || grow(&w->edge_v, c)) return NULL;
    w->cap_e = c;
  }
  return w;
}

int tsr_partition_assign_rows(const TsrRowSet *rows, TsrPartition *p) {
  if (reserve(p, p->n_bodies, rows->count)) return -1;
  p->n_rows = rows->count;
  p->n_interface_rows = 0;
  for (int i = 0; i < rows->count; i++) {
    const TsrRow *r = &rows->rows[i];
    int s0 = r->body[0] >= 0 && r->body[0] < p->n_bodies ? p->body_subsystem[r->body[0]] : -1;
    int s1 = r->body[1] >= 0 && r->body[1] < p->n_bodies ? p->body_subsystem[r->body[1]] : -1;
    int s = s0 >= 0 && s1 >= 0 ? (s0 == s1 ? s0 : -1) : (s0 >= 0 ? s0 : s1);
    p->row_subsystem[i] = s;
    p->n_interface_rows += s < 0;
  }
  return 0;
}

// The constraint graph over moving bodies as CSR without duplicate edges
// (neighbours sorted increasingly, so every choice below is deterministic).
static int build_graph(const TsrModel *m, const TsrRowSet *rows, Work **pw, TsrPartition *p) {
  int n = m->n_bodies, ne = 0;
  Work *w = work_reserve(p, n, rows->count);
  if (!w) return -1;
  for (int i = 0; i < rows->count; i++) {
    int a = rows->rows[i].body[0], b = rows->rows[i].body[1];
    if (a < 0 || b < 0 || a == b || a >= n || b >= n || m->bodies[a].fixed || m->bodies[b].fixed) continue;
    w->edge_u[ne] = a, w->edge_v[ne] = b, ne++;
  }
  memset(w->xadj, 0, (size_t)(n + 1) * sizeof *w->xadj);
  for (int e = 0; e < ne; e++) w->xadj[w->edge_u[e] + 1]++, w->xadj[w->edge_v[e] + 1]++;
  for (int k = 0; k < n; k++) w->xadj[k + 1] += w->xadj[k];
  memcpy(w->tmp, w->xadj, (size_t)n * sizeof *w->tmp);
  for (int e = 0; e < ne; e++) {
    w->adj[w->tmp[w->edge_u[e]]++] = w->edge_v[e];
    w->adj[w->tmp[w->edge_v[e]]++] = w->edge_u[e];
  }
  // Sort each list (insertion sort: lists are short) and drop duplicates.
  int out = 0;
  for (int k = 0; k < n; k++) {
    int beg = w->xadj[k], end = w->xadj[k + 1];
    for (int q = beg + 1; q < end; q++) {
      int v = w->adj[q], r = q - 1;
      while (r >= beg && w->adj[r] > v) w->adj[r + 1] = w->adj[r], r--;
      w->adj[r + 1] = v;
    }
    w->xadj[k] = out;
    for (int q = beg; q < end; q++)
      if (q == beg || w->adj[q] != w->adj[q - 1]) w->adj[out++] = w->adj[q];
  }
  w->xadj[n] = out;
  *pw = w;
  return 0;
}

static uint64_t str_hash(const char *s) {
  uint64_t h = 1469598103934665603ULL;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ULL;
  return h;
}

static int partition_semantic(const TsrModel *m, Work *w, TsrPartition *p) {
  int n = m->n_bodies, ns = 0;
  int need = 64;
  while (need < 2 * n) need *= 2;
  if (need > w->cap_tab) {
    if (grow(&w->tab_body, need)) return -1;
    w->cap_tab = need;
  }
  for (int t = 0; t < w->cap_tab; t++) w->tab_body[t] = -1;
  // tmp[k]: subsystem of the group first named by body k.
  for (int k = 0; k < n; k++) {
    p->body_subsystem[k] = -1;
    const char *g = m->bodies[k].group;
    if (m->bodies[k].fixed || !g) continue;
    int t = (int)(str_hash(g) & (uint64_t)(w->cap_tab - 1));
    while (w->tab_body[t] >= 0 && strcmp(m->bodies[w->tab_body[t]].group, g)) t = (t + 1) & (w->cap_tab - 1);
    if (w->tab_body[t] < 0) {
      w->tab_body[t] = k;
      w->tmp[k] = ns++;
    }
    p->body_subsystem[k] = w->tmp[w->tab_body[t]];
  }
  // Connected components of the ungrouped moving bodies.
  for (int k = 0; k < n; k++) {
    if (m->bodies[k].fixed || m->bodies[k].group || p->body_subsystem[k] >= 0) continue;
    int top = 0;
    w->stack[top++] = k;
    p->body_subsystem[k] = ns;
    while (top) {
      int u = w->stack[--top];
      for (int q = w->xadj[u]; q < w->xadj[u + 1]; q++) {
        int v = w->adj[q];
        if (m->bodies[v].group || p->body_subsystem[v] >= 0) continue;
        p->body_subsystem[v] = ns;
        w->stack[top++] = v;
      }
    }
    ns++;
  }
  p->n_subsystems = ns;
  return 0;
}

// Algorithm 2. deg[k]: neighbours of k still in G0 (mark[k] == -1 means in G0).
static int partition_mindp(const TsrModel *m, int n_max, Work *w, TsrPartition *p) {
  int n = m->n_bodies, left = 0, ns = 0;
  if (n_max <= 0) n_max = 16;
  int *in_group = p->body_subsystem, *deg = w->deg, *cand = w->cand, *is_cand = w->mark;
  for (int k = 0; k < n; k++) {
    in_group[k] = m->bodies[k].fixed ? -2 : -1;  // -1: in G0
    is_cand[k] = 0;
  }
  for (int k = 0; k < n; k++) {
    if (in_group[k] != -1) continue;
    left++;
    deg[k] = w->xadj[k + 1] - w->xadj[k];
  }
#define TAKE(b)                                                                        \
  do {                                                                                 \
    in_group[b] = ns;                                                                  \
    left--;                                                                            \
    for (int q_ = w->xadj[b]; q_ < w->xadj[b + 1]; q_++) deg[w->adj[q_]]--;            \
  } while (0)
  while (left > n_max) {
    int size = 0, nc = 0;
    while (size < n_max) {
      // The next body: min degree among the candidates (A_i ∩ G0), or in all
      // of G0 when the group has no candidate (new group, or its island is
      // used up).
      int best = -1;
      for (int c = 0; c < nc; c++) {
        int v = cand[c];
        if (in_group[v] != -1) continue;
        if (best < 0 || deg[v] < deg[best] || (deg[v] == deg[best] && v < best)) best = v;
      }
      if (best < 0)
        for (int v = 0; v < n; v++)
          if (in_group[v] == -1 && (best < 0 || deg[v] < deg[best])) best = v;
      if (best < 0) break;
      TAKE(best);
      size++;
      // Compact the candidate list and add best's neighbours in G0.
      int k2 = 0;
      for (int c = 0; c < nc; c++)
        if (in_group[cand[c]] == -1) cand[k2++] = cand[c];
        else is_cand[cand[c]] = 0;
      nc = k2;
      for (int q = w->xadj[best]; q < w->xadj[best + 1]; q++) {
        int v = w->adj[q];
        if (in_group[v] == -1 && !is_cand[v]) is_cand[v] = 1, cand[nc++] = v;
      }
    }
    // Orphans: neighbours of the group left with no neighbour in G0.
    for (int c = 0; c < nc; c++) {
      int v = cand[c];
      is_cand[v] = 0;
      if (in_group[v] == -1 && deg[v] == 0) TAKE(v);
    }
    ns++;
  }
#undef TAKE
  if (left > 0) {
    for (int k = 0; k < n; k++)
      if (in_group[k] == -1) in_group[k] = ns;
    ns++;
  }
  for (int k = 0; k < n; k++)
    if (in_group[k] == -2) in_group[k] = -1;
  p->n_subsystems = ns;
  return 0;
}

int tsr_partition_build(const TsrModel *m, const TsrRowSet *rows, TsrPartitionMethod method, int max_bodies,
                        TsrPartition *p) {
  if (reserve(p, m->n_bodies, rows->count)) return -1;
  p->n_bodies = m->n_bodies;
  int rc = 0;
  if (method == TSR_PARTITION_SEMANTIC || method == TSR_PARTITION_MINDP) {
    Work *w;
    if (build_graph(m, rows, &w, p)) return -1;
    rc = method == TSR_PARTITION_SEMANTIC ? partition_semantic(m, w, p) : partition_mindp(m, max_bodies, w, p);
  } else {
    int any = 0;
    for (int k = 0; k < m->n_bodies; k++) {
      p->body_subsystem[k] = m->bodies[k].fixed ? -1 : 0;
      any |= !m->bodies[k].fixed;
    }
    p->n_subsystems = any;
  }
  if (rc) return rc;
  return tsr_partition_assign_rows(rows, p);
}
