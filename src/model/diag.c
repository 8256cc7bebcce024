// SPDX-License-Identifier: MIT
// Diagnostics about user input. Every message about a model goes through
// tsr_diag_error so the format "FILE:LINE:COL: error: WHAT" is made in one
// place (tests check it byte for byte).
#include "model/model.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tsr_diag_init(TsrDiag *d) { memset(d, 0, sizeof *d); }

static void diag_push(TsrDiag *d, char *msg) {
  if (!msg) return;
  if (d->count == d->cap) {
    int cap = d->cap ? 2 * d->cap : 16;
    char **p = realloc(d->messages, (size_t)cap * sizeof *p);
    if (!p) {
      free(msg);
      return;
    }
    d->messages = p;
    d->cap = cap;
  }
  d->messages[d->count++] = msg;
}

void tsr_diag_error(TsrDiag *d, const char *file, const TsrMark *mark, const char *fmt, ...) {
  char what[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (!file) file = "<input>";
  size_t size = strlen(file) + strlen(what) + 64;
  char *msg = malloc(size);
  if (!msg) return;
  if (mark)
    snprintf(msg, size, "%s:%d:%d: error: %s", file, mark->line, mark->col, what);
  else
    snprintf(msg, size, "%s: error: %s", file, what);
  diag_push(d, msg);
}

void tsr_diag_free(TsrDiag *d) {
  for (int i = 0; i < d->count; i++) free(d->messages[i]);
  free(d->messages);
  memset(d, 0, sizeof *d);
}
