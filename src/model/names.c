// SPDX-License-Identifier: MIT
// Enumerated names of the model format and "did you mean" suggestions.
#include "model/model_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

// Order follows TsrSolverType / TsrPartitionMethod.
const char *const tsr_solver_names[TSR_SOLVER_COUNT] = {"direct-bpp", "pgs",          "pgs-sm",
                                                        "schur-bpp",  "schur-pgs-sm", "fbic"};
const char *const tsr_partition_names[TSR_PARTITION_COUNT] = {"semantic", "mindp",      "none", "maxdp",
                                                              "bfs",      "mass-ratio", "mix",  "metis"};
const char *const tsr_refine_names[TSR_REFINE_COUNT] = {"none", "kl", "fm"};

const char *tsr_solver_type_name(TsrSolverType t) {
  if (t == TSR_SOLVER_LEMKE) return "lemke";
  return (int)t >= 0 && t < TSR_SOLVER_COUNT ? tsr_solver_names[t] : "unknown";
}

const char *tsr_partition_method_name(TsrPartitionMethod m) {
  return (int)m >= 0 && m < TSR_PARTITION_COUNT ? tsr_partition_names[m] : "unknown";
}

const char *tsr_partition_refine_name(TsrPartitionRefine r) {
  return (int)r >= 0 && r < TSR_REFINE_COUNT ? tsr_refine_names[r] : "unknown";
}

int tsr_partition_method_is_automatic(TsrPartitionMethod m) {
  return m != TSR_PARTITION_SEMANTIC && m != TSR_PARTITION_NONE && (int)m >= 0 && m < TSR_PARTITION_COUNT;
}

const char *tsr_partition_label(const TsrSettings *s, char *buf, size_t size) {
  const char *m = tsr_partition_method_name(s->partitioning.method);
  if (s->partitioning.refine != TSR_REFINE_NONE && tsr_partition_method_is_automatic(s->partitioning.method))
    snprintf(buf, size, "%s+%s", m, tsr_partition_refine_name(s->partitioning.refine));
  else
    snprintf(buf, size, "%s", m);
  return buf;
}

int tsr_solver_type_from_name(const char *name) {
  for (int i = 0; name && i < TSR_SOLVER_COUNT; i++)
    if (strcmp(name, tsr_solver_names[i]) == 0) return i;
  return -1;
}

int tsr_partition_method_from_name(const char *name) {
  for (int i = 0; name && i < TSR_PARTITION_COUNT; i++)
    if (strcmp(name, tsr_partition_names[i]) == 0) return i;
  return -1;
}

int tsr_partition_refine_from_name(const char *name) {
  for (int i = 0; name && i < TSR_REFINE_COUNT; i++)
    if (strcmp(name, tsr_refine_names[i]) == 0) return i;
  return -1;
}

// Optimal string alignment distance (Levenshtein plus adjacent
// transpositions, the commonest typo). Words longer than 63 characters are
// never close to a key, so they get cap + 1 without work.
int tsr_model_edit_distance(const char *a, const char *b, int cap) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 63 || lb > 63) return cap + 1;
  if ((int)(la > lb ? la - lb : lb - la) > cap) return cap + 1;
  int d[64][64];
  for (size_t i = 0; i <= la; i++) d[i][0] = (int)i;
  for (size_t j = 0; j <= lb; j++) d[0][j] = (int)j;
  for (size_t i = 1; i <= la; i++) {
    for (size_t j = 1; j <= lb; j++) {
      int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
      int v = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
      if (d[i - 1][j - 1] + cost < v) v = d[i - 1][j - 1] + cost;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
        v = d[i - 2][j - 2] + 1;
      d[i][j] = v;
    }
  }
  return d[la][lb];
}

const char *tsr_model_suggest(const char *word, const char *const *candidates, int n) {
  // A suggestion must be closer than a third of the word (at least one
  // edit, at most three): "mas" -> "mass", but not "x" -> "y".
  size_t len = strlen(word);
  int cap = (int)(len / 3);
  if (cap < 1) cap = 1;
  if (cap > 3) cap = 3;
  const char *best = NULL;
  int best_d = cap + 1;
  for (int i = 0; i < n; i++) {
    if (!candidates[i]) continue;
    int dist = tsr_model_edit_distance(word, candidates[i], cap);
    if (dist < best_d && dist < (int)strlen(candidates[i])) {
      best_d = dist;
      best = candidates[i];
    }
  }
  return best;
}

const char *tsr_model_did_you_mean(char *buf, size_t size, const char *word, const char *const *candidates, int n) {
  const char *s = tsr_model_suggest(word, candidates, n);
  if (s)
    snprintf(buf, size, " (did you mean '%s'?)", s);
  else if (size)
    buf[0] = '\0';
  return buf;
}
