// SPDX-License-Identifier: MIT
// A request to stop every solve in progress, made by `tessera run`'s SIGINT /
// SIGTERM handler. The solvers' loops (block pivots, projected Newton steps,
// PGS sweeps, coupling iterations) test it before each iteration and, once it
// is set, end at once with what they have. Without it the interrupt waited for
// the step to finish: a model with a hundred bodies placed in one spot (30,000
// contact rows) took 9 minutes for its first step, with Ctrl-C pending.
// The result of an interrupted solve is meaningless; the caller discards the
// step (cli/cmd_run.c). A factorisation refused for its cost (linalg/chol.h)
// ends the solve in progress the same way, through the same test; it fails
// the step (tsr_solver_solve returns TSR_SOLVER_REFUSED), where an interrupt
// ends the command.
#ifndef TSR_STOP_H
#define TSR_STOP_H

#include <signal.h>

#include "linalg/chol.h"

extern volatile sig_atomic_t tsr_stop_flag;

// Async-signal-safe: one store.
static inline void tsr_request_stop(void) { tsr_stop_flag = 1; }
// The solvers' test: an interrupt, or a factorisation refused for its cost
// (linalg/chol.h), which fails the solve in progress (tsr_solver_solve).
static inline int tsr_stop_requested(void) { return tsr_stop_flag != 0 || tsr_chol_refused(); }
// The commands' test: an interrupt only.
static inline int tsr_interrupt_requested(void) { return tsr_stop_flag != 0; }

#endif
