// SPDX-License-Identifier: MIT
// The automatic partitioners of seed 003 (maxdp, bfs, mass-ratio, mix) beside
// mindp and METIS, with and without refinement, on chains, grids, random
// contact graphs, islands and fixed bodies: every moving body in exactly one
// subsystem, fixed bodies -1, no empty subsystem, interface rows exactly the
// rows across subsystems, max_bodies kept but for the orphan rule (and, for
// METIS, kept strictly), the same result every time. Then the rules that
// single a method out: breadth-first order on a chain, cliques never cut,
// Eq. 1 keeping mass classes apart, MIX reducing to MinDP, METIS corner cases,
// and the model keys.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_util.h"
#include "physics/sim_helpers.h"
#include "sub_util.h"
#include "tsr_test.h"

enum { G_CHAIN, G_GRID, G_CONTACTS, G_ISLANDS, G_KINDS };
static const char *const KIND_NAMES[] = {"chain", "grid", "contacts", "islands"};

// One graph of `kind` with about n bodies, some fixed, shuffled labels.
static void make_graph(Rng *r, int kind, int n, TsrModel *m, TsrRowSet *rows) {
  tsr_rowset_clear(rows);
  if (kind == G_GRID) {
    int w = 2 + rng_int(r, 8);
    n = w * (1 + n / w);
    g_grid(r, w, n / w, rows);
  } else if (kind == G_CHAIN) {
    g_chain(n, 1 + rng_int(r, 6), rows);
  } else if (kind == G_CONTACTS) {
    g_contacts(r, n, 2.0 / sqrt((double)n), rows);
  } else {
    g_islands(r, n, rows);
  }
  graph_model(n, m);
  for (int k = 0; k < n; k++) m->bodies[k].fixed = rng_uniform(r) < 0.08;
  random_masses(r, m, rng_int(r, 2));
  shuffle_bodies(r, n, rows, NULL);
}

static int moving(const TsrModel *m) {
  int c = 0;
  for (int k = 0; k < m->n_bodies; k++) c += !m->bodies[k].fixed;
  return c;
}

static void test_invariants(void) {
  Rng r = {20220707};
  TsrRowSet rows = {0};
  int checked = 0;
  for (int t = 0; t < 48; t++) {
    int kind = t % G_KINDS, n = 2 + rng_int(&r, 120);
    TsrModel m;
    make_graph(&r, kind, n, &m, &rows);
    const int mbs[] = {1, 2, 3, 5, 8, 16, 40};
    for (int a = 0; a < N_AUTO_METHODS; a++)
      for (int q = 0; q < 7; q++) {
        int mb = mbs[q];
        TsrPartition base;
        tsr_partition_init(&base);
        TsrPartitionOptions o = popts(AUTO_METHODS[a], TSR_REFINE_NONE, mb);
        ENSURE(tsr_partition_build_opts(&m, &rows, &o, &base) == 0);
        int is_metis = AUTO_METHODS[a] == TSR_PARTITION_METIS;
        char what[128];
        snprintf(what, sizeof what, "%s %d: %s max %d", KIND_NAMES[kind], t, tsr_partition_method_name(o.method), mb);
        ENSURE_MSG(partition_violations(&m, &rows, &base, mb, !is_metis, what) == 0, "%s", what);
        ENSURE_MSG(base.n_interface_rows == cut_rows(&m, &rows, base.body_subsystem), "%s", what);
        if (is_metis) {
          ENSURE_MSG(max_size(&m, &base) <= mb, "%s: %d", what, max_size(&m, &base));
          ENSURE_MSG(base.n_subsystems == (moving(&m) + mb - 1) / mb, "%s: N = %d", what, base.n_subsystems);
        }
        for (int rf = TSR_REFINE_KL; rf <= TSR_REFINE_FM; rf++) {
          TsrPartition p;
          tsr_partition_init(&p);
          o.refine = (TsrPartitionRefine)rf;
          ENSURE(tsr_partition_build_opts(&m, &rows, &o, &p) == 0);
          snprintf(what, sizeof what, "%s %d: %s+%s max %d", KIND_NAMES[kind], t, tsr_partition_method_name(o.method),
                   tsr_partition_refine_name(o.refine), mb);
          ENSURE_MSG(partition_violations(&m, &rows, &p, mb, 0, what) == 0, "%s", what);
          // A refinement never makes a subsystem larger than the largest one
          // before or than max_bodies (FM: TSR_FM_CAP(max_bodies)), and never
          // adds interface rows.
          int lim = rf == TSR_REFINE_FM ? TSR_FM_CAP(mb) : mb;
          int cap = max_size(&m, &base) > lim ? max_size(&m, &base) : lim;
          ENSURE_MSG(max_size(&m, &p) <= cap, "%s", what);
          ENSURE_MSG(p.n_interface_rows <= base.n_interface_rows, "%s: %d > %d", what, p.n_interface_rows,
                     base.n_interface_rows);
          tsr_partition_free(&p);
          checked++;
        }
        tsr_partition_free(&base);
      }
    graph_model_free(&m);
  }
  fprintf(stderr, "  %d refined partitions checked\n", checked);
  tsr_rowset_free(&rows);
}

