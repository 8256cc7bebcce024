// SPDX-License-Identifier: MIT
// A team of OpenMP threads held for the length of one substructured solve,
// whose parallel loops (tsr_team_for) do not wait for a thread that has not
// started yet.
//
// Why: each `omp parallel for` ends in a barrier that waits for every thread
// of its team. A thread idle for longer than GOMP_SPINCOUNT (tessera sets
// 1,000, cli/main.c, so that two runs can share the cores) sleeps, and on a
// virtual machine waking it takes 50-100 us (measured on this project's
// 2-core VM: a 10 us region after a 500 us gap took 100-130 us). schur-bpp
// enters 5-10 short regions per step (the blocks of S_Gamma, the subsystem
// solves, at every coupling iteration), so on chain_wrap, whose whole
// direct solve takes 0.3 ms, two threads were slower than one.
//
// Here the loops of one solve run inside one parallel region. Its items are
// claimed one (or one chunk) at a time by whichever thread is free, and a
// loop ends when every claimed item is done: a helper that wakes late finds
// the items taken and waits for the next loop, so no loop waits for a wake
// up. Between loops the helpers spin briefly, then yield the core
// (sched_yield: another process's threads run there when the cores are
// shared), then poll with short sleeps. Which thread ran an item does not
// change its result: output stays bit-identical for any thread count.
#ifndef TSR_TEAM_H
#define TSR_TEAM_H

typedef struct TsrTeam TsrTeam;

// One item of a loop: item in [0, n), thread the calling thread's number in
// the team (0 the caller of tsr_team_run; per-thread scratch). Nonzero on
// failure (the loop's result ORs them).
typedef int (*TsrTeamItem)(void *ctx, int item, int thread);

// Runs body(arg, team) on the calling thread with nthreads - 1 helpers
// (OpenMP threads of one parallel region) and returns its result. With
// nthreads <= 1, inside a parallel region, or when the region got fewer
// threads, body gets team NULL and its loops run on the calling thread.
int tsr_team_run(int nthreads, int (*body)(void *arg, TsrTeam *team), void *arg);

// fn over items 0..n-1 in chunks of chunk items, each exactly once; returns
// the OR of fn's results. Called by thread 0 of team only. team NULL: an
// OpenMP loop of nthreads threads (dynamic schedule), or a plain loop for
// nthreads <= 1.
int tsr_team_for(TsrTeam *team, int nthreads, int n, int chunk, TsrTeamItem fn, void *ctx);

// The team's thread count (1 for NULL).
int tsr_team_size(const TsrTeam *team);

#endif
