// SPDX-License-Identifier: MIT
// A request to stop every solve in progress, made by `tessera run`'s SIGINT /
// SIGTERM handler. The solvers' loops (block pivots, projected Newton steps,
// PGS sweeps, coupling iterations) test it before each iteration and, once it
// is set, end at once with what they have. Without it the interrupt waited for
// the step to finish: a model with a hundred bodies placed in one spot (30,000
// contact rows) took 9 minutes for its first step, with Ctrl-C pending.
// The result of an interrupted solve is meaningless; the caller discards the
// step (cli/cmd_run.c).
#ifndef TSR_STOP_H
#define TSR_STOP_H

#include <signal.h>

extern volatile sig_atomic_t tsr_stop_flag;

// Async-signal-safe: one store.
static inline void tsr_request_stop(void) { tsr_stop_flag = 1; }
static inline int tsr_stop_requested(void) { return tsr_stop_flag != 0; }

#endif
