// SPDX-License-Identifier: MIT
// The Siconos test problems under ../shared/external (their README gives the
// formats), listed for the tests that read them in place.
#ifndef TSR_SICONOS_FILES_H
#define TSR_SICONOS_FILES_H

#include <dirent.h>
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

#endif