// Same input, same partition: fresh structs, and a struct that partitioned
// another (larger) graph before, whose work arrays hold leftovers.
static void test_deterministic(void) {
  Rng r = {77};
  TsrRowSet rows = {0}, other = {0};
  TsrModel m, big;
  make_graph(&r, G_CONTACTS, 90, &m, &rows);
  make_graph(&r, G_GRID, 200, &big, &other);
  for (int a = 0; a < N_AUTO_METHODS; a++)
    for (int rf = 0; rf < TSR_REFINE_COUNT; rf++) {
      TsrPartitionOptions o = popts(AUTO_METHODS[a], (TsrPartitionRefine)rf, 7);
      TsrPartition p, q, warm;
      tsr_partition_init(&p), tsr_partition_init(&q), tsr_partition_init(&warm);
      ENSURE(tsr_partition_build_opts(&m, &rows, &o, &p) == 0);
      ENSURE(tsr_partition_build_opts(&m, &rows, &o, &q) == 0);
      ENSURE(tsr_partition_build_opts(&big, &other, &o, &warm) == 0);
      ENSURE(tsr_partition_build_opts(&m, &rows, &o, &warm) == 0);
      ENSURE(p.n_subsystems == q.n_subsystems && p.n_subsystems == warm.n_subsystems);
      ENSURE(!memcmp(p.body_subsystem, q.body_subsystem, (size_t)m.n_bodies * sizeof(int)));
      ENSURE(!memcmp(p.body_subsystem, warm.body_subsystem, (size_t)m.n_bodies * sizeof(int)));
      ENSURE(!memcmp(p.row_subsystem, warm.row_subsystem, (size_t)rows.count * sizeof(int)));
      tsr_partition_free(&p), tsr_partition_free(&q), tsr_partition_free(&warm);
    }
  graph_model_free(&m), graph_model_free(&big);
  tsr_rowset_free(&rows), tsr_rowset_free(&other);
}

// A chain in index order, 3k bodies, k per subsystem: bfs (from the lowest
// index) and mindp (from an end) cut it into consecutive blocks of k.
static void test_chain_blocks(void) {
  for (int k = 2; k <= 9; k++) {
    TsrModel m;
    TsrRowSet rows = {0};
    graph_model(3 * k, &m);
    g_chain(3 * k, 2, &rows);
    const TsrPartitionMethod methods[] = {TSR_PARTITION_BFS, TSR_PARTITION_MINDP};
    for (int a = 0; a < 2; a++) {
      TsrPartitionOptions o = popts(methods[a], TSR_REFINE_NONE, k);
      TsrPartition p;
      tsr_partition_init(&p);
      ENSURE(tsr_partition_build_opts(&m, &rows, &o, &p) == 0);
      ENSURE(p.n_subsystems == 3);
      for (int b = 0; b < 3 * k; b++)
        ENSURE_MSG(p.body_subsystem[b] == b / k, "%s k %d body %d", tsr_partition_method_name(methods[a]), k, b);
      ENSURE(p.n_interface_rows == 2 * 2);  // two links of two rows
      tsr_partition_free(&p);
    }
    graph_model_free(&m);
    tsr_rowset_free(&rows);
  }
}

