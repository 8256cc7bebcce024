// SPDX-License-Identifier: MIT
// Names and folders of the files the commands write besides the run file
// (the VTK export, the MLCP dump): out_files.h.
#include "io/out_files.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// A file name holds at most 255 bytes (NAME_MAX); NAME_contacts.pvd.tmp
// adds 17 to NAME (the VTK export's longest).
#define SAFE_NAME_MAX 200

// A name cut to SAFE_NAME_MAX keeps its first SAFE_NAME_MAX - 9 characters
// and ends in "-" and 8 hex digits of a hash of the whole name, so two long
// names that differ only past the cut export into different folders.
#define SAFE_NAME_HASHED (SAFE_NAME_MAX - 9)

void tsr_io_safe_name(const char *name, char *out, size_t len) {
  size_t k = 0;
  const char *src = name ? name : "";
  if (len > SAFE_NAME_MAX + 1) len = SAFE_NAME_MAX + 1;
  for (const char *c = src; *c && k + 1 < len; c++) {
    int ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
             *c == '-' || (*c == '.' && k > 0);
    out[k++] = ok ? *c : '_';
  }
  out[k] = '\0';
  if (!k) snprintf(out, len, "run");
  if (strlen(src) > SAFE_NAME_MAX && len == SAFE_NAME_MAX + 1) {
    uint32_t h = 2166136261u;  // FNV-1a
    for (const char *c = src; *c; c++) h = (h ^ (uint8_t)*c) * 16777619u;
    snprintf(out + SAFE_NAME_HASHED, len - SAFE_NAME_HASHED, "-%08x", (unsigned)h);
  }
}

int tsr_io_make_dir(const char *dir, char *err, int errlen) {
  size_t len = strlen(dir);
  char *p = malloc(len + 1);
  if (!p) {
    snprintf(err, (size_t)errlen, "%s: out of memory", dir);
    return -1;
  }
  memcpy(p, dir, len + 1);
  int rc = 0;
  for (size_t i = 1; i <= len && !rc; i++) {
    if (p[i] != '/' && p[i] != '\0') continue;
    char saved = p[i];
    p[i] = '\0';
    struct stat st;
    if (stat(p, &st) == 0) {
      if (!S_ISDIR(st.st_mode)) {
        snprintf(err, (size_t)errlen, "%s: not a directory", p);
        rc = -1;
      }
    } else if (mkdir(p, 0777) != 0 && errno != EEXIST) {
      snprintf(err, (size_t)errlen, "%s: cannot create directory: %s", p, strerror(errno));
      rc = -1;
    }
    p[i] = saved;
  }
  free(p);
  return rc;
}
