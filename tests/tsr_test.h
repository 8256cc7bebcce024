// SPDX-License-Identifier: MIT
// A tiny test framework in the spirit of Box2D's: each test file is one
// executable run by `meson test`; a failed ENSURE prints where and why and
// marks the test failed (it keeps going, so one run reports every failure).
// TSR_SKIP exits with 77, which meson reports as SKIP.
#ifndef TSR_TEST_H
#define TSR_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int tsr_test_failures = 0;

#define ENSURE(cond)                                                            \
  do {                                                                          \
    if (!(cond)) {                                                              \
      fprintf(stderr, "%s:%d: ENSURE failed: %s\n", __FILE__, __LINE__, #cond); \
      tsr_test_failures++;                                                      \
    }                                                                           \
  } while (0)

#define ENSURE_MSG(cond, ...)                                                   \
  do {                                                                          \
    if (!(cond)) {                                                              \
      fprintf(stderr, "%s:%d: ENSURE failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                             \
      fprintf(stderr, "\n");                                                    \
      tsr_test_failures++;                                                      \
    }                                                                           \
  } while (0)

// |a - b| <= tol, with both values printed on failure.
#define ENSURE_NEAR(a, b, tol)                                                                                         \
  do {                                                                                                                 \
    double tsr_a_ = (a), tsr_b_ = (b), tsr_t_ = (tol);                                                                 \
    if (!(fabs(tsr_a_ - tsr_b_) <= tsr_t_)) {                                                                          \
      fprintf(stderr, "%s:%d: ENSURE_NEAR failed: %s = %.17g, %s = %.17g, |diff| = %.3g > %.3g\n", __FILE__, __LINE__, \
              #a, tsr_a_, #b, tsr_b_, fabs(tsr_a_ - tsr_b_), tsr_t_);                                                  \
      tsr_test_failures++;                                                                                             \
    }                                                                                                                  \
  } while (0)

#define RUN_TEST(fn)                                                                     \
  do {                                                                                   \
    int tsr_before_ = tsr_test_failures;                                                 \
    fn();                                                                                \
    fprintf(stderr, "%s %s\n", tsr_test_failures == tsr_before_ ? "ok  " : "FAIL", #fn); \
  } while (0)

#define TSR_TEST_RESULT() (tsr_test_failures ? 1 : 0)

#define TSR_SKIP(...)             \
  do {                            \
    fprintf(stderr, "SKIP: ");    \
    fprintf(stderr, __VA_ARGS__); \
    fprintf(stderr, "\n");        \
    exit(77);                     \
  } while (0)

#endif