// Disjoint cliques of max_bodies bodies each, labels shuffled: every growing
// method grows each subsystem inside one clique (its only adjacent bodies)
// and so never cuts one.
static void test_cliques_kept(void) {
  Rng r = {4242};
  for (int t = 0; t < 12; t++) {
    int c = 2 + rng_int(&r, 7), nc = 2 + rng_int(&r, 6), n = c * nc;
    TsrModel m;
    TsrRowSet rows = {0};
    graph_model(n, &m);
    for (int q = 0; q < nc; q++)
      for (int a = 0; a < c; a++)
        for (int b = a + 1; b < c; b++) add_rows(&rows, q * c + a, q * c + b, 1 + rng_int(&r, 3));
    shuffle_bodies(&r, n, &rows, NULL);
    for (int a = 0; a < N_AUTO_METHODS; a++) {
      if (AUTO_METHODS[a] == TSR_PARTITION_METIS) continue;
      TsrPartitionOptions o = popts(AUTO_METHODS[a], TSR_REFINE_NONE, c);
      TsrPartition p;
      tsr_partition_init(&p);
      ENSURE(tsr_partition_build_opts(&m, &rows, &o, &p) == 0);
      ENSURE_MSG(p.n_subsystems == nc && p.n_interface_rows == 0, "%s: c %d, %d cliques: N %d, |Gamma| %d",
                 tsr_partition_method_name(o.method), c, nc, p.n_subsystems, p.n_interface_rows);
      tsr_partition_free(&p);
    }
    graph_model_free(&m);
    tsr_rowset_free(&rows);
  }
}

// Eq. 1: with two mass classes 1 kg and 1000 kg and tau_MR = 10, no body of
// one class may join a subsystem holding the other, so every subsystem holds
// one class, the last too (the bodies Algorithm 2 leaves in G0 are grouped
// by Eq. 1 as well: as one group they mixed the classes). With tau_MR so
// large that Eq. 1 always holds, mass-ratio is bfs.
static void test_mass_ratio(void) {
  Rng r = {31337};
  TsrRowSet rows = {0};
  for (int t = 0; t < 20; t++) {
    TsrModel m;
    make_graph(&r, t % G_KINDS, 10 + rng_int(&r, 80), &m, &rows);
    for (int k = 0; k < m.n_bodies; k++)
      if (!m.bodies[k].fixed) m.bodies[k].mass = rng_int(&r, 2) ? 1.0 : 1000.0;
    int mb = 2 + rng_int(&r, 10);
    TsrPartitionOptions o = popts(TSR_PARTITION_MASS_RATIO, TSR_REFINE_NONE, mb);
    TsrPartition p, q;
    tsr_partition_init(&p), tsr_partition_init(&q);
    ENSURE(tsr_partition_build_opts(&m, &rows, &o, &p) == 0);
    ENSURE(partition_violations(&m, &rows, &p, mb, 1, "mass-ratio classes") == 0);
    for (int s = 0; s < p.n_subsystems; s++) {
      int light = 0, heavy = 0;
      for (int k = 0; k < m.n_bodies; k++)
        if (p.body_subsystem[k] == s) light += m.bodies[k].mass == 1.0, heavy += m.bodies[k].mass == 1000.0;
      ENSURE_MSG(!(light && heavy), "graph %d subsystem %d: %d light, %d heavy", t, s, light, heavy);
    }
    o.mass_ratio = 1e300;
    ENSURE(tsr_partition_build_opts(&m, &rows, &o, &p) == 0);
    o.method = TSR_PARTITION_BFS;
    ENSURE(tsr_partition_build_opts(&m, &rows, &o, &q) == 0);
    ENSURE(p.n_subsystems == q.n_subsystems);
    ENSURE(!memcmp(p.body_subsystem, q.body_subsystem, (size_t)m.n_bodies * sizeof(int)));
    tsr_partition_free(&p), tsr_partition_free(&q);
    graph_model_free(&m);
  }
  tsr_rowset_free(&rows);
}

// Algorithm 1 takes MinDegreeBody while size(G_i) < tau_mix n_max: with
// (n_max - 1) < tau_mix n_max that is every step, and mix is mindp.
static void test_mix_is_mindp(void) {
  Rng r = {555};
  TsrRowSet rows = {0};
  for (int t = 0; t < 20; t++) {
    TsrModel m;
    make_graph(&r, t % G_KINDS, 10 + rng_int(&r, 100), &m, &rows);
    int mb = 1 + rng_int(&r, 12);
    TsrPartitionOptions o = popts(TSR_PARTITION_MIX, TSR_REFINE_NONE, mb);
    o.mix_ratio = 1.0 - 0.5 / mb;
    TsrPartition p, q;
    tsr_partition_init(&p), tsr_partition_init(&q);
    ENSURE(tsr_partition_build_opts(&m, &rows, &o, &p) == 0);
    o.method = TSR_PARTITION_MINDP;
    ENSURE(tsr_partition_build_opts(&m, &rows, &o, &q) == 0);
    ENSURE(p.n_subsystems == q.n_subsystems);
    ENSURE(!memcmp(p.body_subsystem, q.body_subsystem, (size_t)m.n_bodies * sizeof(int)));
    // and with the gain rule in force, the invariants hold
    o.method = TSR_PARTITION_MIX;
    o.mix_ratio = 0.01;
    ENSURE(tsr_partition_build_opts(&m, &rows, &o, &p) == 0);
    ENSURE(partition_violations(&m, &rows, &p, mb, 1, "mix 0.01") == 0);
    tsr_partition_free(&p), tsr_partition_free(&q);
    graph_model_free(&m);
  }
  tsr_rowset_free(&rows);
}

