// SPDX-License-Identifier: MIT
// Partitions of the moving bodies into subsystems (seed 000 §4, §6; seed 003).
//
// The constraint graph: nodes are the moving bodies, one undirected edge per
// pair of distinct moving bodies sharing at least one row (a row to the world
// or to a fixed body makes no edge). An edge's weight w(u, v) is the number of
// rows between u and v: a partition's interface Gamma holds exactly the rows
// of the cut edges, so |Gamma| = sum of the weights of the cut edges, the
// quantity the refinements (seed 003 §2.2) and METIS minimise.
//
//  semantic  the model's `group` strings (group / group_every), seed 000 §6.1.
//            Ungrouped moving bodies: each connected component of the graph
//            restricted to them becomes one extra subsystem. Merging them into a
//            neighbouring group was the alternative; a separate subsystem keeps
//            the user's groups exactly as written (so `tessera check` and the
//            run file show what the model says) and a free-floating ungrouped
//            body then costs no interface rows at all.
//  none      one subsystem.
//
// The growing methods share the frame of seed 000 Algorithm 2 (and of seed
// 003 Algorithm 1): while more than n_max bodies are left in the default group
// G0, a new group G_i starts from a seed body and grows one body at a time,
// taken from its adjacent bodies A_i ∩ G0, until it holds n_max bodies; then
// its orphans (adjacent bodies left with no neighbour in G0, seed 000 §6.2)
// join it; the bodies left at the end form the last group (mass-ratio: more
// groups, by Eq. 1, until none is left). They differ in the
// seed and in which adjacent body comes next:
//
//  mindp       min-degree seed in G0, min-degree next (seed 000 Algorithm 2).
//  maxdp       max-degree seed, max-degree next (seed 003 §2.1 "MaxDP ...
//              expands partitions based on bodies with the highest valence").
//  bfs         the lowest-index body of G0 as seed, then breadth-first: bodies
//              in the order they were found adjacent (seed 003 §2.1, "a natural
//              ordering of simulation bodies").
//  mass-ratio  breadth-first like bfs, but a body joins only when it satisfies
//              seed 003 Eq. 1, max{m_i, m_j} / min{m_i, m_j} < tau_MR, with m_i
//              the least mass in the group so far and m_j the body's mass; when
//              no adjacent body satisfies it, the group closes early.
//  mix         seed 003 Algorithm 1: the min-degree rule while |G_i| <
//              tau_mix n_max, then MaxGainBody: the adjacent body of largest
//              gain alpha = E - I (seed 003 Eq. 2 with G_a = G0, G_b = G_i),
//              E its rows to G_i, I its rows to the rest of G0.
//
// Degree (all methods) = number of distinct neighbours still in G0. Ties go
// to the lowest body index everywhere (the papers are silent). When a growing
// group has no adjacent body left in G0 (its island is used up), it goes on
// from the seed rule anywhere in G0: small islands share a subsystem without
// interface rows between them instead of becoming one subsystem each (seed 000
// §7.6 has many islands; the algorithms leave MinDegreeBody(A_i ∩ G0) of an
// empty set undefined).
//
//  metis       METIS (Karypis and Kumar 1998, seed 003 [KK98]) on the
//              weighted constraint graph, ceil(moving / n_max) parts; see
//              partition_metis.
//
// Refinements (seed 003 §2.2), on any automatic method's result, only ever
// make a change of strictly positive gain, so |Gamma| never grows:
//  kl  Kernighan-Lin: for each pair of adjacent subsystems (a, b), the swap of
//      i in a and j in b of largest alpha_KL = (E_i - I_i) + (E_j - I_j) -
//      2 w(i, j) (the paper's c generalised to rows) is made if alpha_KL > 0;
//      repeated over all pairs until no pair has a positive swap. Sizes stay.
//  fm  Fiduccia-Mattheyses: for each pair (a, b), the single move of a body
//      between them of largest alpha_FM = E_i - I_i (Eq. 2) is made if
//      positive, the target keeps fewer than TSR_FM_CAP(n_max) bodies before
//      it and the source keeps one; repeated likewise.
// Both consider only bodies at the interface of the pair (the paper's
// "peripheral bodies"), which is where any positive gain lies.
//
// Every row then belongs to the subsystem of its moving bodies, or to the
// interface Gamma (-1) when they lie in different subsystems.
#include "partition/partition.h"
#include "util/fnv.h"

