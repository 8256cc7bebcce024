// SPDX-License-Identifier: MIT
// Growable arrays: after tsr_grow(&a, &cap, need, sizeof *a) == 0, a holds at
// least need elements (grown by half plus 16, so a step loop that reuses its
// arrays stops allocating once they have reached their size). The contents
// are kept (realloc). Returns -1 when out of memory (a and cap unchanged).
#ifndef TSR_UTIL_GROW_H
#define TSR_UTIL_GROW_H

#include <stdlib.h>

static inline int tsr_grow(void **a, int *cap, int need, size_t elem) {
  if (need <= *cap && *a) return 0;
  int n = need + need / 2 + 16;
  void *q = realloc(*a, (size_t)n * elem);
  if (!q) return -1;
  *a = q;
  *cap = n;
  return 0;
}

// The same with a size_t count, for arrays whose size is a product of two
// dimensions (dense blocks; an int could overflow).
static inline int tsr_grow_size(void **a, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap && *a) return 0;
  size_t n = need + need / 2 + 16;
  void *q = realloc(*a, n * elem);
  if (!q) return -1;
  *a = q;
  *cap = n;
  return 0;
}

#endif
