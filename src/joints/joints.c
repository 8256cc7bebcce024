// SPDX-License-Identifier: MIT
// Joint set-up (world data to body frames), the row helpers every joint type
// uses, and the dispatch over joint types (a switch, as in Box2D v3).
#include "joints/joints.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "joints/joints_internal.h"

static TsrVec3 to_local(const TsrSide *s, TsrVec3 world_point) {
  return tsr_q_rotate_inv(s->q, tsr_v3_sub(world_point, s->x));
}

int tsr_joints_init(TsrJoints *js, const TsrModel *m, const TsrBodies *b) {
  js->n = m->n_joints;
  js->n_rows = js->motors = 0;
  js->frames = calloc((size_t)m->n_joints + 1, sizeof *js->frames);
  if (!js->frames) return -1;
  for (int j = 0; j < m->n_joints; j++) {
    const TsrJointDef *d = &m->joints[j];
    TsrJointFrame *f = &js->frames[j];
    f->type = d->type;
    f->body[0] = d->body[0];
    f->body[1] = d->body[1];
    TsrSide s0 = tsr_joint_side(b, d->body[0]), s1 = tsr_joint_side(b, d->body[1]);
    f->anchor[0] = to_local(&s0, d->anchor);
    f->anchor[1] = to_local(&s1, d->type == TSR_JOINT_DISTANCE ? d->anchor_b : d->anchor);
    f->rel0 = tsr_q_mul(tsr_q_conj(s0.q), s1.q);
    TsrVec3 axis = d->axis[0];
    if (d->type == TSR_JOINT_CABLE) {
      // The cable runs from body 0 through the anchor to body 1: bending is
      // about the two directions across it, twist about it.
      axis = tsr_v3_sub(s1.x, d->body[0] < 0 ? d->anchor : s0.x);
      if (tsr_v3_norm(axis) < 1e-12) axis = tsr_q_rotate(s0.q, tsr_v3(0, 0, 1));
    } else if (d->type == TSR_JOINT_BALL || d->type == TSR_JOINT_FIXED || d->type == TSR_JOINT_DISTANCE) {
      axis = tsr_v3(0, 0, 1);
    }
    axis = tsr_v3_normalize(axis);
    TsrVec3 t1, t2;
    tsr_v3_basis(axis, &t1, &t2);
    f->axis_a = tsr_q_rotate_inv(s0.q, axis);
    f->t1_a = tsr_q_rotate_inv(s0.q, t1);
    f->t2_a = tsr_q_rotate_inv(s0.q, t2);
    TsrVec3 axis_b = d->type == TSR_JOINT_UNIVERSAL ? tsr_v3_normalize(d->axis[1]) : axis;
    f->axis_b = tsr_q_rotate_inv(s1.q, axis_b);
    // The loader gives the default (the anchors' distance); a length the
    // model sets, 0 included, is kept.
    if (d->type == TSR_JOINT_DISTANCE) f->length = d->length;
    js->n_rows += tsr_joint_row_count(d);
    js->motors |= d->has_motor;
  }
  return 0;
}

void tsr_joints_free(TsrJoints *js) {
  free(js->frames);
  js->frames = NULL;
  js->n = 0;
}

int tsr_joint_equality_rows(const TsrJointDef *d) {
  switch (d->type) {
    case TSR_JOINT_BALL:
      return 3;
    case TSR_JOINT_HINGE:
    case TSR_JOINT_PRISMATIC:
      return 5;
    case TSR_JOINT_UNIVERSAL:
      return 4;
    case TSR_JOINT_FIXED:
    case TSR_JOINT_CABLE:
      return 6;
    case TSR_JOINT_DISTANCE:
      return 1;
  }
  return 0;
}

int tsr_joint_row_count(const TsrJointDef *d) {
  // limit and motor rows: hinges and prismatic joints only
  int axial = d->type == TSR_JOINT_HINGE || d->type == TSR_JOINT_PRISMATIC;
  return tsr_joint_equality_rows(d) + (axial ? (d->has_limits ? 1 : 0) + (d->has_motor ? 1 : 0) : 0);
}

