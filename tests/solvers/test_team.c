// SPDX-License-Identifier: MIT
// solvers/team.c: every item of every loop runs exactly once, within its
// loop (none runs after tsr_team_for returned, none under another loop's
// function), on a thread numbered below the team's size, and the loop
// returns the OR of its items' results. Loop sizes alternate between small
// and large: a helper that read an exhausted loop's position together with
// the next loop's size once claimed an item of the next loop twice.
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "solvers/team.h"
#include "tsr_test.h"

#define MAX_ITEMS 400
#define LOOPS 3000

typedef struct {
  _Atomic int count[MAX_ITEMS];
  int n;            // this loop's size
  int id;           // this loop's number
  int size;         // the team's threads
  _Atomic int bad;  // items out of range, on a bad thread, or of a finished loop
} Loop;

static int item(void *ctx, int i, int thread) {
  Loop *l = ctx;
  if (i < 0 || i >= l->n || thread < 0 || thread >= l->size) atomic_fetch_add(&l->bad, 1);
  if (i >= 0 && i < MAX_ITEMS) atomic_fetch_add(&l->count[i], 1);
  // A result whose OR over the loop is known: bit (i mod 5).
  return 1 << (i % 5);
}

static uint32_t next_rand(uint32_t *s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}

typedef struct {
  int loops_ok, wrong_or;
  int seen_size;
} Run;

static int body(void *arg, TsrTeam *team) {
  Run *r = arg;
  r->seen_size = tsr_team_size(team);
  // Two loop records used in turn: an item of loop k that ran late, during
  // loop k + 1, would count in the first one after it was checked.
  static Loop rec[2];
  uint32_t seed = 12345;
  for (int k = 0; k < LOOPS; k++) {
    Loop *l = &rec[k & 1];
    for (int i = 0; i < MAX_ITEMS; i++) atomic_store(&l->count[i], 0);
    atomic_store(&l->bad, 0);
    // small, large, small, ...; sometimes empty or a single item
    int n = (k & 1) ? (int)(next_rand(&seed) % MAX_ITEMS) : (int)(next_rand(&seed) % 4);
    int chunk = (next_rand(&seed) % 3 == 0) ? 16 : 1;
    l->n = n, l->id = k, l->size = tsr_team_size(team);
    int res = tsr_team_for(team, l->size, n, chunk, item, l);
    int want = 0;
    for (int i = 0; i < n && i < 5; i++) want |= 1 << i;
    r->wrong_or += res != want;
    int ok = atomic_load(&l->bad) == 0;
    for (int i = 0; i < MAX_ITEMS; i++) ok &= atomic_load(&l->count[i]) == (i < n);
    // the other record (loop k - 1) must not have changed since its check
    if (k > 0) {
      Loop *o = &rec[(k - 1) & 1];
      for (int i = 0; i < MAX_ITEMS; i++) ok &= atomic_load(&o->count[i]) == (i < o->n);
    }
    r->loops_ok += ok;
  }
  return 42;
}

static void test_team_loops(void) {
  for (int threads = 1; threads <= 4; threads++) {
    Run r = {0};
    int rc = tsr_team_run(threads, body, &r);
    ENSURE_MSG(rc == 42, "%d threads: body's result %d", threads, rc);
    ENSURE_MSG(r.loops_ok == LOOPS, "%d threads: %d of %d loops ran every item once", threads, r.loops_ok, LOOPS);
    ENSURE_MSG(r.wrong_or == 0, "%d threads: %d loops returned a wrong OR", threads, r.wrong_or);
    ENSURE_MSG(r.seen_size >= 1 && r.seen_size <= threads, "%d threads: team of %d", threads, r.seen_size);
    fprintf(stderr, "  %d threads (team of %d): %d loops\n", threads, r.seen_size, LOOPS);
  }
}

// Without a team: an OpenMP loop, or a plain one.
static void test_no_team(void) {
  static Loop l;
  for (int threads = 1; threads <= 3; threads++) {
    for (int i = 0; i < MAX_ITEMS; i++) atomic_store(&l.count[i], 0);
    atomic_store(&l.bad, 0);
    l.n = 333, l.size = threads;
    int res = tsr_team_for(NULL, threads, l.n, 7, item, &l);
    ENSURE(res == 31);
    ENSURE(atomic_load(&l.bad) == 0);
    int once = 1;
    for (int i = 0; i < MAX_ITEMS; i++) once &= atomic_load(&l.count[i]) == (i < l.n);
    ENSURE_MSG(once, "%d threads", threads);
  }
}

int main(void) {
  RUN_TEST(test_team_loops);
  RUN_TEST(test_no_team);
  return TSR_TEST_RESULT();
}