// METIS: one part when the moving bodies fit in max_bodies (METIS is not
// called), no edges at all, no moving body.
static void test_metis_corners(void) {
  TsrRowSet rows = {0};
  TsrModel m;
  TsrPartition p;
  tsr_partition_init(&p);
  graph_model(10, &m);
  g_chain(10, 3, &rows);
  TsrPartitionOptions o = popts(TSR_PARTITION_METIS, TSR_REFINE_NONE, 10);
  ENSURE(tsr_partition_build_opts(&m, &rows, &o, &p) == 0);
  ENSURE(p.n_subsystems == 1 && p.n_interface_rows == 0);
  // no edges: 23 free bodies, rows to the world only, 5 per part
  graph_model_free(&m);
  tsr_rowset_clear(&rows);
  graph_model(23, &m);
  for (int k = 0; k < 23; k++) add_rows(&rows, k, -1, 2);
  o.max_bodies = 5;
  ENSURE(tsr_partition_build_opts(&m, &rows, &o, &p) == 0);
  ENSURE(partition_violations(&m, &rows, &p, 5, 0, "metis no edges") == 0);
  ENSURE(p.n_subsystems == 5 && p.n_interface_rows == 0 && max_size(&m, &p) <= 5);
  // every body fixed
  for (int k = 0; k < 23; k++) m.bodies[k].fixed = 1;
  ENSURE(tsr_partition_build_opts(&m, &rows, &o, &p) == 0);
  ENSURE(p.n_subsystems == 0);
  for (int k = 0; k < 23; k++) ENSURE(p.body_subsystem[k] == -1);
  // the chain of 10 with max 3: 4 parts of at most 3, a chain cut 3 times at least
  graph_model_free(&m);
  tsr_rowset_clear(&rows);
  graph_model(10, &m);
  g_chain(10, 3, &rows);
  o.max_bodies = 3;
  ENSURE(tsr_partition_build_opts(&m, &rows, &o, &p) == 0);
  ENSURE(partition_violations(&m, &rows, &p, 3, 0, "metis chain") == 0);
  ENSURE(p.n_subsystems == 4 && max_size(&m, &p) <= 3 && p.n_interface_rows >= 3 * 3);
  tsr_partition_free(&p);
  graph_model_free(&m);
  tsr_rowset_free(&rows);
}