int tsr_joint_rows_rank(const TsrRow *rows, const int *pick, int k, int lo, int hi) {
  double v[12][12] = {{0}};
  int live[12], rank = 0;
  if (k > 12) k = 12;
  for (int a = 0; a < k; a++) {
    const TsrRow *r = &rows[pick[a]];
    double nrm = 0.0;
    for (int s = 0; s < 2; s++) {
      int col = r->body[s] < 0 ? -1 : r->body[s] == lo ? 0 : r->body[s] == hi ? 6 : -1;
      if (col < 0) continue;
      for (int c = 0; c < 6; c++) v[a][col + c] += r->J[s][c];
    }
    for (int c = 0; c < 12; c++) nrm += v[a][c] * v[a][c];
    nrm = sqrt(nrm);
    live[a] = nrm > 0.0;
    for (int c = 0; c < 12 && live[a]; c++) v[a][c] /= nrm;  // unit rows: the test is relative to each
  }
  for (;;) {
    int best = -1;
    double bn = 0.0;
    for (int a = 0; a < k; a++) {
      if (!live[a]) continue;
      double n2 = 0.0;
      for (int c = 0; c < 12; c++) n2 += v[a][c] * v[a][c];
      if (n2 > bn) bn = n2, best = a;
    }
    if (best < 0 || sqrt(bn) < 1e-8) return rank;  // what is left lies in the span
    rank++;
    live[best] = 0;
    double inv = 1.0 / sqrt(bn);
    for (int c = 0; c < 12; c++) v[best][c] *= inv;
    for (int a = 0; a < k; a++) {
      if (!live[a]) continue;
      double d = 0.0;
      for (int c = 0; c < 12; c++) d += v[a][c] * v[best][c];
      for (int c = 0; c < 12; c++) v[a][c] -= d * v[best][c];
    }
  }
}

static double dot6(TsrVec3 l, TsrVec3 a, const TsrSide *s) { return tsr_v3_dot(l, s->v) + tsr_v3_dot(a, s->w); }

void tsr_joint_row(TsrJointCtx *c, int8_t type, TsrVec3 lin0, TsrVec3 ang0, TsrVec3 lin1, TsrVec3 ang1, double g,
                   double eps, double lo, double hi, int unilateral) {
  TsrRow *r = c->failed ? NULL : tsr_rowset_push(c->rows);
  if (!r) {
    c->failed = 1;  // tsr_joints_build_rows says so; set_arms must not touch another row
    return;
  }
  r->body[0] = c->s[0].body;
  r->body[1] = c->s[1].body;
  double *J0 = r->J[0], *J1 = r->J[1];
  J0[0] = lin0.x, J0[1] = lin0.y, J0[2] = lin0.z, J0[3] = ang0.x, J0[4] = ang0.y, J0[5] = ang0.z;
  J1[0] = lin1.x, J1[1] = lin1.y, J1[2] = lin1.z, J1[3] = ang1.x, J1[4] = ang1.y, J1[5] = ang1.z;
  double Jv = dot6(lin0, ang0, &c->s[0]) + dot6(lin1, ang1, &c->s[1]);
  r->compliance = tsr_spook_compliance(eps, c->d->damping, c->h);
  r->rhs = tsr_spook_rhs(g, Jv, c->d->damping, c->h, unilateral);
  r->lo = lo;
  r->hi = hi;
  r->type = type;
  r->source = c->source;
  r->violation = g;
}

void tsr_joint_set_arms(TsrJointCtx *c, TsrVec3 a0, TsrVec3 a1) {
  if (c->failed) return;
  TsrRow *r = &c->rows->rows[c->rows->count - 1];
  r->arm[0][0] = a0.x, r->arm[0][1] = a0.y, r->arm[0][2] = a0.z;
  r->arm[1][0] = a1.x, r->arm[1][1] = a1.y, r->arm[1][2] = a1.z;
}

void tsr_joint_point_rows(TsrJointCtx *c, double eps) {
  // g = p0 - p1; d/dt (e.p0) = e.v0 + (r0 x e).w0.
  TsrVec3 g = tsr_v3_sub(c->p[0], c->p[1]);
  const TsrVec3 axes[3] = {tsr_v3(1, 0, 0), tsr_v3(0, 1, 0), tsr_v3(0, 0, 1)};
  const double gk[3] = {g.x, g.y, g.z};
  for (int k = 0; k < 3; k++) {
    TsrVec3 e = axes[k];
    tsr_joint_row(c, TSR_ROW_JOINT, e, tsr_v3_cross(c->r[0], e), tsr_v3_neg(e), tsr_v3_neg(tsr_v3_cross(c->r[1], e)),
                  gk[k], eps, -INFINITY, INFINITY, 0);
    tsr_joint_set_arms(c, c->r[0], c->r[1]);
  }
}

TsrVec3 tsr_joint_rotation_error(const TsrJointCtx *c) {
  // q_err = q1 conj(q0 rel0): identity in the initial configuration.
  TsrQuat target = tsr_q_mul(c->s[0].q, c->f->rel0);
  TsrQuat e = tsr_q_mul(c->s[1].q, tsr_q_conj(target));
  if (e.w < 0) e = (TsrQuat){-e.w, -e.x, -e.y, -e.z};
  TsrVec3 u = tsr_v3(e.x, e.y, e.z);
  double s = tsr_v3_norm(u);
  if (s < 1e-12) return tsr_v3_scale(u, 2.0);
  return tsr_v3_scale(u, 2.0 * atan2(s, e.w) / s);
}

