// SPDX-License-Identifier: MIT
// Small fixed-size vector, quaternion and 3x3 matrix helpers, header-only.
// Quaternions are (w, x, y, z) and rotate body-frame vectors into the world
// frame: v_world = q * v_body * conj(q).
#ifndef TSR_MATH_H
#define TSR_MATH_H

#include <math.h>

typedef struct {
  double x, y, z;
} TsrVec3;

typedef struct {
  double w, x, y, z;
} TsrQuat;

// Row-major: m[r][c].
typedef struct {
  double m[3][3];
} TsrMat3;

// max(m, v) for running maxima in hot loops: a NaN v is skipped, as fmax
// does, but inline (GCC calls libm's fmax unless -ffinite-math-only).
static inline double tsr_maxd(double m, double v) { return v > m ? v : m; }
// fmax(a, b) itself (a NaN argument gives the other), inline: for maxima
// whose first argument may be NaN, and wherever fmax's exact result is kept.
static inline double tsr_fmax(double a, double b) { return a != a ? b : b > a ? b : a; }

static inline TsrVec3 tsr_v3(double x, double y, double z) { return (TsrVec3){x, y, z}; }
static inline TsrVec3 tsr_v3_add(TsrVec3 a, TsrVec3 b) { return tsr_v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline TsrVec3 tsr_v3_sub(TsrVec3 a, TsrVec3 b) { return tsr_v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline TsrVec3 tsr_v3_scale(TsrVec3 a, double s) { return tsr_v3(a.x * s, a.y * s, a.z * s); }
static inline TsrVec3 tsr_v3_neg(TsrVec3 a) { return tsr_v3(-a.x, -a.y, -a.z); }
static inline double tsr_v3_dot(TsrVec3 a, TsrVec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline TsrVec3 tsr_v3_cross(TsrVec3 a, TsrVec3 b) {
  return tsr_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline double tsr_v3_norm(TsrVec3 a) { return sqrt(tsr_v3_dot(a, a)); }
static inline TsrVec3 tsr_v3_normalize(TsrVec3 a) {
  double n = tsr_v3_norm(a);
  if (n > 1e-150 && n < 1e150) return tsr_v3_scale(a, 1.0 / n);
  // |a|^2 overflows or underflows ([1e200, 0, 1e200] became [0, 0, 0]): by
  // the largest component first. (Vectors in range keep the plain division,
  // so results do not change with this branch.)
  double s = fmax(fabs(a.x), fmax(fabs(a.y), fabs(a.z)));
  if (!(s > 0) || !isfinite(s)) return a;
  a = tsr_v3(a.x / s, a.y / s, a.z / s);  // (divided: 1 / s overflows for a subnormal s, 1e-310)
  return tsr_v3_scale(a, 1.0 / tsr_v3_norm(a));
}
static inline TsrVec3 tsr_v3_madd(TsrVec3 a, TsrVec3 b, double s) {
  return tsr_v3(a.x + b.x * s, a.y + b.y * s, a.z + b.z * s);
}
static inline int tsr_v3_isfinite(TsrVec3 a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }

// Two unit vectors that complete n (unit) to a right-handed orthonormal basis.
static inline void tsr_v3_basis(TsrVec3 n, TsrVec3 *t1, TsrVec3 *t2) {
  TsrVec3 a = fabs(n.x) < 0.57735 ? tsr_v3(1, 0, 0) : (fabs(n.y) < 0.57735 ? tsr_v3(0, 1, 0) : tsr_v3(0, 0, 1));
  *t1 = tsr_v3_normalize(tsr_v3_cross(n, a));
  *t2 = tsr_v3_cross(n, *t1);
}

static inline TsrQuat tsr_q_identity(void) { return (TsrQuat){1, 0, 0, 0}; }
static inline TsrQuat tsr_q_mul(TsrQuat a, TsrQuat b) {
  return (TsrQuat){a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                   a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}
static inline TsrQuat tsr_q_conj(TsrQuat q) { return (TsrQuat){q.w, -q.x, -q.y, -q.z}; }
static inline double tsr_q_norm(TsrQuat q) { return sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z); }
static inline TsrQuat tsr_q_normalize(TsrQuat q) {
  double n = tsr_q_norm(q);
  return n > 0 ? (TsrQuat){q.w / n, q.x / n, q.y / n, q.z / n} : tsr_q_identity();
}
static inline TsrQuat tsr_q_axis_angle(TsrVec3 axis, double angle) {
  TsrVec3 a = tsr_v3_normalize(axis);
  double s = sin(0.5 * angle);
  return (TsrQuat){cos(0.5 * angle), a.x * s, a.y * s, a.z * s};
}
static inline TsrVec3 tsr_q_rotate(TsrQuat q, TsrVec3 v) {
  // v + 2 w (u x v) + 2 u x (u x v), u = vector part
  TsrVec3 u = tsr_v3(q.x, q.y, q.z);
  TsrVec3 t = tsr_v3_scale(tsr_v3_cross(u, v), 2.0);
  return tsr_v3_add(tsr_v3_add(v, tsr_v3_scale(t, q.w)), tsr_v3_cross(u, t));
}
static inline TsrVec3 tsr_q_rotate_inv(TsrQuat q, TsrVec3 v) { return tsr_q_rotate(tsr_q_conj(q), v); }

static inline TsrMat3 tsr_m3_zero(void) { return (TsrMat3){{{0}}}; }
static inline TsrMat3 tsr_m3_diag(double a, double b, double c) {
  TsrMat3 m = tsr_m3_zero();
  m.m[0][0] = a;
  m.m[1][1] = b;
  m.m[2][2] = c;
  return m;
}
static inline TsrMat3 tsr_m3_from_quat(TsrQuat q) {
  double w = q.w, x = q.x, y = q.y, z = q.z;
  TsrMat3 r;
  r.m[0][0] = 1 - 2 * (y * y + z * z);
  r.m[0][1] = 2 * (x * y - w * z);
  r.m[0][2] = 2 * (x * z + w * y);
  r.m[1][0] = 2 * (x * y + w * z);
  r.m[1][1] = 1 - 2 * (x * x + z * z);
  r.m[1][2] = 2 * (y * z - w * x);
  r.m[2][0] = 2 * (x * z - w * y);
  r.m[2][1] = 2 * (y * z + w * x);
  r.m[2][2] = 1 - 2 * (x * x + y * y);
  return r;
}
static inline TsrMat3 tsr_m3_mul(TsrMat3 a, TsrMat3 b) {
  TsrMat3 c;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) c.m[i][j] = a.m[i][0] * b.m[0][j] + a.m[i][1] * b.m[1][j] + a.m[i][2] * b.m[2][j];
  return c;
}
static inline TsrMat3 tsr_m3_transpose(TsrMat3 a) {
  TsrMat3 t;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) t.m[i][j] = a.m[j][i];
  return t;
}
static inline TsrVec3 tsr_m3_mulv(TsrMat3 a, TsrVec3 v) {
  return tsr_v3(a.m[0][0] * v.x + a.m[0][1] * v.y + a.m[0][2] * v.z,
                a.m[1][0] * v.x + a.m[1][1] * v.y + a.m[1][2] * v.z,
                a.m[2][0] * v.x + a.m[2][1] * v.y + a.m[2][2] * v.z);
}
static inline double tsr_m3_det(TsrMat3 a) {
  return a.m[0][0] * (a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1]) -
         a.m[0][1] * (a.m[1][0] * a.m[2][2] - a.m[1][2] * a.m[2][0]) +
         a.m[0][2] * (a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0]);
}
// a over s, the power of 2 at its largest entry (exact), and s in *s; 0 in
// *s (a unchanged) for a zero or non-finite matrix. Its minors and
// determinant then neither underflow nor overflow: that of a itself, the
// cube of its scale, underflows for moments of inertia below ~1e-103 and
// overflows above ~1e103.
static inline TsrMat3 tsr_m3_pow2_scaled(TsrMat3 a, double *s) {
  double m = 0.0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) m = fmax(m, fabs(a.m[i][j]));
  *s = 0.0;
  if (!(m > 0.0) || !isfinite(m)) return a;
  *s = ldexp(1.0, ilogb(m));  // (divided, not times 1 / s: that overflows for a subnormal s)
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) a.m[i][j] /= *s;
  return a;
}
// Inverse of a non-singular matrix; returns a zero matrix when singular.
// Of a scaled by tsr_m3_pow2_scaled, then scaled back (the same bits as
// without, where both are finite): a tiny body could otherwise not turn (an
// inverse of 0) or get an infinite one. A zero or non-finite matrix gives
// zero, as a singular one does.
static inline TsrMat3 tsr_m3_inverse(TsrMat3 a) {
  TsrMat3 r = tsr_m3_zero();
  double s;
  a = tsr_m3_pow2_scaled(a, &s);
  if (!(s > 0.0)) return r;
  double d = tsr_m3_det(a);
  if (d == 0.0 || !isfinite(d)) return r;
  double id = 1.0 / d;
  r.m[0][0] = (a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1]) * id;
  r.m[0][1] = (a.m[0][2] * a.m[2][1] - a.m[0][1] * a.m[2][2]) * id;
  r.m[0][2] = (a.m[0][1] * a.m[1][2] - a.m[0][2] * a.m[1][1]) * id;
  r.m[1][0] = (a.m[1][2] * a.m[2][0] - a.m[1][0] * a.m[2][2]) * id;
  r.m[1][1] = (a.m[0][0] * a.m[2][2] - a.m[0][2] * a.m[2][0]) * id;
  r.m[1][2] = (a.m[0][2] * a.m[1][0] - a.m[0][0] * a.m[1][2]) * id;
  r.m[2][0] = (a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0]) * id;
  r.m[2][1] = (a.m[0][1] * a.m[2][0] - a.m[0][0] * a.m[2][1]) * id;
  r.m[2][2] = (a.m[0][0] * a.m[1][1] - a.m[0][1] * a.m[1][0]) * id;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) r.m[i][j] /= s;
  return r;
}
// R A R^T: a body-frame tensor expressed in the world frame.
static inline TsrMat3 tsr_m3_rotate_tensor(TsrMat3 R, TsrMat3 A) {
  return tsr_m3_mul(tsr_m3_mul(R, A), tsr_m3_transpose(R));
}

#endif