#include <metis.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// METIS_OPTION_SEED: a fixed seed makes METIS's randomised matching repeat
// exactly (serial METIS is then deterministic).
#define METIS_FIXED_SEED 7

#define DEFAULT_MAX_BODIES 16
#define DEFAULT_MASS_RATIO 10.0
#define DEFAULT_MIX_RATIO 0.5

typedef struct {
  int cap_n, cap_e;
  int *xadj, *adj, *wgt;  // CSR adjacency [n+1], [2 * edges], weights = rows per edge
  int *deg, *stack, *cand, *mark, *tmp, *size, *bucket, *bstart;
  int *edge_u, *edge_v;  // edges gathered from rows (with duplicates)
  int64_t *pairs;        // adjacent subsystem pairs (refinement)
  int *li, *lg;          // interface lists of one pair: bodies and gains
  // semantic: open-addressing table of group strings -> subsystem
  int cap_tab;
  int *tab_body;  // body whose group string owns the slot, or -1
  // metis: compact graph of the moving bodies
  int cap_m;
  idx_t *m_xadj, *m_adj, *m_wgt, *m_part;
} Work;

void tsr_partition_init(TsrPartition *p) { memset(p, 0, sizeof *p); }

static void work_free(Work *w) {
  if (!w) return;
  free(w->xadj), free(w->adj), free(w->wgt), free(w->deg), free(w->stack), free(w->cand), free(w->mark);
  free(w->tmp), free(w->size), free(w->bucket), free(w->bstart), free(w->edge_u), free(w->edge_v);
  free(w->pairs), free(w->li), free(w->lg), free(w->tab_body);
  free(w->m_xadj), free(w->m_adj), free(w->m_wgt), free(w->m_part);
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

#define GROW(a, need) grow_bytes((void **)&(a), (size_t)(need) * sizeof *(a))

static int grow_bytes(void **a, size_t bytes) {
  void *q = realloc(*a, bytes ? bytes : 1);
  if (!q) return -1;
  *a = q;
  return 0;
}

static Work *work_reserve(TsrPartition *p, int n, int e) {
  Work *w = p->work;
  if (!w && !(w = p->work = calloc(1, sizeof *w))) return NULL;
  if (n + 1 > w->cap_n) {
    int c = n + 1 + n / 4 + 8;
    if (GROW(w->xadj, c) || GROW(w->deg, c) || GROW(w->stack, c) || GROW(w->cand, c) || GROW(w->mark, c) ||
        GROW(w->tmp, c) || GROW(w->size, c) || GROW(w->bucket, c) || GROW(w->bstart, c) || GROW(w->li, c) ||
        GROW(w->lg, c))
      return NULL;
    w->cap_n = c;
  }
  if (e > w->cap_e) {
    int c = e + e / 4 + 8;
    if (GROW(w->adj, 2 * c) || GROW(w->wgt, 2 * c) || GROW(w->edge_u, c) || GROW(w->edge_v, c) || GROW(w->pairs, c))
      return NULL;
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
// (neighbours sorted increasingly, so every choice below is deterministic);
// wgt[q] = number of rows between k and adj[q].
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
  // Sort each list (insertion sort: lists are short), merge duplicates into
  // weights.
  int out = 0;
  for (int k = 0; k < n; k++) {
    int beg = w->xadj[k], end = w->xadj[k + 1];
    for (int q = beg + 1; q < end; q++) {
      int v = w->adj[q], r = q - 1;
      while (r >= beg && w->adj[r] > v) w->adj[r + 1] = w->adj[r], r--;
      w->adj[r + 1] = v;
    }
    w->xadj[k] = out;
    for (int q = beg; q < end; q++) {
      if (q > beg && w->adj[q] == w->adj[q - 1]) {
        w->wgt[out - 1]++;
      } else {
        w->wgt[out] = 1;
        w->adj[out++] = w->adj[q];
      }
    }
  }
  w->xadj[n] = out;
  *pw = w;
  return 0;
}

static uint64_t str_hash(const char *s) { return tsr_fnv1a_str(s); }

static int partition_semantic(const TsrModel *m, Work *w, TsrPartition *p) {
  int n = m->n_bodies, ns = 0;
  int need = 64;
  while (need < 2 * n) need *= 2;
  if (need > w->cap_tab) {
    if (GROW(w->tab_body, need)) return -1;
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

// Rows between body u and the bodies with part[v] == s.
static int rows_to(const Work *w, const int *part, int u, int s) {
  int r = 0;
  for (int q = w->xadj[u]; q < w->xadj[u + 1]; q++) r += part[w->adj[q]] == s ? w->wgt[q] : 0;
  return r;
}

// Seed 003 Eq. 1 in product form (no division by a zero mass): the ratio of
// the larger to the smaller of (group's least mass, candidate's mass) is below
// tau. Equal masses always pass (tau > 1).
static int mass_ratio_ok(double m_min, double m_j, double tau) {
  double lo = m_min < m_j ? m_min : m_j, hi = m_min < m_j ? m_j : m_min;
  return hi == lo || hi < tau * lo;
}

// The growing methods (header comment). in_group[k]: -2 fixed, -1 in G0, else
// the group; deg[k]: distinct neighbours of k still in G0.
static int partition_grow(const TsrModel *m, TsrPartitionMethod method, int n_max, double tau_mr, double tau_mix,
                          Work *w, TsrPartition *p) {
  int n = m->n_bodies, left = 0, ns = 0;
  int *in_group = p->body_subsystem, *deg = w->deg, *cand = w->cand, *is_cand = w->mark;
  for (int k = 0; k < n; k++) {
    in_group[k] = m->bodies[k].fixed ? -2 : -1;
    is_cand[k] = 0;
  }
  for (int k = 0; k < n; k++) {
    if (in_group[k] != -1) continue;
    left++;
    deg[k] = w->xadj[k + 1] - w->xadj[k];
  }
  // The seed-rule ordering of bodies: is a better than b? Ties: lower index.
  const int max_rule = method == TSR_PARTITION_MAXDP;
  const int deg_rule = method == TSR_PARTITION_MINDP || method == TSR_PARTITION_MIX || max_rule;
#define BETTER_DEG(a, b) ((b) < 0 || (max_rule ? deg[a] > deg[b] : deg[a] < deg[b]) || (deg[a] == deg[b] && (a) < (b)))
#define TAKE(b)                                                             \
  do {                                                                      \
    in_group[b] = ns;                                                       \
    left--;                                                                 \
    for (int q_ = w->xadj[b]; q_ < w->xadj[b + 1]; q_++) deg[w->adj[q_]]--; \
  } while (0)
  // Algorithm 2 leaves the last n_max bodies or fewer as one subsystem;
  // mass-ratio groups them too, by Eq. 1 (as one leftover group, 1e-3 kg
  // and 1e6 kg jointed together shared a subsystem at any max_bodies above 1).
  const int last = method == TSR_PARTITION_MASS_RATIO ? 0 : n_max;
  while (left > last) {
    int size = 0, nc = 0;
    double m_min = 0;  // least mass in the group (mass-ratio)
    while (size < n_max) {
      int best = -1, any_cand = 0;
      // mix (Algorithm 1): MinDegreeBody while size(G_i) < tau_mix n_max, then MaxGainBody.
      int gain_rule = method == TSR_PARTITION_MIX && !((double)size < tau_mix * n_max);
      int best_gain = 0;
      for (int c = 0; c < nc; c++) {
        int v = cand[c];
        if (in_group[v] != -1) continue;
        any_cand = 1;
        if (method == TSR_PARTITION_BFS) {
          best = v;  // the first found (candidates keep their order)
          break;
        }
        if (method == TSR_PARTITION_MASS_RATIO) {
          if (mass_ratio_ok(m_min, m->bodies[v].mass, tau_mr)) {
            best = v;
            break;
          }
          continue;
        }
        if (gain_rule) {
          // MaxGainBody: alpha = E - I, E rows to G_i, I rows to G0 \ {v}.
          int g = rows_to(w, in_group, v, ns) - rows_to(w, in_group, v, -1);
          if (best < 0 || g > best_gain || (g == best_gain && v < best)) best = v, best_gain = g;
          continue;
        }
        if (BETTER_DEG(v, best)) best = v;
      }
      if (best < 0 && any_cand) break;  // mass-ratio: no adjacent body satisfies Eq. 1
      if (best < 0) {
        // A new group, or its island is used up: the seed rule over G0.
        for (int v = 0; v < n; v++) {
          if (in_group[v] != -1) continue;
          if (deg_rule) {
            if (BETTER_DEG(v, best)) best = v;
          } else if (method == TSR_PARTITION_BFS || size == 0 || mass_ratio_ok(m_min, m->bodies[v].mass, tau_mr)) {
            best = v;
            break;
          }
        }
      }
      if (best < 0) break;
      TAKE(best);
      if (size == 0 || m->bodies[best].mass < m_min) m_min = m->bodies[best].mass;
      size++;
      // Compact the candidate list (keeping its order) and append best's
      // neighbours in G0 (in increasing index).
      int k2 = 0;
      for (int c = 0; c < nc; c++)
        if (in_group[cand[c]] == -1)
          cand[k2++] = cand[c];
        else
          is_cand[cand[c]] = 0;
      nc = k2;
      for (int q = w->xadj[best]; q < w->xadj[best + 1]; q++) {
        int v = w->adj[q];
        if (in_group[v] == -1 && !is_cand[v]) is_cand[v] = 1, cand[nc++] = v;
      }
    }
    // Orphans (seed 000 Algorithm 2 lines 15-18): adjacent bodies left with
    // no neighbour in G0. Seed 003's methods keep this step (Algorithm 1 omits
    // it, but the text calls MIX "similar to MinDP"): an orphan left in G0
    // would become a subsystem whose every row is an interface row.
    // mass-ratio admits an orphan only if it satisfies Eq. 1.
    for (int c = 0; c < nc; c++) {
      int v = cand[c];
      is_cand[v] = 0;
      if (in_group[v] != -1 || deg[v] != 0) continue;
      if (method == TSR_PARTITION_MASS_RATIO && !mass_ratio_ok(m_min, m->bodies[v].mass, tau_mr)) continue;
      TAKE(v);
      if (m->bodies[v].mass < m_min) m_min = m->bodies[v].mass;
    }
    ns++;
  }
#undef TAKE
#undef BETTER_DEG
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

// Renumbers the subsystems 0.. in their order, dropping empty ones (a
// refinement or METIS may leave one empty).
static void compact_subsystems(int n, Work *w, TsrPartition *p) {
  int ns = p->n_subsystems, *map = w->tmp;
  for (int s = 0; s < ns; s++) map[s] = 0;
  for (int k = 0; k < n; k++)
    if (p->body_subsystem[k] >= 0) map[p->body_subsystem[k]] = 1;
  int out = 0;
  for (int s = 0; s < ns; s++) map[s] = map[s] ? out++ : -1;
  for (int k = 0; k < n; k++)
    if (p->body_subsystem[k] >= 0) p->body_subsystem[k] = map[p->body_subsystem[k]];
  p->n_subsystems = out;
}

// Moves bodies out of subsystems holding more than n_max (METIS balances only
// up to its tolerance) into subsystems with room, by the best FM gain
// rows(i, target) - rows(i, own); ties: lowest body, then lowest target.
// There is always room: n_subsystems * n_max >= moving bodies.
static void repair_sizes(int n, int n_max, Work *w, TsrPartition *p) {
  int ns = p->n_subsystems, *part = p->body_subsystem, *size = w->size;
  for (int s = 0; s < ns; s++) size[s] = 0;
  for (int k = 0; k < n; k++)
    if (part[k] >= 0) size[part[k]]++;
  for (int s = 0; s < ns; s++) {
    while (size[s] > n_max) {
      int room = -1;  // lowest-index subsystem with room (for bodies with no neighbour there)
      for (int t = 0; t < ns && room < 0; t++)
        if (size[t] < n_max) room = t;
      if (room < 0) return;
      int bi = -1, bt = -1, bg = 0;
      for (int i = 0; i < n; i++) {
        if (part[i] != s) continue;
        int own = rows_to(w, part, i, s);
        int g = rows_to(w, part, i, room) - own, t = room;
        for (int q = w->xadj[i]; q < w->xadj[i + 1]; q++) {
          int u = part[w->adj[q]];
          if (u == s || u < 0 || size[u] >= n_max) continue;
          int gu = rows_to(w, part, i, u) - own;
          if (gu > g || (gu == g && u < t)) g = gu, t = u;
        }
        if (bi < 0 || g > bg) bi = i, bt = t, bg = g;
      }
      part[bi] = bt;
      size[s]--, size[bt]++;
    }
  }
}

// METIS (k parts) on the moving bodies, nparts = ceil(moving / n_max), edge
// weights = rows. METIS_PartGraphRecursive rather than METIS_PartGraphKway:
// with parts of n_max ~ 16 bodies, k-way's coarsening target (30 nparts
// vertices, METIS 5.1 kmetis.c) exceeds the graph's size, so it does not
// coarsen at all and starts from a recursive bisection anyway; measured on
// grids of 36-2025 vertices with 16 per part, recursive bisection alone ran
// 4-5x faster with an equal or smaller cut in 6 of 7 cases. nparts == 1 does
// not go to METIS (it misbehaves there), and neither does a graph with no
// edge (any split cuts nothing: the bodies go in index order, n_max per
// part). METIS balances parts only to within its tolerance, so parts above
// n_max are then evened out (repair_sizes).
static int partition_metis(const TsrModel *m, int n_max, Work *w, TsrPartition *p) {
  int n = m->n_bodies, nv = 0, *id = w->tmp;
  for (int k = 0; k < n; k++) id[k] = m->bodies[k].fixed ? -1 : nv++;
  int nparts = nv ? nv / n_max + (nv % n_max != 0) : 0;  // (nv + n_max - 1 overflowed for n_max near INT_MAX)
  int ne2 = 0;
  for (int k = 0; k < n; k++)
    if (id[k] >= 0) ne2 += w->xadj[k + 1] - w->xadj[k];
  if (nparts <= 1 || ne2 == 0) {
    for (int k = 0; k < n; k++) p->body_subsystem[k] = id[k] < 0 ? -1 : id[k] / n_max;
    p->n_subsystems = nparts;
    return 0;
  }
  if (nv + 1 > w->cap_m || ne2 > w->cap_m) {
    int c = (nv + 1 > ne2 ? nv + 1 : ne2) + 64;
    if (GROW(w->m_xadj, c) || GROW(w->m_adj, c) || GROW(w->m_wgt, c) || GROW(w->m_part, c)) return -1;
    w->cap_m = c;
  }
  int e = 0;
  w->m_xadj[0] = 0;
  for (int k = 0; k < n; k++) {
    if (id[k] < 0) continue;
    for (int q = w->xadj[k]; q < w->xadj[k + 1]; q++) {
      w->m_adj[e] = (idx_t)id[w->adj[q]];  // fixed bodies have no edges
      w->m_wgt[e++] = (idx_t)w->wgt[q];
    }
    w->m_xadj[id[k] + 1] = (idx_t)e;
  }
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = METIS_FIXED_SEED;
  options[METIS_OPTION_NUMBERING] = 0;
  idx_t nvtxs = nv, ncon = 1, np = nparts, cut = 0;
  int rc = METIS_PartGraphRecursive(&nvtxs, &ncon, w->m_xadj, w->m_adj, NULL, NULL, w->m_wgt, &np, NULL, NULL, options,
                                    &cut, w->m_part);
  if (rc != METIS_OK) return -1;
  for (int k = 0; k < n; k++) p->body_subsystem[k] = id[k] < 0 ? -1 : (int)w->m_part[id[k]];
  p->n_subsystems = nparts;
  repair_sizes(n, n_max, w, p);
  return 0;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

// Weight of edge (i, j), 0 when absent (binary search: lists are sorted).
static int edge_weight(const Work *w, int i, int j) {
  int lo = w->xadj[i], hi = w->xadj[i + 1] - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (w->adj[mid] == j) return w->wgt[mid];
    if (w->adj[mid] < j)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return 0;
}

// One pass of KL or FM over every pair of adjacent subsystems (header
// comment). bucket[bstart[s] .. bstart[s+1]) holds the bodies of s at the
// interface when the pass began, in increasing index; a body that has since
// moved is skipped, one that has since reached the interface waits for the
// next pass. Returns the number of swaps or moves made.
static int refine_pass(int n, TsrPartitionRefine how, int n_max, Work *w, TsrPartition *p) {
  int ns = p->n_subsystems, *part = p->body_subsystem, *size = w->size;
  // Adjacent pairs (a < b), sorted, unique.
  int np = 0;
  for (int u = 0; u < n; u++) {
    if (part[u] < 0) continue;
    for (int q = w->xadj[u]; q < w->xadj[u + 1]; q++) {
      int v = w->adj[q];
      if (v < u || part[v] == part[u]) continue;
      int a = part[u] < part[v] ? part[u] : part[v], b = part[u] ^ part[v] ^ a;
      w->pairs[np++] = (int64_t)a * ns + b;
    }
  }
  if (!np) return 0;
  qsort(w->pairs, (size_t)np, sizeof *w->pairs, cmp_i64);
  // Interface bodies bucketed by subsystem.
  for (int s = 0; s <= ns; s++) w->bstart[s] = 0;
  for (int u = 0; u < n; u++) {
    if (part[u] < 0) continue;
    int at = 0;
    for (int q = w->xadj[u]; q < w->xadj[u + 1] && !at; q++) at = part[w->adj[q]] != part[u];
    w->mark[u] = at;
    if (at) w->bstart[part[u] + 1]++;
  }
  for (int s = 0; s < ns; s++) w->bstart[s + 1] += w->bstart[s];
  for (int s = 0; s < ns; s++) w->tmp[s] = w->bstart[s];
  for (int u = 0; u < n; u++)
    if (part[u] >= 0 && w->mark[u]) w->bucket[w->tmp[part[u]]++] = u;
  int changes = 0;
  for (int k = 0; k < np; k++) {
    if (k > 0 && w->pairs[k] == w->pairs[k - 1]) continue;
    int a = (int)(w->pairs[k] / ns), b = (int)(w->pairs[k] % ns);
    // li/lg: bodies of a facing b, then bodies of b facing a, with their
    // gain E - I of a move to the other side.
    int na = 0, nb = 0;
    for (int side = 0; side < 2; side++) {
      int own = side ? b : a, other = side ? a : b;
      for (int t = w->bstart[own]; t < w->bstart[own + 1]; t++) {
        int u = w->bucket[t];
        if (part[u] != own) continue;
        int E = rows_to(w, part, u, other);
        if (!E) continue;
        w->li[na + nb] = u, w->lg[na + nb] = E - rows_to(w, part, u, own);
        if (side)
          nb++;
        else
          na++;
      }
    }
    if (how == TSR_REFINE_KL) {
      // alpha_KL = D_i + D_j - 2 w(i, j); ties: lowest i, then lowest j.
      int bi = -1, bj = -1, best = 0;
      for (int x = 0; x < na; x++)
        for (int y = na; y < na + nb; y++) {
          int g = w->lg[x] + w->lg[y];
          if (g <= best) continue;  // w(i, j) >= 0 only lowers it
          g -= 2 * edge_weight(w, w->li[x], w->li[y]);
          if (g > best) best = g, bi = w->li[x], bj = w->li[y];
        }
      if (bi >= 0) part[bi] = b, part[bj] = a, changes++;
    } else {
      // alpha_FM = E - I (seed 003 Eq. 2); ties: lowest body. The target may
      // grow to TSR_FM_CAP (as orphans let a subsystem exceed n_max)
      // and the source keeps a body. Within n_max itself, FM never moved a
      // body after the growing methods, which fill every subsystem but the
      // last to n_max: with the quarter, log_tower (mindp, 120 steps) went
      // from 539 to 497 interface rows and 9.48 to 8.37 ms a step,
      // large_rock_pile from 39 to 22 rows (1.16 to 1.14 ms).
      int bu = -1, best = 0;
      for (int x = 0; x < na + nb; x++) {
        int u = w->li[x], to = x < na ? b : a;
        if (size[to] >= TSR_FM_CAP(n_max) || size[part[u]] <= 1) continue;
        if (w->lg[x] > best || (w->lg[x] == best && best > 0 && u < bu)) best = w->lg[x], bu = u;
      }
      if (bu >= 0) {
        int from = part[bu], to = from == a ? b : a;
        part[bu] = to, size[from]--, size[to]++, changes++;
      }
    }
  }
  return changes;
}

// Refines p in place on the graph already in w (header comment), then
// renumbers the subsystems.
static void refine(int n, TsrPartitionRefine how, int n_max, Work *w, TsrPartition *p) {
  int ns = p->n_subsystems;
  if (how == TSR_REFINE_NONE || ns < 2) return;
  for (int s = 0; s < ns; s++) w->size[s] = 0;
  for (int k = 0; k < n; k++)
    if (p->body_subsystem[k] >= 0) w->size[p->body_subsystem[k]]++;
  // Each change lowers |Gamma| by at least one row: this ends.
  while (refine_pass(n, how, n_max, w, p)) {
  }
  compact_subsystems(n, w, p);
}

int tsr_partition_refine(const TsrModel *m, const TsrRowSet *rows, TsrPartitionRefine how, int max_bodies,
                         TsrPartition *p) {
  if (p->n_bodies != m->n_bodies) return -1;
  Work *w;
  if (build_graph(m, rows, &w, p)) return -1;  // leaves body_subsystem as it is
  refine(m->n_bodies, how, max_bodies > 0 ? max_bodies : DEFAULT_MAX_BODIES, w, p);
  return tsr_partition_assign_rows(rows, p);
}

int tsr_partition_build_opts(const TsrModel *m, const TsrRowSet *rows, const TsrPartitionOptions *o, TsrPartition *p) {
  if (reserve(p, m->n_bodies, rows->count)) return -1;
  p->n_bodies = m->n_bodies;
  int n_max = o->max_bodies > 0 ? o->max_bodies : DEFAULT_MAX_BODIES;
  double tau_mr = o->mass_ratio > 1.0 ? o->mass_ratio : DEFAULT_MASS_RATIO;
  double tau_mix = o->mix_ratio > 0.0 && o->mix_ratio < 1.0 ? o->mix_ratio : DEFAULT_MIX_RATIO;
  int rc = 0;
  if (o->method == TSR_PARTITION_NONE || (int)o->method < 0 || o->method >= TSR_PARTITION_COUNT) {
    int any = 0;
    for (int k = 0; k < m->n_bodies; k++) {
      p->body_subsystem[k] = m->bodies[k].fixed ? -1 : 0;
      any |= !m->bodies[k].fixed;
    }
    p->n_subsystems = any;
    return tsr_partition_assign_rows(rows, p);
  }
  Work *w;
  if (build_graph(m, rows, &w, p)) return -1;
  switch (o->method) {
    case TSR_PARTITION_SEMANTIC:
      rc = partition_semantic(m, w, p);
      break;
    case TSR_PARTITION_METIS:
      rc = partition_metis(m, n_max, w, p);
      if (!rc) compact_subsystems(m->n_bodies, w, p);
      break;
    default:
      rc = partition_grow(m, o->method, n_max, tau_mr, tau_mix, w, p);
      break;
  }
  if (rc) return rc;
  if (tsr_partition_method_is_automatic(o->method)) refine(m->n_bodies, o->refine, n_max, w, p);
  return tsr_partition_assign_rows(rows, p);
}

int tsr_partition_build(const TsrModel *m, const TsrRowSet *rows, TsrPartitionMethod method, int max_bodies,
                        TsrPartition *p) {
  const TsrSettings *s = &m->settings;
  TsrPartitionOptions o = {.method = method,
                           .refine = s->partitioning.refine,
                           .max_bodies = max_bodies,
                           .mass_ratio = s->partitioning.mass_ratio,
                           .mix_ratio = s->partitioning.mix_ratio};
  return tsr_partition_build_opts(m, rows, &o, p);
}
