// SPDX-License-Identifier: MIT
// Partition invariants (seed 000 §6) for semantic, mindp and none, on the
// examples and on random graphs: every moving body in exactly one subsystem,
// fixed bodies -1, no empty subsystem, interface rows exactly the rows whose
// bodies lie in different subsystems, mindp within max_bodies except for
// orphan merges; plus the rules for ungrouped bodies, islands and orphans.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition/partition.h"
#include "physics/sim_helpers.h"
#include "sub_util.h"
#include "tsr_test.h"

static void check_model_file(const char *name) {
  TsrModel m;
  TsrWorld w;
  tsr_test_example_world(name, NULL, 0, &m, &w);
  tsr_world_step(&w);  // fills the rows
  const TsrPartitionMethod methods[] = {TSR_PARTITION_SEMANTIC, TSR_PARTITION_MINDP, TSR_PARTITION_NONE};
  for (int a = 0; a < 3; a++)
    for (int mb = 4; mb <= 32; mb *= 2) {
      TsrPartition p;
      tsr_partition_init(&p);
      ENSURE(tsr_partition_build(&m, &w.rows, methods[a], mb, &p) == 0);
      char what[128];
      snprintf(what, sizeof what, "%s %s max %d", name, tsr_partition_method_name(methods[a]), mb);
      ENSURE(partition_violations(&m, &w.rows, &p, mb, methods[a] == TSR_PARTITION_MINDP, what) == 0);
      if (methods[a] == TSR_PARTITION_NONE) ENSURE(p.n_subsystems == 1 && p.n_interface_rows == 0);
      if (methods[a] == TSR_PARTITION_MINDP) ENSURE(p.n_subsystems >= (m.n_bodies - 1) / (mb + 8));
      if (mb == 16)
        fprintf(stderr, "  %s: N = %d, |Gamma| = %d of %d rows\n", what, p.n_subsystems, p.n_interface_rows,
                w.rows.count);
      // re-partitioning into the same struct gives the same result
      TsrPartition q;
      tsr_partition_init(&q);
      tsr_partition_build(&m, &w.rows, methods[a], mb, &q);
      ENSURE(tsr_partition_build(&m, &w.rows, methods[a], mb, &p) == 0);
      ENSURE(!memcmp(p.body_subsystem, q.body_subsystem, (size_t)m.n_bodies * sizeof(int)));
      tsr_partition_free(&q);
      tsr_partition_free(&p);
    }
  tsr_world_free(&w);
  tsr_model_free(&m);
}

static void test_examples(void) {
  check_model_file("hanging_chain.yaml");
  check_model_file("bridge.yaml");
}

// The hanging chain's semantic groups: 50 links in groups of 12 plus the load.
static void test_semantic_chain(void) {
  TsrModel m;
  TsrWorld w;
  tsr_test_example_world("hanging_chain.yaml", NULL, 0, &m, &w);
  tsr_world_step(&w);
  TsrPartition p;
  tsr_partition_init(&p);
  ENSURE(tsr_partition_build(&m, &w.rows, TSR_PARTITION_SEMANTIC, 16, &p) == 0);
  ENSURE(p.n_subsystems == 6);  // chain/0..chain/4 and load
  ENSURE(p.body_subsystem[0] == 0 && p.body_subsystem[12] == 1 && p.body_subsystem[49] == 4);
  ENSURE(p.body_subsystem[50] == 5);
  tsr_partition_free(&p);
  tsr_world_free(&w);
  tsr_model_free(&m);
}

static void test_random_graphs(void) {
  Rng r = {12345};
  for (int t = 0; t < 40; t++) {
    int n = 5 + rng_int(&r, 200), nf = rng_int(&r, 3);
    TsrRowSet rows = {0};
    random_rows(&r, n, nf, 1 + rng_int(&r, 3), rng_int(&r, n), 1e-3, 1e-3, &rows);
    // drop some rows so the graph has islands
    for (int i = 0; i < rows.count; i++)
      if (rng_uniform(&r) < 0.1) rows.rows[i].body[0] = -1;
    TsrModel m;
    fake_model(n, nf, 1 + rng_int(&r, 20), &m);
    for (int a = 0; a < 3; a++) {
      int mb = 1 + rng_int(&r, 24);
      TsrPartition p;
      tsr_partition_init(&p);
      ENSURE(tsr_partition_build(&m, &rows, (TsrPartitionMethod)a, mb, &p) == 0);
      char what[64];
      snprintf(what, sizeof what, "random %d method %d max %d", t, a, mb);
      ENSURE(partition_violations(&m, &rows, &p, mb, a == TSR_PARTITION_MINDP, what) == 0);
      tsr_partition_free(&p);
    }
    fake_model_free(&m);
    tsr_rowset_free(&rows);
  }
}

