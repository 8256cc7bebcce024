// SPDX-License-Identifier: MIT
// A team of OpenMP threads for one solve, with loops that do not wait for
// late threads (team.h says why).
//
// A loop is published as a generation: the next item to claim is the low 32
// bits of one atomic word whose high 32 bits count the loops. A thread reads
// the word, then the loop's function, context and size, and claims a chunk
// with a compare-and-swap on the word. Before it writes the next loop's
// fields, thread 0 closes the word (CLOSED: nothing to claim), so a claim
// whose fields may be the next loop's fails: with every access sequentially
// consistent, a thread that read a field written after the close finds the
// word changed. (Without the close, a helper that read the old loop's word,
// exhausted, and the new loop's larger size claimed an item of the new loop
// under the old generation, and the item ran twice.) The thread that ran a
// chunk adds its items to done; the caller of the loop, once it finds no
// item left to claim, waits until done reaches the loop's size, that is for
// the items other threads claimed, never for a thread that claimed none.
#include "solvers/team.h"

#include <omp.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "util/clock.h"

// Idle thread: spin for SPIN_SECONDS, then yield the core until
// YIELD_SECONDS, then sleep SLEEP_NS at a time. A gap between two loops of
// a solve is mostly the interface MLCP (chain_wrap: ~0.02 ms, log_tower's
// collapse: up to ~10 ms); spinning through the short ones keeps the
// helpers ready, and yielding costs nothing when the core is ours and gives
// it away when another process waits for it. A helper asleep when a loop
// starts only misses its items.
#define SPIN_SECONDS 20e-6
#define YIELD_SECONDS 2e-3
#define SLEEP_NS 50000L

// The item index of a closed loop word: above any loop's size.
#define CLOSED 0xffffffffu

struct TsrTeam {
  _Atomic uint64_t next;  // loop generation << 32 | next item to claim
  _Atomic(TsrTeamItem) fn;
  _Atomic(void *) ctx;
  _Atomic int n, chunk;
  _Atomic int done;  // items of the current loop finished
  _Atomic int fail;  // OR of their results
  _Atomic int stop;  // the solve is over: helpers leave
  uint32_t gen;      // the current loop (thread 0 only)
  int size;
};

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

// One round of waiting; *since is when the wait began (0: not yet).
static void idle(double *since) {
  double now = tsr_now_seconds();
  if (*since == 0.0) *since = now;
  double waited = now - *since;
  if (waited < SPIN_SECONDS) {
    for (int k = 0; k < 64; k++) cpu_relax();
  } else if (waited < YIELD_SECONDS) {
    sched_yield();
  } else {
    struct timespec ts = {0, SLEEP_NS};
    nanosleep(&ts, NULL);
  }
}

// Claims the next chunk of the current loop: [*first, *last) with its
// function and context. 0 when none is left.
static int claim(TsrTeam *t, int *first, int *last, TsrTeamItem *fn, void **ctx) {
  uint64_t v = atomic_load(&t->next);
  for (;;) {
    if ((uint32_t)v == CLOSED) return 0;
    // The loop v names, or a later one (then the word was closed after v
    // was read, and the exchange below fails).
    int n = atomic_load(&t->n);
    int chunk = atomic_load(&t->chunk);
    TsrTeamItem f = atomic_load(&t->fn);
    void *c = atomic_load(&t->ctx);
    uint32_t idx = (uint32_t)v;
    if (idx >= (uint32_t)n) return 0;
    if (atomic_compare_exchange_weak(&t->next, &v, v + (uint64_t)chunk)) {
      *first = (int)idx;
      *last = n - (int)idx < chunk ? n : (int)idx + chunk;
      *fn = f, *ctx = c;
      return 1;
    }
  }
}

// Runs claimed chunks until none is left; returns whether it ran any.
static int work(TsrTeam *t, int thread) {
  int first, last, any = 0;
  TsrTeamItem fn;
  void *ctx;
  while (claim(t, &first, &last, &fn, &ctx)) {
    int fail = 0;
    for (int i = first; i < last; i++) fail |= fn(ctx, i, thread);
    if (fail) atomic_fetch_or(&t->fail, fail);
    atomic_fetch_add(&t->done, last - first);
    any = 1;
  }
  return any;
}

static void helper(TsrTeam *t, int thread) {
  double since = 0.0;
  while (!atomic_load(&t->stop)) {
    if (work(t, thread))
      since = 0.0;
    else
      idle(&since);
  }
}

int tsr_team_run(int nthreads, int (*body)(void *arg, TsrTeam *team), void *arg) {
  if (nthreads <= 1 || omp_in_parallel()) return body(arg, NULL);
  TsrTeam t;
  atomic_init(&t.next, 0);  // loop 0: no items
  atomic_init(&t.fn, NULL);
  atomic_init(&t.ctx, NULL);
  atomic_init(&t.n, 0);
  atomic_init(&t.chunk, 1);
  atomic_init(&t.done, 0);
  atomic_init(&t.fail, 0);
  atomic_init(&t.stop, 0);
  t.gen = 0;
  t.size = 1;
  int rc = 0;
#pragma omp parallel num_threads(nthreads)
  {
    int id = omp_get_thread_num();
    if (id == 0) {
      t.size = omp_get_num_threads();
      rc = body(arg, t.size > 1 ? &t : NULL);
      atomic_store(&t.stop, 1);
    } else {
      helper(&t, id);
    }
  }
  return rc;
}

int tsr_team_size(const TsrTeam *team) { return team ? team->size : 1; }

int tsr_team_for(TsrTeam *t, int nthreads, int n, int chunk, TsrTeamItem fn, void *ctx) {
  if (n <= 0) return 0;
  if (chunk < 1) chunk = 1;
  int fail = 0;
  if (nthreads <= 1) {  // on this thread (thread 0 of the team, or alone)
    for (int i = 0; i < n; i++) fail |= fn(ctx, i, 0);
    return fail;
  }
  if (!t) {
#pragma omp parallel for schedule(dynamic, chunk) num_threads(nthreads) reduction(| : fail)
    for (int i = 0; i < n; i++) fail |= fn(ctx, i, omp_get_thread_num());
    return fail;
  }
  t->gen++;
  atomic_store(&t->next, (uint64_t)t->gen << 32 | CLOSED);
  atomic_store(&t->fn, fn);
  atomic_store(&t->ctx, ctx);
  atomic_store(&t->n, n);
  atomic_store(&t->chunk, chunk);
  atomic_store(&t->done, 0);
  atomic_store(&t->fail, 0);
  atomic_store(&t->next, (uint64_t)t->gen << 32);
  work(t, 0);
  double since = 0.0;
  while (atomic_load(&t->done) < n) idle(&since);
  return atomic_load(&t->fail);
}
