// SPDX-License-Identifier: MIT
// The Siconos test problems under ../shared/external (their README gives the
// formats), listed for the tests that read them in place.
#ifndef TSR_SICONOS_FILES_H
#define TSR_SICONOS_FILES_H

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int siconos_cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

// The .dat files of FOLDER (LCP, MLCP or Relay) under SHARED: their folder in
// dir, their names (malloc'd, sorted, at most cap; the caller frees each) in
// names. Returns how many, or -1 when the folder cannot be opened.
static inline int siconos_files(const char *shared, const char *folder, char *dir, size_t dirlen, char **names,
                                int cap) {
  snprintf(dir, dirlen, "%s/external/siconos/numerics/src/%s/test/data", shared, folder);
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < cap)
    if (strstr(e->d_name, ".dat") && (names[n] = strdup(e->d_name))) n++;
  closedir(d);
  qsort(names, (size_t)n, sizeof *names, siconos_cmp_name);
  return n;
}

// How far z is from a known solution printed with 6 significant digits (the
// README's), entry by entry in units of what that printing allows: half a
// unit of the 6th digit, at most 5e-6 |known_i|, plus 1e-12 of the largest
// entry for the entries printed as 0 and for round-off. At most 1 matches.
static inline double siconos_known_error(const double *z, const double *known, int n) {
  double kmax = 0, worst = 0;
  for (int i = 0; i < n; i++) kmax = fmax(kmax, fabs(known[i]));
  for (int i = 0; i < n; i++)
    worst = fmax(worst, fabs(z[i] - known[i]) / (5e-6 * fabs(known[i]) + 1e-12 * fmax(1.0, kmax)));
  return worst;
}

#endif