// Ungrouped bodies: one subsystem per connected component of them.
// Islands under mindp: packed, no interface rows between islands.
static void test_rules(void) {
  // 10 bodies: 0-1-2 grouped "a"; 3-4 ungrouped and linked; 5 ungrouped alone;
  // 6..9 a separate chain (island), ungrouped.
  TsrModel m;
  fake_model(10, 0, 0, &m);
  m.bodies[0].group = strdup("a"), m.bodies[1].group = strdup("a"), m.bodies[2].group = strdup("a");
  TsrRowSet rows = {0};
  const int e[][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {6, 7}, {7, 8}, {8, 9}};
  for (int k = 0; k < 8; k++) {
    TsrRow *row = tsr_rowset_push(&rows);
    row->body[0] = e[k][0], row->body[1] = e[k][1];
  }
  rows.rows[4].body[1] = -1;  // 4-world: 5 is now alone
  TsrPartition p;
  tsr_partition_init(&p);
  ENSURE(tsr_partition_build(&m, &rows, TSR_PARTITION_SEMANTIC, 16, &p) == 0);
  ENSURE(p.n_subsystems == 4);  // a, {3,4}, {5}, {6..9}
  ENSURE(p.body_subsystem[3] == 1 && p.body_subsystem[4] == 1 && p.body_subsystem[5] == 2);
  ENSURE(p.body_subsystem[6] == 3 && p.body_subsystem[9] == 3);
  ENSURE(p.n_interface_rows == 1);  // 2-3
  // mindp with max 5: islands {0..4} (+5 isolated) and {6..9} pack into two
  // groups, no interface rows.
  ENSURE(tsr_partition_build(&m, &rows, TSR_PARTITION_MINDP, 5, &p) == 0);
  ENSURE(partition_violations(&m, &rows, &p, 5, 1, "rules mindp") == 0);
  fprintf(stderr, "  rules mindp: N = %d, |Gamma| = %d\n", p.n_subsystems, p.n_interface_rows);
  ENSURE(p.n_subsystems == 2);
  // Orphans: a star 0-{1,2,3}, chain 3-4; max 2 -> leaves become orphans.
  tsr_partition_free(&p);
  tsr_rowset_free(&rows);
  fake_model_free(&m);
  fake_model(6, 0, 0, &m);
  const int s[][2] = {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {4, 5}};
  for (int k = 0; k < 5; k++) {
    TsrRow *row = tsr_rowset_push(&rows);
    row->body[0] = s[k][0], row->body[1] = s[k][1];
  }
  tsr_partition_init(&p);
  ENSURE(tsr_partition_build(&m, &rows, TSR_PARTITION_MINDP, 2, &p) == 0);
  ENSURE(partition_violations(&m, &rows, &p, 2, 1, "orphans") == 0);
  fprintf(stderr, "  orphans: N = %d:", p.n_subsystems);
  for (int k = 0; k < 6; k++) fprintf(stderr, " %d", p.body_subsystem[k]);
  fprintf(stderr, "\n");
  int alone = 0;  // no subsystem of a single body with a neighbour in another one
  for (int g = 0; g < p.n_subsystems; g++) {
    int cnt = 0;
    for (int k = 0; k < 6; k++) cnt += p.body_subsystem[k] == g;
    alone += cnt == 1;
  }
  ENSURE(alone == 0);
  tsr_partition_free(&p);
  tsr_rowset_free(&rows);
  fake_model_free(&m);
}

int main(void) {
  RUN_TEST(test_rules);
  RUN_TEST(test_random_graphs);
  RUN_TEST(test_semantic_chain);
  RUN_TEST(test_examples);
  return TSR_TEST_RESULT();
}
