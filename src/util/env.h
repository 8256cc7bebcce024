// SPDX-License-Identifier: MIT
// The TSR_NO_* / TSR_*_NO_* switches that turn a safety net or a heuristic off
// to measure what it does: on when set to anything but "" or "0". Read once,
// when the solver that owns them is created, never in the step loop.
#ifndef TSR_UTIL_ENV_H
#define TSR_UTIL_ENV_H

#include <stdlib.h>
#include <string.h>

static inline int tsr_env_flag(const char *name) {
  const char *e = getenv(name);
  return e && *e && strcmp(e, "0");
}

#endif
