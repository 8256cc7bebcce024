// SPDX-License-Identifier: MIT
#include "dynamics/bodies.h"

#include <stdlib.h>
#include <string.h>

int tsr_bodies_init(TsrBodies *b, const TsrModel *m) {
  memset(b, 0, sizeof *b);
  int n = m->n_bodies;
  b->n = n;
  b->x = calloc((size_t)n + 1, sizeof *b->x);
  b->q = calloc((size_t)n + 1, sizeof *b->q);
  b->v = calloc((size_t)n + 1, sizeof *b->v);
  b->w = calloc((size_t)n + 1, sizeof *b->w);
  b->inv_mass = calloc((size_t)n + 1, sizeof *b->inv_mass);
  b->inertia_body = calloc((size_t)n + 1, sizeof *b->inertia_body);
  b->inv_inertia_body = calloc((size_t)n + 1, sizeof *b->inv_inertia_body);
  b->inv_inertia_world = calloc(9 * (size_t)n + 1, sizeof *b->inv_inertia_world);
  b->fixed = calloc((size_t)n + 1, 1);
  b->gyro_shift = calloc((size_t)n + 1, sizeof *b->gyro_shift);
  if (!b->x || !b->q || !b->v || !b->w || !b->inv_mass || !b->inertia_body || !b->inv_inertia_body ||
      !b->inv_inertia_world || !b->fixed || !b->gyro_shift) {
    tsr_bodies_free(b);
    return -1;
  }
  for (int k = 0; k < n; k++) {
    const TsrBodyDef *d = &m->bodies[k];
    b->x[k] = d->position;
    b->q[k] = tsr_q_normalize(d->orientation);
    b->fixed[k] = (unsigned char)(d->fixed != 0);
    if (d->fixed) continue;  // fixed bodies: zero velocity, zero inverse mass
    b->v[k] = d->velocity;
    b->w[k] = d->angular_velocity;
    b->inv_mass[k] = 1.0 / d->mass;
    b->inertia_body[k] = d->inertia;
    b->inv_inertia_body[k] = tsr_m3_inverse(d->inertia);
  }
  tsr_bodies_update_inertia(b);
  return 0;
}

void tsr_bodies_free(TsrBodies *b) {
  free(b->x);
  free(b->q);
  free(b->v);
  free(b->w);
  free(b->inv_mass);
  free(b->inertia_body);
  free(b->inv_inertia_body);
  free(b->inv_inertia_world);
  free(b->fixed);
  free(b->gyro_shift);
  memset(b, 0, sizeof *b);
}

void tsr_bodies_update_inertia(TsrBodies *b) {
  for (int k = 0; k < b->n; k++) {
    double *out = &b->inv_inertia_world[9 * k];
    if (b->fixed[k]) {
      memset(out, 0, 9 * sizeof *out);
      continue;
    }
    TsrMat3 R = tsr_m3_from_quat(b->q[k]);
    TsrMat3 Iw = tsr_m3_rotate_tensor(R, b->inv_inertia_body[k]);
    memcpy(out, Iw.m, 9 * sizeof *out);
  }
}

void tsr_bodies_add_isotropic_inertia(TsrBodies *b, const double *extra) {
  for (int k = 0; k < b->n; k++) {
    if (b->fixed[k] || !(extra[k] > 0.0)) continue;
    TsrMat3 R = tsr_m3_from_quat(b->q[k]);
    TsrMat3 I = tsr_m3_rotate_tensor(R, b->inertia_body[k]);
    for (int a = 0; a < 3; a++) I.m[a][a] += extra[k];
    TsrMat3 Ii = tsr_m3_inverse(I);
    memcpy(&b->inv_inertia_world[9 * k], Ii.m, 9 * sizeof(double));
  }
}

static TsrMat3 skew(TsrVec3 a) {
  TsrMat3 s = tsr_m3_zero();
  s.m[0][1] = -a.z;
  s.m[0][2] = a.y;
  s.m[1][0] = a.z;
  s.m[1][2] = -a.x;
  s.m[2][0] = -a.y;
  s.m[2][1] = a.x;
  return s;
}

// The torque-free rotation over one step by the implicit midpoint rule in the
// body frame, where I is constant:
//   I (w2 - w1) + h wm x (I wm) = 0,   wm = (w1 + w2) / 2.
// The rule keeps every quadratic invariant of Euler's equations exactly, so
// both |I w| (angular momentum) and w.I w (kinetic energy) are conserved to
// the Newton tolerance by any root of it. Newton from w2 = w1 converges to
// round-off in a few iterations for |w| h up to about 2.5 rad per step.
// Faster, it can fail to converge, and the w2 it stopped at is no root: an
// asymmetric box spinning at 5 rad per step (300 rad/s at h = 1/60) gained
// 6 times its kinetic energy over 10 s. Then the root is followed from
// h = 0 (w2 = w1) in m equal increments of h, each Newton solve starting
// from the last root (m = 4, 8, ..., until every increment converges): the
// branch the step's rotation continues (tests/physics/test_spin.c).
#define MIDPOINT_ITERATIONS 20
#define MIDPOINT_MAX_INCREMENTS 256