void tsr_joint_angular_row(TsrJointCtx *c, int8_t type, TsrVec3 e, double g, double eps, double lo, double hi,
                           int unilateral) {
  TsrVec3 zero = tsr_v3(0, 0, 0);
  tsr_joint_row(c, type, zero, tsr_v3_neg(e), zero, e, g, eps, lo, hi, unilateral);
}

void tsr_joint_limit_row(TsrJointCtx *c, TsrVec3 lin0, TsrVec3 ang0, TsrVec3 lin1, TsrVec3 ang1, double s) {
  // One row, for the limit the coordinate reaches in this step at its free
  // rate (gravity in) if it reaches one, else the nearer: s - lo >= 0 with
  // lambda >= 0, or hi - s >= 0 (the row negated). Rows stay in place as
  // the active side changes. The nearer limit alone let a joint whose
  // limits are closer than a step's travel through the far one: a slider
  // between -2 and 3 mm thrown at 1.5 m/s went 25 mm past
  // (tests/physics/test_joint_limits.c: test_narrow_range).
  double lo = c->d->limits[0], hi = c->d->limits[1];
  double rate =
      tsr_v3_dot(lin0, c->vf[0]) + tsr_v3_dot(ang0, c->wf[0]) + tsr_v3_dot(lin1, c->vf[1]) + tsr_v3_dot(ang1, c->wf[1]);
  double ahead = s + c->h * rate;
  int upper = ahead >= hi ? 1 : ahead <= lo ? 0 : s - lo > hi - s;
  if (lo == hi) {
    // Limits [a, a] lock the coordinate at a: an equality row. The one-sided
    // row of the nearer limit, chosen by rounding at s = a, let the joint go
    // the other way for a step, and a hinge driven by 5 N m swung 0.015 rad
    // past its lock (test_joint_limits: test_locked).
    tsr_joint_row(c, TSR_ROW_LIMIT, lin0, ang0, lin1, ang1, s - lo, c->d->compliance, -INFINITY, INFINITY, 0);
  } else if (!upper) {
    tsr_joint_row(c, TSR_ROW_LIMIT, lin0, ang0, lin1, ang1, s - lo, c->d->compliance, 0.0, INFINITY, 1);
  } else {
    tsr_joint_row(c, TSR_ROW_LIMIT, tsr_v3_neg(lin0), tsr_v3_neg(ang0), tsr_v3_neg(lin1), tsr_v3_neg(ang1), hi - s,
                  c->d->compliance, 0.0, INFINITY, 1);
  }
}

// A motor is a servo: the joint's coordinate s (hinge angle, slide) follows
// the target s0 + speed t through a spring of the joint's compliance eps.
// Its row is the velocity target with the lag phi = s - s0 - speed t fed
// back at SPOOK's gain a = 4 / (h (1 + 4 d)) (spook.h; seed 000 Eq. 3):
//   J v+ - speed + C lambda + a phi = w,   |lambda| <= max h.
// Under a steady load F the lag settles at phi = -eps F (C lambda = -a phi)
// and the coordinate moves at exactly the motor's speed, for any eps and h;
// a change of load moves phi by 5/9 of the way a step at d = 2. Without
// phi (the row before) the motor ran slow by C F h = 4 eps F / (h (1 + 4
// d)), growing as h shrinks: 5% of 0.4 m/s lifting 10 kg at h = 1/60 on a
// joint of compliance 1e-5 (tests/physics/test_motor.c). SPOOK's beta J v
// term is left out: from rest the motor reaches its speed in one step, as
// before, instead of 8/9 of it. While the motor is saturated its lag is the
// spring's deflection at max (tsr_joints_track), so a stalled motor that
// regains control does not make up the distance it lost.
void tsr_joint_motor_row(TsrJointCtx *c, TsrVec3 lin0, TsrVec3 ang0, TsrVec3 lin1, TsrVec3 ang1) {
  double bound = c->d->motor_max * c->h, lag = c->f->motor_lag;
  tsr_joint_row(c, TSR_ROW_MOTOR, lin0, ang0, lin1, ang1, lag, c->d->compliance, -bound, bound, 0);
  TsrRow *r = &c->rows->rows[c->rows->count - 1];
  r->rhs = tsr_spook_rhs(lag, 0.0, c->d->damping, c->h, 0) - c->d->motor_speed;
  r->violation = 0.0;  // a lag, not a violation of the joint (/stats/joint_error)
}

