// SPDX-License-Identifier: MIT
// Plain decimal numbers, as a user writes them on a command line, in an
// environment variable or in YAML: [+-]digits[.digits][(e|E)[+-]digits]
// (".5" and "5." too). strtod alone also takes hex floats ("0x10" is 16),
// "inf", "nan" and "infinity", which a duration, a time or a memory limit
// written that way almost certainly is not meant to be.
#ifndef TSR_DECIMAL_H
#define TSR_DECIMAL_H

#include <stdlib.h>

// 1 and *out = the value when s is such a number in full (it may overflow to
// +-inf: callers check finiteness where they need it), else 0.
static inline int tsr_parse_decimal(const char *s, double *out) {
  const char *p = s;
  int digits = 0;
  if (*p == '+' || *p == '-') p++;
  while (*p >= '0' && *p <= '9') p++, digits++;
  if (*p == '.') {
    p++;
    while (*p >= '0' && *p <= '9') p++, digits++;
  }
  if (!digits) return 0;
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '+' || *p == '-') p++;
    if (!(*p >= '0' && *p <= '9')) return 0;
    while (*p >= '0' && *p <= '9') p++;
  }
  if (*p) return 0;
  *out = strtod(s, NULL);
  return 1;
}

#endif
