// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "contact/contact.h"
#include "sim/world.h"

void tsr_cli_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("tessera: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

int tsr_cli_warn_overlaps(const TsrModel *m) {
  enum { SHOWN = 3 };
  TsrOverlap top[SHOWN];
  char err[256] = "";
  int n = tsr_contact_overlaps(m, top, SHOWN, err, sizeof err);
  if (n <= 0) return 0;
  for (int k = 0; k < n && k < SHOWN; k++) {
    const TsrBodyDef *a = &m->bodies[top[k].body[0]], *b = &m->bodies[top[k].body[1]];
    fprintf(stderr, "%s:%d:%d: warning: '%s' starts inside '%s' (overlap %.3g m, %.0f%% of the thinner shape)\n",
            m->path, b->mark.line, b->mark.col, b->name, a->name, top[k].depth, 100.0 * top[k].depth / top[k].size);
  }
  if (n > SHOWN) fprintf(stderr, "%s: warning: %d pairs of shapes start inside one another\n", m->path, n);
  fprintf(stderr,
          "%s: note: the first steps push overlapping bodies apart with large impulses, and where many share "
          "one place a step can take minutes (a missing `stride`?)\n",
          m->path);
  return n;
}

void tsr_cli_warn_output(const TsrModel *m) {
  long steps = m->settings.steps, every = m->settings.output.every;
  if (every > 1 && steps % every != 0)
    fprintf(stderr,
            "%s: warning: %ld steps is not a multiple of output.every = %ld: the last %ld steps are simulated but "
            "not written (frames are at steps 0, %ld, %ld, ...; OUTPUT.md)\n",
            m->path, steps, every, steps % every, every, 2 * every);
}

void tsr_cli_world_notice(const TsrModel *m, TsrWorld *w) {
  if (!w->notice_new) return;
  fprintf(stderr, "%s: warning: step %ld: %s\n", m->path, w->step, w->notice);
  w->notice_new = 0;
}

const char *tsr_cli_step_failure(const TsrWorld *w, int status) {
  if (status == 1) return w->error[0] ? w->error : "solver error";
  return "non-finite state";
}