// settings.partitioning: the new names and keys, the run-file label, errors.
static void test_model_keys(void) {
  const char *text =
      "format: tessera-model/1\n"
      "name: t\n"
      "settings:\n"
      "  partitioning: {method: mix, refine: fm, max_bodies: 6, mass_ratio: 5, mix_ratio: 0.25}\n"
      "bodies:\n"
      "  - {name: a, mass: 1, shape: {type: sphere, radius: 1}}\n";
  TsrModel m;
  TsrDiag d;
  tsr_diag_init(&d);
  ENSURE(tsr_model_load_string("m.yaml", text, strlen(text), NULL, 0, &m, &d) == 0);
  tsr_diag_free(&d);
  const TsrSettings *s = &m.settings;
  ENSURE(s->partitioning.method == TSR_PARTITION_MIX && s->partitioning.refine == TSR_REFINE_FM);
  ENSURE(s->partitioning.max_bodies == 6 && s->partitioning.mass_ratio == 5 && s->partitioning.mix_ratio == 0.25);
  char label[64];
  ENSURE(!strcmp(tsr_partition_label(s, label, sizeof label), "mix+fm"));
  tsr_model_free(&m);
  // defaults, and every method name round trip
  const char *sets[] = {"settings.partitioning.method=metis"};
  tsr_diag_init(&d);
  const char *plain =
      "format: tessera-model/1\nname: t\nbodies:\n  - {name: a, mass: 1, shape: {type: sphere, radius: 1}}\n";
  ENSURE(tsr_model_load_string("m.yaml", plain, strlen(plain), sets, 1, &m, &d) == 0);
  tsr_diag_free(&d);
  ENSURE(m.settings.partitioning.method == TSR_PARTITION_METIS && m.settings.partitioning.refine == TSR_REFINE_NONE);
  ENSURE(m.settings.partitioning.mass_ratio == 10 && m.settings.partitioning.mix_ratio == 0.5);
  ENSURE(!strcmp(tsr_partition_label(&m.settings, label, sizeof label), "metis"));
  m.settings.partitioning.method = TSR_PARTITION_SEMANTIC;
  m.settings.partitioning.refine = TSR_REFINE_KL;  // refinement applies to automatic methods only
  ENSURE(!strcmp(tsr_partition_label(&m.settings, label, sizeof label), "semantic"));
  tsr_model_free(&m);
  for (int i = 0; i < TSR_PARTITION_COUNT; i++)
    ENSURE(tsr_partition_method_from_name(tsr_partition_method_name((TsrPartitionMethod)i)) == i);
  // errors name the key and the choices
  const char *bad =
      "format: tessera-model/1\n"
      "name: t\n"
      "settings:\n"
      "  partitioning: {refine: lk, mass_ratio: 1, mix_ratio: 1.5}\n"
      "bodies:\n"
      "  - {name: a, mass: 1, shape: {type: sphere, radius: 1}}\n";
  tsr_diag_init(&d);
  ENSURE(tsr_model_load_string("m.yaml", bad, strlen(bad), NULL, 0, &m, &d) != 0);
  ENSURE(d.count == 3);
  for (int i = 0; i < d.count; i++) fprintf(stderr, "  %s\n", d.messages[i]);
  ENSURE(d.count > 0 &&
         strstr(d.messages[0], "m.yaml:4:26: error: settings.partitioning: unknown partition refinement 'lk'") &&
         strstr(d.messages[0], "expected one of: none, kl, fm"));
  ENSURE(d.count > 1 && strstr(d.messages[1], "mass_ratio (tau_MR) must be > 1"));
  ENSURE(d.count > 2 && strstr(d.messages[2], "mix_ratio (tau_mix) must lie in (0, 1)"));
  tsr_diag_free(&d);
}

// The examples after one step (joints, and the contacts of that step): the
// invariants for every method and refinement.
static void test_examples(void) {
  const char *names[] = {"hanging_chain.yaml", "bridge.yaml", "chain_drop.yaml", "rock_pile.yaml"};
  for (int e = 0; e < 4; e++) {
    TsrModel m;
    TsrWorld w;
    tsr_test_example_world(names[e], NULL, 0, &m, &w);
    tsr_world_step(&w);
    for (int a = 0; a < N_AUTO_METHODS; a++)
      for (int mb = 8; mb <= 16; mb *= 2) {
        int unrefined = -1;
        for (int rf = 0; rf < TSR_REFINE_COUNT; rf++) {
          TsrPartitionOptions o = popts(AUTO_METHODS[a], (TsrPartitionRefine)rf, mb);
          TsrPartition p;
          tsr_partition_init(&p);
          ENSURE(tsr_partition_build_opts(&m, &w.rows, &o, &p) == 0);
          char what[128];
          snprintf(what, sizeof what, "%s %s+%s max %d", names[e], tsr_partition_method_name(o.method),
                   tsr_partition_refine_name(o.refine), mb);
          int orphans_allowed = o.method != TSR_PARTITION_METIS && o.refine == TSR_REFINE_NONE;
          ENSURE_MSG(partition_violations(&m, &w.rows, &p, mb, orphans_allowed, what) == 0, "%s", what);
          if (o.method == TSR_PARTITION_METIS && o.refine == TSR_REFINE_NONE) ENSURE(max_size(&m, &p) <= mb);
          if (rf == TSR_REFINE_NONE) unrefined = p.n_interface_rows;
          ENSURE_MSG(p.n_interface_rows <= unrefined, "%s: %d > %d", what, p.n_interface_rows, unrefined);
          if (mb == 16)
            fprintf(stderr, "  %s: N = %d, |Gamma| = %d of %d rows\n", what, p.n_subsystems, p.n_interface_rows,
                    w.rows.count);
          tsr_partition_free(&p);
        }
      }
    tsr_world_free(&w);
    tsr_model_free(&m);
  }
}

int main(void) {
  RUN_TEST(test_chain_blocks);
  RUN_TEST(test_cliques_kept);
  RUN_TEST(test_mass_ratio);
  RUN_TEST(test_mix_is_mindp);
  RUN_TEST(test_metis_corners);
  RUN_TEST(test_model_keys);
  RUN_TEST(test_deterministic);
  RUN_TEST(test_invariants);
  RUN_TEST(test_examples);
  return TSR_TEST_RESULT();
}