static void make_ctx(TsrJointCtx *c, const TsrJoints *js, const TsrModel *m, const TsrBodies *b, const double *v_free,
                     int j, double h, TsrRowSet *rows) {
  c->f = &js->frames[j];
  c->d = &m->joints[j];
  c->h = h;
  c->source = j;
  c->rows = rows;
  c->failed = 0;
  for (int k = 0; k < 2; k++) {
    c->s[k] = tsr_joint_side(b, c->f->body[k]);
    c->r[k] = tsr_q_rotate(c->s[k].q, c->f->anchor[k]);
    c->p[k] = tsr_v3_add(c->s[k].x, c->r[k]);
    int i = c->s[k].body;
    const double *f = v_free && i >= 0 ? &v_free[6 * i] : NULL;
    c->vf[k] = f ? tsr_v3(f[0], f[1], f[2]) : c->s[k].v;
    c->wf[k] = f ? tsr_v3(f[3], f[4], f[5]) : c->s[k].w;
  }
}

int tsr_joints_build_rows(const TsrJoints *js, const TsrModel *m, const TsrBodies *b, const double *v_free, double h,
                          TsrRowSet *rows) {
  int start = rows->count, failed = 0;
  for (int j = 0; j < js->n && !failed; j++) {
    TsrJointCtx c;
    make_ctx(&c, js, m, b, v_free, j, h, rows);
    switch (c.f->type) {
      case TSR_JOINT_BALL:
        tsr_joint_ball(&c);
        break;
      case TSR_JOINT_HINGE:
        tsr_joint_hinge(&c);
        break;
      case TSR_JOINT_UNIVERSAL:
        tsr_joint_universal(&c);
        break;
      case TSR_JOINT_PRISMATIC:
        tsr_joint_prismatic(&c);
        break;
      case TSR_JOINT_FIXED:
        tsr_joint_fixed(&c);
        break;
      case TSR_JOINT_CABLE:
        tsr_joint_cable(&c);
        break;
      case TSR_JOINT_DISTANCE:
        tsr_joint_distance(&c);
        break;
    }
    failed = c.failed;
  }
  return failed || rows->count - start != js->n_rows ? -1 : 0;
}

void tsr_joints_track(TsrJoints *js, const TsrModel *m, const TsrBodies *b, double h, const TsrRowSet *rows,
                      const double *lambda, const double *v_new) {
  for (int j = 0; j < js->n; j++) {
    // Only a limit row reads the angle (hinge.c): a wheel is not followed.
    if (js->frames[j].type != TSR_JOINT_HINGE || !m->joints[j].has_limits) continue;
    TsrJointCtx c;
    make_ctx(&c, js, m, b, NULL, j, h, NULL);
    js->frames[j].angle = tsr_joint_hinge_angle(&c);
  }
  if (!js->motors) return;
  // Each motor's lag gains h (J v+ - speed), J v+ the rate of its own row at
  // the step's solved velocities (Eq. 2): the servo holds the bodies' velocity
  // at the speed, rather than the pose's rate (Cayley's rotation by
  // 2 atan(h w / 2) a step, bodies.c, would have had a wheel turn at
  // speed + speed^3 h^2 / 12). A saturated motor (impulse at a bound) is not
  // tracking: its lag becomes the spring's deflection under that impulse,
  // -eps lambda / h (the steady state of its row), not the distance lost.
  for (int r = 0; r < js->n_rows && r < rows->count; r++) {  // (the joints' rows come first)
    const TsrRow *row = &rows->rows[r];
    if (row->type != TSR_ROW_MOTOR) continue;
    const TsrJointDef *d = &m->joints[row->source];
    double *lag = &js->frames[row->source].motor_lag, l = lambda[r];
    if (fabs(l) >= row->hi * (1.0 - 1e-12)) {
      *lag = -d->compliance * l / h;
      continue;
    }
    double rate = 0.0;
    for (int s = 0; s < 2; s++) {
      int k = row->body[s];
      if (k < 0) continue;
      for (int q = 0; q < 6; q++) rate += row->J[s][q] * v_new[6 * k + q];
    }
    *lag += h * (rate - d->motor_speed);
  }
}

double tsr_joints_max_error(const TsrJoints *js, const TsrModel *m, const TsrBodies *b) {
  double worst = 0.0;
  for (int j = 0; j < js->n; j++) {
    TsrJointCtx c;
    make_ctx(&c, js, m, b, NULL, j, 1.0, NULL);
    double e = 0.0;
    TsrVec3 d = tsr_v3_sub(c.p[0], c.p[1]);
    switch (c.f->type) {
      case TSR_JOINT_DISTANCE: {
        double l = tsr_v3_norm(d) - c.f->length;
        e = c.d->unilateral ? (l > 0 ? l : 0) : fabs(l);
        break;
      }
      case TSR_JOINT_PRISMATIC: {
        // Only the offset across the axis is a violation.
        TsrVec3 n = tsr_q_rotate(c.s[0].q, c.f->axis_a);
        e = tsr_v3_norm(tsr_v3_madd(d, n, -tsr_v3_dot(d, n)));
        break;
      }
      default:
        e = tsr_v3_norm(d);
        break;
    }
    if (e > worst) worst = e;
  }
  return worst;
}
