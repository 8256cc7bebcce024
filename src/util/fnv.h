// SPDX-License-Identifier: MIT
// FNV-1a, 64 bits (Fowler, Noll, Vo): the hashes of index sets, impulses and
// names that tables and cycle checks key on. Deterministic across runs and
// thread counts.
#ifndef TSR_FNV_H
#define TSR_FNV_H

#include <stddef.h>
#include <stdint.h>

#define TSR_FNV_OFFSET 1469598103934665603ULL

// h continued over n bytes at p (start with TSR_FNV_OFFSET).
static inline uint64_t tsr_fnv1a(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t k = 0; k < n; k++) h = (h ^ b[k]) * 1099511628211ULL;
  return h;
}

// The hash of a string's bytes.
static inline uint64_t tsr_fnv1a_str(const char *s) {
  uint64_t h = TSR_FNV_OFFSET;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}

#endif
