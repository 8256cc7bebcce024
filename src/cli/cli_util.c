// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>

#include "cli/commands.h"

void tsr_cli_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("tessera: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}
