// SPDX-License-Identifier: MIT
// Wall time for the step statistics, flush cadence and progress lines.
#ifndef TSR_CLOCK_H
#define TSR_CLOCK_H

#include <time.h>

// Seconds on the monotonic clock (differences only are meaningful).
static inline double tsr_now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
