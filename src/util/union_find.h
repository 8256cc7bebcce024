// SPDX-License-Identifier: MIT
// Union-find over 0..n-1 in an int array up[] (up[i] == i at a root), for
// grouping rows or subsystems into connected sets.
#ifndef TSR_UTIL_UNION_FIND_H
#define TSR_UTIL_UNION_FIND_H

// Root of i's set, with path halving.
static inline int tsr_uf_root(int *up, int i) {
  while (up[i] != i) i = up[i] = up[up[i]];
  return i;
}

#endif