// Newton on the midpoint equation from w2; *converged when the last
// correction was at round-off.
static TsrVec3 midpoint_newton(TsrMat3 I, TsrVec3 w1, TsrVec3 w2, double h, int *converged) {
  TsrVec3 Iw1 = tsr_m3_mulv(I, w1);
  *converged = 0;
  for (int it = 0; it < MIDPOINT_ITERATIONS && !*converged; it++) {
    TsrVec3 wm = tsr_v3_scale(tsr_v3_add(w1, w2), 0.5);
    TsrVec3 Iwm = tsr_m3_mulv(I, wm);
    TsrVec3 f = tsr_v3_add(tsr_v3_sub(tsr_m3_mulv(I, w2), Iw1), tsr_v3_scale(tsr_v3_cross(wm, Iwm), h));
    // df/dw2 = I + (h/2) (skew(wm) I - skew(I wm))
    TsrMat3 J = I;
    TsrMat3 a = tsr_m3_mul(skew(wm), I), c = skew(Iwm);
    for (int r = 0; r < 3; r++)
      for (int s = 0; s < 3; s++) J.m[r][s] += 0.5 * h * (a.m[r][s] - c.m[r][s]);
    TsrVec3 dw = tsr_m3_mulv(tsr_m3_inverse(J), f);
    w2 = tsr_v3_sub(w2, dw);
    *converged = tsr_v3_norm(dw) <= 1e-15 * (tsr_v3_norm(w2) + 1e-300);
  }
  return w2;
}

static TsrVec3 gyroscopic_midpoint(TsrMat3 I, TsrVec3 w1, double h) {
  int ok;
  TsrVec3 w2 = midpoint_newton(I, w1, w1, h, &ok);
  for (int m = 4; !ok && m <= MIDPOINT_MAX_INCREMENTS; m *= 2) {
    TsrVec3 x = w1;
    ok = 1;
    for (int i = 1; i <= m && ok; i++) x = midpoint_newton(I, w1, x, h * i / m, &ok);
    if (ok) w2 = x;
  }
  return w2;
}

void tsr_bodies_free_velocity(TsrBodies *b, TsrVec3 gravity, double h, double *v_free) {
  for (int k = 0; k < b->n; k++) {
    double *o = &v_free[6 * k];
    if (b->fixed[k]) {
      memset(o, 0, 6 * sizeof *o);
      continue;
    }
    TsrVec3 v = tsr_v3_madd(b->v[k], gravity, h);
    TsrVec3 w = b->w[k];
    b->gyro_shift[k] = tsr_v3(0, 0, 0);
    if (tsr_v3_dot(w, w) > 0) {
      TsrVec3 w1 = tsr_q_rotate_inv(b->q[k], w);
      TsrVec3 w2 = gyroscopic_midpoint(b->inertia_body[k], w1, h);
      w = tsr_q_rotate(b->q[k], w2);
      b->gyro_shift[k] = tsr_q_rotate(b->q[k], tsr_v3_scale(tsr_v3_sub(w1, w2), 0.5));
    }
    o[0] = v.x, o[1] = v.y, o[2] = v.z;
    o[3] = w.x, o[4] = w.y, o[5] = w.z;
  }
}

void tsr_bodies_integrate(TsrBodies *b, const double *v_new, double h) {
  for (int k = 0; k < b->n; k++) {
    if (b->fixed[k]) continue;
    const double *s = &v_new[6 * k];
    b->v[k] = tsr_v3(s[0], s[1], s[2]);
    b->w[k] = tsr_v3(s[3], s[4], s[5]);
    b->x[k] = tsr_v3_madd(b->x[k], b->v[k], h);
    // Eq. 6, q+ = normalise(q + h/2 (0, w_rot) q), is a rotation by
    // 2 atan(h |w_rot| / 2) about w_rot: the Cayley transform cay(h w_rot).
    // w_rot is w+ plus the gyroscopic shift w_mid - w_free. With the
    // midpoint rule of gyroscopic_midpoint, R+ = R cay(h w_mid) makes
    // R+ I w+ = R I w exactly (expand cay: (1 + h/2 w^) I w+ = (1 - h/2 w^) I w
    // is the midpoint equation), so a free body keeps its world-frame angular
    // momentum to round-off; constraint impulses enter through w+ as in Eq. 6.
    TsrVec3 wr;
    double turn = tsr_bodies_turn(b, k, v_new, h, &wr);
    if (turn > 0) {
      TsrQuat dq = tsr_q_axis_angle(wr, turn);  // Cayley: cay(h w_rot)
      b->q[k] = tsr_q_normalize(tsr_q_mul(dq, b->q[k]));
      // The angular velocity turns with the body (its body-frame value is
      // what the midpoint rule produced); a no-op when w_rot is parallel to w+,
      // as for every body without a gyroscopic shift.
      b->w[k] = tsr_q_rotate(dq, b->w[k]);
    }
  }
}

int tsr_bodies_find_nonfinite(const TsrBodies *b) {
  for (int k = 0; k < b->n; k++) {
    if (b->fixed[k]) continue;
    TsrQuat q = b->q[k];
    if (!tsr_v3_isfinite(b->x[k]) || !tsr_v3_isfinite(b->v[k]) || !tsr_v3_isfinite(b->w[k]) || !isfinite(q.w) ||
        !isfinite(q.x) || !isfinite(q.y) || !isfinite(q.z))
      return k;
  }
  return -1;
}

TsrVec3 tsr_bodies_angular_momentum(const TsrBodies *b, int k) {
  TsrMat3 R = tsr_m3_from_quat(b->q[k]);
  TsrMat3 Iw = tsr_m3_rotate_tensor(R, b->inertia_body[k]);
  return tsr_m3_mulv(Iw, b->w[k]);
}
