// SPDX-License-Identifier: MIT
// ODE's internal errors under the trap (src/contact/ode_trap.h): an
// internal error raised by ODE (dDebug, as its failed checks do) inside
// tsr_ode_trapped returns -2 with ODE's message instead of aborting the
// process, also from inside ODE's own frames (a space changed while it
// collides); a call without one returns its own result; ODE stays usable
// for new objects afterwards; an inner trap catches before an outer one.
#include <ode/ode.h>
#include <stdio.h>
#include <string.h>

#include "contact/ode_trap.h"
#include "tsr_test.h"

static int raise_internal_error(void *ctx) {
  (void)ctx;
  dDebug(7, "planted check %d failed", 42);  // as dIASSERT does; does not return
}

static int returns_five(void *ctx) {
  (void)ctx;
  return 5;
}

// Two overlapping spheres: dCollide's count.
static int collide_spheres(void *ctx) {
  (void)ctx;
  dGeomID a = dCreateSphere(0, 1.0), b = dCreateSphere(0, 1.0);
  dGeomSetPosition(b, 1.5, 0, 0);
  dContactGeom g;
  int n = dCollide(a, b, 1, &g, sizeof g);
  dGeomDestroy(a), dGeomDestroy(b);
  return n;
}

// A geom added to a space from inside that space's own collision, which
// ODE forbids (the space is locked): ODE's own check raises the error,
// inside dSpaceCollide's frames. The space stays locked and cannot be
// destroyed: it is kept here (reachable, not a leak); the geom, which the
// check refused, is destroyed after.
static dSpaceID locked_space;
static dGeomID added_geom;

static void add_while_locked(void *data, dGeomID a, dGeomID b) {
  (void)a, (void)b;
  added_geom = dCreateSphere(0, 0.1);
  dSpaceAdd((dSpaceID)data, added_geom);
}

static int collide_locked(void *ctx) {
  (void)ctx;
  locked_space = dSimpleSpaceCreate(0);
  dGeomID b = dCreateSphere(locked_space, 1.0);
  dCreateSphere(locked_space, 1.0);
  dGeomSetPosition(b, 1.5, 0, 0);
  dSpaceCollide(locked_space, locked_space, add_while_locked);
  return 0;  // not reached when ODE checks the lock
}

static int nested(void *ctx) {
  char *inner = ctx;
  int rc = tsr_ode_trapped(raise_internal_error, NULL, inner, 128);
  return rc == -2 ? 11 : 0;  // the outer call goes on after the inner trap
}

static void test_trap(void) {
  dInitODE2(0);
  char msg[128];
  ENSURE(tsr_ode_trapped(raise_internal_error, NULL, msg, sizeof msg) == -2);
  ENSURE_MSG(strstr(msg, "ODE internal error 7") && strstr(msg, "planted check 42 failed"), "message '%s'", msg);
  ENSURE(tsr_ode_trapped(returns_five, NULL, msg, sizeof msg) == 5 && msg[0] == '\0');
  ENSURE(tsr_ode_trapped(collide_spheres, NULL, msg, sizeof msg) == 1);
  ENSURE_MSG(tsr_ode_trapped(collide_locked, NULL, msg, sizeof msg) == -2, "ODE did not raise its lock check");
  fprintf(stderr, "  from inside dSpaceCollide: %s\n", msg);
  if (added_geom) dGeomDestroy(added_geom);
  ENSURE(tsr_ode_trapped(collide_spheres, NULL, msg, sizeof msg) == 1);  // new objects still collide
  char inner[128];
  ENSURE(tsr_ode_trapped(nested, inner, msg, sizeof msg) == 11 && msg[0] == '\0');
  ENSURE_MSG(strstr(inner, "planted check 42 failed"), "inner message '%s'", inner);
  ENSURE(tsr_ode_trapped(raise_internal_error, NULL, msg, 8) == -2 && strlen(msg) == 7);  // cut to the buffer
  dCloseODE();
}

int main(void) {
  RUN_TEST(test_trap);
  return TSR_TEST_RESULT();
}
