// SPDX-License-Identifier: MIT
// ODE's internal errors as errors of the step, not a crash. ODE reports a
// failed internal check (dDebug, dError: a zero vector normalised, a locked
// space changed) by printing it and calling abort(), which killed a run
// mid-step and left its HDF5 file unclosed. With the trap in place, calls
// made under tsr_ode_trapped return -2 with ODE's message instead; calls
// made outside it fail as before.
#ifndef TSR_CONTACT_ODE_TRAP_H
#define TSR_CONTACT_ODE_TRAP_H

#include <stddef.h>

// Installs the handlers (once per process; ODE's handlers are global).
void tsr_ode_trap_install(void);

// Runs fn(ctx) on this thread; returns its result, or -2 when ODE raised
// an internal error in it, with ODE's message in msg. fn is left where ODE
// stopped: memory it allocated may leak, and ODE objects it was using (a
// space it was colliding stays locked) must not be used again.
int tsr_ode_trapped(int (*fn)(void *), void *ctx, char *msg, size_t len);

#endif
