// SPDX-License-Identifier: MIT
// ODE internal errors under a trap (ode_trap.h). The handler longjmps back
// to the tsr_ode_trapped frame of its own thread. ODE is C++, but its
// collision code raises no exceptions; a longjmp past its frames skips
// their destructors (array buffers), which the caller accepts by not using
// the objects again.
#include "contact/ode_trap.h"

#include <ode/ode.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  jmp_buf env;
  char *msg;
  size_t len;
} Trap;

static _Thread_local Trap *trap;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;

static void fault(int num, const char *msg, va_list ap) {
  Trap *t = trap;
  if (t) {
    int k = snprintf(t->msg, t->len, "ODE internal error %d: ", num);
    if (k >= 0 && (size_t)k < t->len) vsnprintf(t->msg + k, t->len - (size_t)k, msg, ap);
    trap = NULL;
    longjmp(t->env, 1);
  }
  // Outside a trap: ODE's own handlers print and abort (dDebug) or exit(1)
  // (dError); both end the process, here by abort.
  fprintf(stderr, "\nODE INTERNAL ERROR %d: ", num);
  vfprintf(stderr, msg, ap);
  fputc('\n', stderr);
  abort();
}

static void install(void) {
  dSetErrorHandler(fault);
  dSetDebugHandler(fault);
}

void tsr_ode_trap_install(void) { pthread_once(&install_once, install); }

int tsr_ode_trapped(int (*fn)(void *), void *ctx, char *msg, size_t len) {
  tsr_ode_trap_install();
  Trap t = {.msg = msg, .len = len};
  if (len) msg[0] = '\0';
  Trap *volatile outer = trap;  // nested traps: the inner one catches
  if (setjmp(t.env)) {
    trap = outer;
    return -2;
  }
  trap = &t;
  int rc = fn(ctx);
  trap = outer;
  return rc;
}
