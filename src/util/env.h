// SPDX-License-Identifier: MIT
// The TSR_NO_* / TSR_*_NO_* switches that turn a safety net or a heuristic off
// to measure what it does: on when set to anything but "" or "0". Read once,
// when the solver that owns them is created, never in the step loop.
// tsr_env_number: a documented numeric setting (TSR_RECOLLIDE,
// TSR_DENSE_ROWS, TSR_MEMORY_LIMIT), read strictly: a value that is not a
// number in range is an error the caller reports, not atoi's 0.
#ifndef TSR_UTIL_ENV_H
#define TSR_UTIL_ENV_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/decimal.h"

static inline int tsr_env_flag(const char *name) {
  const char *e = getenv(name);
  return e && *e && strcmp(e, "0");
}

// *out = the variable's value, or dflt when it is unset or empty. Returns 0,
// or -1 with err when the value is not a finite number in [lo, hi] (a whole
// number when integer).
static inline int tsr_env_number(const char *name, double dflt, double lo, double hi, int integer, double *out,
                                 char *err, int errlen) {
  const char *e = getenv(name);
  *out = dflt;
  if (!e || !*e) return 0;
  // A copy without the blanks around it (a shell script's TSR_X=" 2e8 ").
  char buf[64];
  while (*e == ' ' || *e == '\t') e++;
  size_t len = strlen(e);
  while (len > 0 && (e[len - 1] == ' ' || e[len - 1] == '\t')) len--;
  double v = NAN;
  if (len < sizeof buf) {
    memcpy(buf, e, len);
    buf[len] = '\0';
    if (!tsr_parse_decimal(buf, &v)) v = NAN;
  }
  if (!isfinite(v) || v < lo || v > hi || (integer && v != floor(v))) {
    snprintf(err, (size_t)errlen, "%s='%.40s': not %s from %.17g to %.17g", name, e,
             integer ? "a whole number" : "a number", lo, hi);
    return -1;
  }
  *out = v;
  return 0;
}

#endif
