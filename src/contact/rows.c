// SPDX-License-Identifier: MIT
// Contact rows (seed 000 §3.1, Eqs. 7-12). For a contact with unit normal n
// (pushing body 0 along +n), point p, r_s = p - x_s, and t in {n, t1, t2}:
//
//   J_0 = [ t^T,  (r_0 x t)^T ],   J_1 = [ -t^T,  -(r_1 x t)^T ]
//
// so J v = t . (v_0 + w_0 x r_0 - v_1 - w_1 x r_1), the velocity of body 0's
// material point relative to body 1's along t (> 0 separating, for n).
//
// Normal row: unilateral, lambda_n >= 0 (Eq. 10), with the SPOOK mapping of
// joints/spook.h for the material's (compliance, damping): g = -depth;
// penetrating contacts (g < 0) get C and a g - beta J v, separated contacts
// within the margin get the speculative rhs g / h (they may close the gap in
// this step, no more).
//
// Friction rows (box friction, Eq. 11): -mu lambda_n <= lambda_t <= mu lambda_n
// with lambda_n from the matched contact of the previous step; target zero
// sliding velocity (rhs 0). They carry the SPOOK C of the same compliance as
// a small regularisation: four corner contacts of a box give eight friction
// rows on three tangential DOF, which a direct solver cannot factor without
// it. With rhs 0 that cost a creep of C lambda per step, eps F / (h (1 +
// 4d) / 4) m/s, which grows with the load; the stiction anchor (the slip
// since the contact last stuck as the rows' position error, below and
// tsr_contact_update_slip) takes it back, so a sticking contact deflects by
// eps F and stays. A material with zero compliance uses 1e-10 m/N for its
// friction rows.
//
// The slip is a displacement, not a sum of velocities: two anchors, the
// material points of the two bodies half the slip either side of the
// point; after the step, the slip is where they went (each anchor's own
// displacement under the integrator's step added to the slip), less the
// normal part, and the next step lays it into its own tangent plane. It
// follows both bodies, rotation included, and sees what J v+ = 0 does not: on a turntable a sticking box's centre moves
// on the tangent while the point under it moves on the chord, a radial gap
// of omega^2 R h^2 / 2 a step, and the box went outward at omega^2 R h / 2
// (2.6 cm/s at h = 1/60) while the slip summed h J v+; now it settles at
// (1 + 4 d) / 4 of that gap (tests/physics/test_contact_turntable.c).
// A contact keeps its slip while its rows get, to 1e-5 m/s, the velocity
// they asked for (match.c), at a bound or not, a row at its bound giving
// way by what it did not get: the corners of a box share its load
// unevenly, one reaches its bound while the others hold the box, and
// clearing its slip then left the four corners asking for different
// displacements of one rigid box.
//
// Friction bound (Eq. 11): mu times the matched contact's lambda_n of the
// previous step, 0 included: a matched contact that carried no load (it was
// separated within the margin, or a redundant neighbour carried it) gets no
// friction in this step. Any estimate there adds friction capacity beyond mu
// times the total normal impulse, which holds a chain on a slope steeper than
// atan(mu) (seen on chain_drop). First friction bound of a new contact (no
// match), where there is no previous impulse: lambda_n is
// estimated as the impulse this normal row alone would need to stop the
// approach in this step, from the unconstrained velocity:
//
//   lambda_est = max(0, -(J v_free + rhs)) / (J M^-1 J^T + C),
//
// shared equally among the contacts of the same shape pair that need an
// estimate (four new corners of a landing box each get a quarter of the
// box's stopping impulse, not all of it). Contacts set down at rest get
// each its own part of the pair's joint stopping impulse instead
// (pair_estimate): a box set down thus gets m g h in total, its weight over
// the step, from its first step on.
// When the shape pair was in contact in the previous step and its load is
// not all carried on by matched contacts (a rolling wheel: its points move
// too far along both bodies to match, every step), the unmatched contacts
// that touch (within the margin, or one step of gravity's fall, |g| h^2,
// beyond it) share that load instead when it is larger:
// the stopping impulse sees the wheel's own mass only, and a driven wheel
// under an 800 kg car got 6% of its traction.
//
// Tangent basis (orientation independent). t1 is, in order of preference:
//   1. along the relative sliding velocity at the point, from the
//      unconstrained velocities of this step (v_free: current velocity plus
//      gravity's push), when its tangential part exceeds 1e-5 m/s: box
//      friction is then exact Coulomb for the sliding part;
//   2. along the friction impulse the matched contact carried, when it is
//      more than 1% of that contact's bound mu lambda_n: a contact that
//      sticks under a sideways load (a rope, a joint, another body's push:
//      nothing that shows in v_free) then holds it with mu lambda_n along
//      the load, as Coulomb's cone does, and not with the corner of the box
//      of bounds, up to sqrt(2) mu lambda_n. A 4 kg box on the floor pulled
//      through its centre at 45 degrees to its sides by 1.2 mu m g stayed
//      put (tests/physics/test_contact_friction_truths.c); now it slides
//      from the second step of the pull (the first sees the old t1);
//   3. the matched contact's t1 projected onto the new tangent plane;
//   4. the axis of the lower-indexed moving body's frame most nearly in the
//      tangent plane, projected onto it.
// Every choice is built from the scene's own bodies and velocities, never
// from world axes, so rotating a whole scene rotates its friction with it
// (tests/physics/test_contact_incline.c). t2 = n x t1.
//
// Materials. A material pair (MODEL.md material_pairs) overrides each field it
// gives; other fields combine the two materials: friction sqrt(mu_a mu_b)
// (zero if either is frictionless, mu for like materials), compliance
// eps_a + eps_b (the two surfaces are springs in series), damping
// max(d_a, d_b) (the slower relaxation of the two).
//
// Penetration after the step, estimated (tsr_contact_penetration): depth -
// h (J_n v+), the depth at detection moved by the normal velocity the step
// integrates with (Eq. 6 to first order), at least 0; exact for flat
// contacts that do not rotate. /stats/penetration uses it only when the
// detection at the end of the step (sim/world.c detect_ahead), which finds
// the depths after the step exactly, could not be made.
#include <math.h>
#include <stdlib.h>

#include "contact/contact_internal.h"
#include "joints/spook.h"

int tsr_contact_materials(TsrContacts *cs, const TsrModel *m);
int tsr_contact_materials(TsrContacts *cs, const TsrModel *m) {
  int n = m->n_materials;
  cs->n_materials = n;
  cs->material = malloc(((size_t)n * (size_t)n + 1) * sizeof *cs->material);
  if (!cs->material) return -1;
  for (int a = 0; a < n; a++)
    for (int b = 0; b < n; b++) {
      const TsrMaterial *ma = &m->materials[a], *mb = &m->materials[b];
      TsrContactMaterial c = {sqrt(ma->friction * mb->friction), ma->compliance + mb->compliance,
                              fmax(ma->damping, mb->damping)};
      for (int k = 0; k < m->n_material_pairs; k++) {
        const TsrMaterialPair *p = &m->material_pairs[k];
        if (!((p->material[0] == a && p->material[1] == b) || (p->material[0] == b && p->material[1] == a))) continue;
        if (!isnan(p->friction)) c.friction = p->friction;
        if (!isnan(p->compliance)) c.compliance = p->compliance;
        if (!isnan(p->damping)) c.damping = p->damping;
      }
      cs->material[a * n + b] = c;
    }
  return 0;
}

// J_a M_k^-1 J_b^T of body k for two unit directions na, nb at arms ra, rb:
// (ra x na)^T I^-1 (rb x nb) + (na . nb) / m; 0 for a fixed body.
static double body_coupling(const TsrBodies *b, int k, TsrVec3 ra, TsrVec3 na, TsrVec3 rb, TsrVec3 nb) {
  if (b->fixed[k] || b->inv_mass[k] <= 0.0) return 0.0;
  TsrVec3 a = tsr_v3_cross(ra, na), c = tsr_v3_cross(rb, nb);
  const double *I = &b->inv_inertia_world[9 * k];
  TsrVec3 Ic = tsr_v3(I[0] * c.x + I[1] * c.y + I[2] * c.z, I[3] * c.x + I[4] * c.y + I[5] * c.z,
                      I[6] * c.x + I[7] * c.y + I[8] * c.z);
  return b->inv_mass[k] * tsr_v3_dot(na, nb) + tsr_v3_dot(a, Ic);
}

// (r x t)^T I^-1 (r x t) + 1/m for a moving body.
static double inv_eff_mass(const TsrBodies *b, int k, TsrVec3 r, TsrVec3 t) { return body_coupling(b, k, r, t, r, t); }

// The row's Jacobian for direction t at the contact's point: body 0 along
// t, body 1 against it.
static void set_direction(TsrRow *r, const TsrContact *c, TsrVec3 t) {
  TsrVec3 a0 = tsr_v3_cross(c->r[0], t), a1 = tsr_v3_cross(c->r[1], t);
  double *J0 = r->J[0], *J1 = r->J[1];
  J0[0] = t.x, J0[1] = t.y, J0[2] = t.z, J0[3] = a0.x, J0[4] = a0.y, J0[5] = a0.z;
  J1[0] = -t.x, J1[1] = -t.y, J1[2] = -t.z, J1[3] = -a1.x, J1[4] = -a1.y, J1[5] = -a1.z;
}

static TsrRow *push_row(TsrRowSet *rows, const TsrContact *c, int source, TsrVec3 t, int8_t type) {
  TsrRow *r = tsr_rowset_push(rows);
  if (!r) return NULL;
  r->body[0] = c->body[0];
  r->body[1] = c->body[1];
  set_direction(r, c, t);
  r->type = type;
  r->source = source;
  return r;
}

#define FRICTION_ALIGN 1e-2
// Above this tangential speed (m/s) in the free velocities a contact slides
// (tangent()'s first rule, kinetic()).
#define FREE_SLIDE 1e-5
// t1 from vt, the tangential part of the free relative velocity.
static TsrVec3 tangent(const TsrContacts *cs, const TsrContact *c, const TsrBodies *b, TsrVec3 vt) {
  TsrVec3 n = c->normal;
  double s = tsr_v3_norm(vt);
  if (s > FREE_SLIDE) return tsr_v3_scale(vt, 1.0 / s);
  if (c->match >= 0) {
    const TsrContact *p = &cs->prev[c->match];
    // Along the friction the matched contact carried, when it is more than
    // FRICTION_ALIGN of its bound, signed to keep t1's side (warm start).
    TsrVec3 f = tsr_v3_add(tsr_v3_scale(p->t1, p->impulse[1]), tsr_v3_scale(p->t2, p->impulse[2]));
    f = tsr_v3_madd(f, n, -tsr_v3_dot(f, n));
    double fl = tsr_v3_norm(f);
    if (fl > FRICTION_ALIGN * c->friction * fmax(p->impulse[0], 0.0) && fl > 0.0)
      return tsr_v3_scale(f, (tsr_v3_dot(f, p->t1) < 0.0 ? -1.0 : 1.0) / fl);
    TsrVec3 t = p->t1;
    t = tsr_v3_madd(t, n, -tsr_v3_dot(t, n));
    double l = tsr_v3_norm(t);
    if (l > 0.1) return tsr_v3_scale(t, 1.0 / l);
  }
  int k = !b->fixed[c->body[0]] ? c->body[0] : c->body[1];
  TsrVec3 best = tsr_v3(0, 0, 0);
  double best_dot = INFINITY;
  const TsrVec3 axes[3] = {tsr_v3(1, 0, 0), tsr_v3(0, 1, 0), tsr_v3(0, 0, 1)};
  for (int i = 0; i < 3; i++) {
    TsrVec3 a = tsr_q_rotate(b->q[k], axes[i]);
    double d = fabs(tsr_v3_dot(a, n));
    if (d < best_dot - 1e-12) best_dot = d, best = a;
  }
  return tsr_v3_normalize(tsr_v3_madd(best, n, -tsr_v3_dot(best, n)));
}

// Kinetic friction. A contact whose t1 row slid at its bound in the step
// before (match.c, slid: short of the velocity it asked for by more than
// 1e-5 m/s, and the bodies did not roll on each other there) and that still
// slides in the free velocities (t1 along that slide: tangent()'s first
// rule) slides on, and Coulomb's friction is then all along t1, against
// the slide: its t2 row gets no bound. With the box's t2 bound of
// mu lambda_n the t2 row held the slide to t1's direction (it asks for no
// velocity across t1), with up to mu lambda_n of friction across it: a
// 2 kg box thrown at 3 m/s, 3 degrees off the course of the 10 kg box it
// rode on, which slowed faster under it, was dragged sideways at 0.6 m/s^2
// and was 0.69 m/s off Coulomb's velocity after half a second; now 0.015
// at most (tests/physics/test_contact_friction_truths.c, ride_askew). Friction at its
// bound does no work against the slide it opposes (complementarity), so
// this adds no energy. A contact that sticks again has its t1 row inside
// its bounds and gets t2's bound back the step after. Rolling contacts
// are left out: their points move over both surfaces, t1 turns with the
// spin from step to step, and without t2's hold a spinning log landing on
// an upright one's end was thrown at 2 m/s and links wrapped on a drum
// gained energy (chain_wrap: 5 J).
// free_slide: the tangential speed of the free relative velocity.
static int kinetic(const TsrContacts *cs, const TsrContact *c, double free_slide) {
  if (c->match < 0) return 0;
  const TsrContact *p = &cs->prev[c->match];
  return p->slid && p->index_set[1] != TSR_INDEX_FREE && free_slide > FREE_SLIDE;
}

// Bounds of a contact's two friction rows f[0] (t1), f[1] (t2) for
// +-bound: none across a kinetic contact's slide.
static void friction_bounds(TsrRow *f, const TsrContact *c, double bound) {
  f[0].lo = -bound, f[0].hi = bound;
  f[1].lo = c->kinetic ? 0.0 : -bound, f[1].hi = c->kinetic ? 0.0 : bound;
}

// The stiction anchor's share of a friction row's rhs along t (SPOOK's
// 4 g / (h (1 + 4 d)), g the slip along t: build_rows).
static double anchor_rhs(const TsrContact *c, TsrVec3 t, double h) {
  return 4.0 * tsr_v3_dot(c->slip, t) / (h * (1.0 + 4.0 * c->damping));
}

// J_a M^-1 J_b^T of two normal rows of one body pair: what an impulse on
// contact b does to the approach speed at contact a.
static double pair_coupling(const TsrBodies *b, const TsrContact *ca, const TsrContact *cb) {
  return body_coupling(b, ca->body[0], ca->r[0], ca->normal, cb->r[0], cb->normal) +
         body_coupling(b, ca->body[1], ca->r[1], ca->normal, cb->r[1], cb->normal);
}

// The normal impulses that would stop the approach of a shape pair's new
// contacts together, lambda >= 0 with K lambda >= approach and complementarity
// (K_ab = J_a M^-1 J_b^T, the rows' compliance on its diagonal): a small
// LCP, by projected Gauss-Seidel. Each row alone stops at approach / K_aa,
// which at a box's corner sees mostly the box's rotation: a 2 kg box set down
// on a 20 degree slope got 18% of its weight as friction bound in its first
// step, and slid 23 mm at mu = tan(20) + 0.005 (h = 1/60) before it stuck;
// pushed along the ground at 1 m/s, it lost 0.004 m/s in its first step
// instead of mu g h = 0.020 (h = 1/240). Together, the four corners stop it
// with its weight m g h: no slide, and the first step's loss is mu g h.
//
// Only where every approach (the free velocity toward the surface, less
// what the speculative gap allows, rhs) is within RESTING_APPROACH steps of
// gravity, |g| h: contacts set down, or reached within the step at about
// that speed; at an impact the row-alone estimate stays. There the
// joint one changed how a 500 kg box landing edge-first on a fixed cylinder
// log turned, its edge left the log beyond the margin, and the ground's
// impulse in the next step drove it 17 mm into the log, which had no
// contact left to stop it (test_contact_landing, test_box_edge_on_log): a
// gap of the speculative contacts, which see this step's free velocity and
// not what other contacts do to it. Into c->bound_normal of the n contacts
// row[0..n) (the pair's total, split as the row-alone estimates; see the
// end); returns 0 (nothing written) for an impact, a row without
// positive K_aa, or when the sweeps leave a residual above 1e-3 of the
// largest approach. The caller keeps the row-alone estimate then, and for
// pairs with more than PAIR_ESTIMATE_MAX new contacts.
#define PAIR_ESTIMATE_MAX 16
#define PAIR_ESTIMATE_SWEEPS 200
#define PAIR_ESTIMATE_TOL 1e-6     // stop: every row's speed within this of the largest approach
#define PAIR_ESTIMATE_ACCEPT 1e-3  // after the last sweep: good enough for a friction bound
#define RESTING_APPROACH 2.0
static int pair_estimate(TsrContacts *cs, const TsrBodies *b, int n, const int *row, const double *approach,
                         const double *kaa, double g_h) {
  for (int a = 0; a < n; a++)
    if (approach[a] > RESTING_APPROACH * g_h) return 0;
  double K[PAIR_ESTIMATE_MAX][PAIR_ESTIMATE_MAX], l[PAIR_ESTIMATE_MAX];
  for (int a = 0; a < n; a++) {
    for (int c = 0; c < n; c++) K[a][c] = c == a ? kaa[a] : pair_coupling(b, &cs->c[row[a]], &cs->c[row[c]]);
    if (!(K[a][a] > 0.0)) return 0;
    l[a] = 0.0;
  }
  // Stop on the LCP's own residual, in speed units: its change per sweep
  // never settles for coplanar corners (K is singular but for the rows'
  // compliance, and the sweeps creep along that direction while the speeds
  // are already right); stopping there sent a 200 kg box, or any box at
  // h = 1/240, back to the row-alone estimate.
  double amax = 0.0;
  for (int a = 0; a < n; a++) amax = fmax(amax, approach[a]);
  double res = INFINITY;
  for (int sweep = 0; sweep < PAIR_ESTIMATE_SWEEPS && !(res <= PAIR_ESTIMATE_TOL * amax); sweep++) {
    for (int a = 0; a < n; a++) {
      double w = -approach[a];
      for (int c = 0; c < n; c++) w += K[a][c] * l[c];
      l[a] = fmax(0.0, l[a] - w / K[a][a]);
    }
    res = 0.0;  // Eq. 29 of the small LCP, after the sweep
    for (int a = 0; a < n; a++) {
      double w = -approach[a];
      for (int c = 0; c < n; c++) w += K[a][c] * l[c];
      res = fmax(res, fabs(fmin(l[a] * K[a][a], w)));
    }
  }
  if (!(res <= PAIR_ESTIMATE_ACCEPT * amax)) return 0;
  // The total is what the pair needs; its split is not: collinear or
  // coplanar contacts (a wheel's line, a box's face) leave K singular but
  // for the compliance, and the sweeps end at a lopsided split that depends
  // on their order. Lopsided friction bounds turn a body: a wheel spun up on
  // the ground drifted 1.4 m sideways into a ball beside it. So the total is
  // shared as the row-alone estimates are (in bound_normal on entry), and
  // equally where they are all 0.
  double total = 0.0, alone = 0.0;
  for (int a = 0; a < n; a++) total += l[a], alone += cs->c[row[a]].bound_normal;
  for (int a = 0; a < n; a++) {
    TsrContact *c = &cs->c[row[a]];
    c->bound_normal = alone > 0.0 ? total * c->bound_normal / alone : total / n;
  }
  return 1;
}

int tsr_contact_build_rows(TsrContacts *cs, const TsrModel *m, const TsrBodies *b, const double *v_free, double h,
                           TsrRowSet *rows) {
  cs->first_row = rows->count;
  int group_start = 0, need = 0;
  // this pair's contacts that need an estimate: their approach speeds and
  // diagonals of K (J M^-1 J^T + compliance of their normal rows)
  int est_row[PAIR_ESTIMATE_MAX];
  double est_approach[PAIR_ESTIMATE_MAX], est_k[PAIR_ESTIMATE_MAX];
  const double g_h = tsr_v3_norm(m->settings.gravity) * h;  // one step of gravity, speed
  for (int i = 0; i < cs->n; i++) {
    TsrContact *c = &cs->c[i];
    int b0 = c->body[0], b1 = c->body[1];
    const TsrContactMaterial *mat = &cs->material[m->bodies[b0].material * cs->n_materials + m->bodies[b1].material];
    c->friction = mat->friction;
    c->compliance = mat->compliance;
    c->damping = mat->damping;
    c->r[0] = tsr_v3_sub(c->point, b->x[b0]);
    c->r[1] = tsr_v3_sub(c->point, b->x[b1]);
    TsrVec3 n = c->normal;

    // Normal row.
    TsrRow *rn = push_row(rows, c, i, n, TSR_ROW_CONTACT_NORMAL);
    if (!rn) return -1;
    TsrVec3 v_rel = tsr_v3_sub(tsr_contact_state_velocity(b, b0, c->r[0]), tsr_contact_state_velocity(b, b1, c->r[1]));
    double g = -c->depth;
    rn->compliance = tsr_spook_compliance(c->compliance, c->damping, h);
    rn->rhs = tsr_spook_rhs(g, tsr_v3_dot(n, v_rel), c->damping, h, 1);
    rn->lo = 0.0;
    rn->hi = INFINITY;
    rn->violation = g;

    // Friction bound: the matched contact's lambda_n, else an estimate.
    TsrVec3 vf_rel = tsr_v3_sub(tsr_contact_point_velocity(b, v_free, b0, c->r[0]),
                                tsr_contact_point_velocity(b, v_free, b1, c->r[1]));
    c->estimated = c->match < 0;
    if (!c->estimated) {
      c->bound_normal = fmax(cs->prev[c->match].impulse[0], 0.0);
    } else {
      double k = inv_eff_mass(b, b0, c->r[0], n) + inv_eff_mass(b, b1, c->r[1], n) + rn->compliance;
      double approach = -(tsr_v3_dot(n, vf_rel) + rn->rhs);
      c->bound_normal = k > 0.0 && approach > 0.0 ? approach / k : 0.0;
      if (need < PAIR_ESTIMATE_MAX) est_row[need] = i, est_approach[need] = approach, est_k[need] = k;
      need++;
    }

    // Friction rows.
    const TsrVec3 vf_t = tsr_v3_madd(vf_rel, n, -tsr_v3_dot(vf_rel, n));
    c->t1 = tangent(cs, c, b, vf_t);
    c->t2 = tsr_v3_cross(n, c->t1);
    c->kinetic = kinetic(cs, c, tsr_v3_norm(vf_t));
    double eps_f = c->compliance > 0.0 ? c->compliance : 1e-10;
    // The stiction anchor: the slip since the contact last stuck, measured
    // after the step before and laid into the new tangent plane, is the
    // friction rows' position error (SPOOK, as a joint's: the 4 g / (h (1 +
    // 4d)) part of tsr_spook_rhs). Without it a sticking contact crept at
    // C lambda for ever, which grows with the load (a 1e4 kg box on a 20
    // degree slope, mu 0.6: 4.5e-4 m/s at h = 1/60, 7.5e-3 m/s at 1/1000);
    // with it the slip settles at the compliance's own deflection.
    TsrVec3 slip = c->match >= 0 ? cs->prev[c->match].slip : tsr_v3(0, 0, 0);
    c->slip = tsr_v3_madd(slip, n, -tsr_v3_dot(slip, n));
    for (int k = 0; k < 2; k++) {
      TsrVec3 t = k ? c->t2 : c->t1;
      TsrRow *rf = push_row(rows, c, i, t, TSR_ROW_CONTACT_FRICTION);
      if (!rf) return -1;
      rf->compliance = tsr_spook_compliance(eps_f, c->damping, h);
      rf->rhs = anchor_rhs(c, t, h);
      rf->violation = 0.0;
    }

    // At the end of a shape pair: share the estimates, set the bounds.
    int last = i + 1 == cs->n || cs->c[i + 1].shape[0] != c->shape[0] || cs->c[i + 1].shape[1] != c->shape[1];
    if (!last) continue;
    // Unmatched contacts that touch, those that can take on a carried load:
    // within the margin, or less than one step of gravity's fall, |g| h^2,
    // beyond it. Without that slack the two rim points of a cylinder
    // sliding and rolling down a slope, which carry equal loads at depths
    // of ~1e-8 m, split the carried load 2:0 as soon as a tilt of 1e-7 rad
    // put one of them 1e-10 m off the slope: it kept its own estimate, the
    // other got the whole load as its bound, and the lopsided friction
    // turned the cylinder at 0.1 rad/s (pgs; a = g (sin - mu cos) was 5%
    // off). A speculative point a fast wheel brings down from 35 cm
    // (below) is still far outside it.
    const double touch = cs->margin + g_h * h;
    int touching = 0;
    for (int j = group_start; j <= i; j++) touching += cs->c[j].estimated && cs->c[j].depth > -touch;
    int joint = need > 1 && need <= PAIR_ESTIMATE_MAX && pair_estimate(cs, b, need, est_row, est_approach, est_k, g_h);
    for (int j = group_start; j <= i; j++) {
      TsrContact *cj = &cs->c[j];
      // An unmatched contact gets its share of the pair's estimate, or, if
      // it touches, of the load the pair carried last step that no matched
      // contact carries on, whichever is larger. A speculative contact
      // (farther than the margin: a point of a fast wheel that could reach
      // the ground within the step) carries none of it: its friction rows
      // would hold the car by points 35 cm above the road.
      if (cj->estimated) {
        double share = joint ? cj->bound_normal : cj->bound_normal / need;
        if (cj->depth > -touch) share = fmax(share, cj->carried / touching);
        cj->bound_normal = share;
      }
      // A zero bound (the contact carried no load last step, or a
      // frictionless material) fixes the friction rows at 0 (lo = hi = 0):
      // every solver treats such a row as fixed. Widening it to a tiny box
      // instead made the row flip between free and tight inside the
      // pivoting tolerance, and direct BPP wander (sliding sphere chain).
      double bound = cj->friction * cj->bound_normal;
      if (!(bound > 0.0)) bound = 0.0;
      friction_bounds(&rows->rows[cs->first_row + 3 * j + 1], cj, bound);
    }
    group_start = i + 1;
    need = 0;
  }
  return 0;
}

// The speed error, in m/s, that contact i's friction bound leaves in the
// solution lambda: for each friction row, the impulse withheld from it at a
// bound below mu lambda_n, or the friction it carries beyond mu lambda_n,
// times its diagonal of A (the sliding speed that impulse makes there).
// *gap: the same for the bound itself, |mu lambda_n - bound| times the
// larger diagonal, whether the rows use it or not.
static double friction_error(const TsrContacts *cs, const TsrMlcp *p, const double *lambda, int i, double *gap) {
  const TsrContact *c = &cs->c[i];
  const int r0 = cs->first_row + 3 * i;
  const double nb = c->friction * fmax(lambda[r0], 0.0), ob = p->hi[r0 + 1];
  double worst = 0.0, amax = 0.0;
  for (int t = 1; t < 3; t++) {
    const double lt = fabs(lambda[r0 + t]), a = tsr_mlcp_diag(p, r0 + t);
    if (nb > ob && lt >= ob * (1.0 - 1e-9)) worst = fmax(worst, (nb - ob) * a);
    if (lt > nb) worst = fmax(worst, (lt - nb) * a);
    amax = fmax(amax, a);
  }
  *gap = fabs(nb - ob) * amax;
  return worst;
}

int tsr_contact_refresh_friction(TsrContacts *cs, TsrRowSet *rows, TsrMlcp *p, const double *lambda, double dv) {
  double gap;
  int any = 0;
  for (int i = 0; i < cs->n && !any; i++) any = cs->c[i].friction > 0.0 && friction_error(cs, p, lambda, i, &gap) > dv;
  if (!any) return 0;
  // Some row is wrong: every bound that is off by more than dv follows its
  // lambda_n, used or not, since the next solve moves load between
  // contacts (a light block under a heavy one sliding over it: once the
  // top contact's friction is refreshed, the block's bottom contact must
  // hold it with its own new load, or the block is dragged along).
  int changed = 0;
  for (int i = 0; i < cs->n; i++) {
    TsrContact *c = &cs->c[i];
    if (!(c->friction > 0.0)) continue;  // frictionless: its rows stay fixed at 0
    friction_error(cs, p, lambda, i, &gap);
    if (!(gap > dv)) continue;
    const int r0 = cs->first_row + 3 * i;
    const double ln = fmax(lambda[r0], 0.0), nb = c->friction * ln;
    c->bound_normal = ln;
    friction_bounds(&rows->rows[r0 + 1], c, nb);
    for (int t = 1; t < 3; t++) p->lo[r0 + t] = rows->rows[r0 + t].lo, p->hi[r0 + t] = rows->rows[r0 + t].hi;
    changed++;
  }
  return changed;
}

// The relative velocity of contact c's point, body 0's less body 1's, in
// its tangent plane, from the bodies' velocities v6 [6n].
static TsrVec3 tangential(const TsrBodies *b, const double *v6, const TsrContact *c) {
  const TsrVec3 v = tsr_v3_sub(tsr_contact_point_velocity(b, v6, c->body[0], c->r[0]),
                               tsr_contact_point_velocity(b, v6, c->body[1], c->r[1]));
  return tsr_v3_madd(v, c->normal, -tsr_v3_dot(v, c->normal));
}

int tsr_contact_first_friction(TsrContacts *cs, const TsrBodies *b, const double *v_free, const double *v_new, double h,
                               TsrRowSet *rows, const double *lambda) {
  int changed = 0;
  for (int i = 0; i < cs->n; i++) {
    TsrContact *c = &cs->c[i];
    if (!c->estimated || !(c->friction > 0.0)) continue;
    const int r0 = cs->first_row + 3 * i;
    const double ln = fmax(lambda[r0], 0.0), bound = c->friction * ln;
    // t1: where the free velocities slide at the point by more than
    // FIRST_FRICTION_SLIP, kept (along that slide already: tangent(), rule
    // 1). Elsewhere along the slip the first solve left, where that is
    // more: the direction the contact slides in, or the load its friction
    // must hold (that solve's bound was 0 there, or an estimate). Taking
    // the first solve's slip where v_free already gave one made the two rim
    // points of a cylinder sliding down a slope lopsided by PGS's inexact
    // solve, and it drifted across the slope at 2e-4 m/s.
    TsrVec3 t1 = c->t1;
    if (tsr_v3_norm(tangential(b, v_free, c)) <= FIRST_FRICTION_SLIP) {
      const TsrVec3 vt = tangential(b, v_new, c);
      const double s = tsr_v3_norm(vt);
      if (s > FIRST_FRICTION_SLIP) t1 = tsr_v3_scale(vt, 1.0 / s);
    }
    TsrRow *f = &rows->rows[r0 + 1];
    if (bound == f->hi && t1.x == c->t1.x && t1.y == c->t1.y && t1.z == c->t1.z) continue;
    c->t1 = t1;
    c->t2 = tsr_v3_cross(c->normal, t1);
    c->bound_normal = ln;
    friction_bounds(f, c, bound);
    for (int k = 0; k < 2; k++) {
      set_direction(&f[k], c, k ? c->t2 : c->t1);
      f[k].rhs = anchor_rhs(c, k ? c->t2 : c->t1, h);
    }
    changed++;
  }
  return changed;
}

double tsr_contact_penetration(const TsrContacts *cs, const TsrBodies *b, const double *v_new, double h) {
  double worst = 0.0;
  for (int i = 0; i < cs->n; i++) {
    const TsrContact *c = &cs->c[i];
    TsrVec3 v = tsr_v3_sub(tsr_contact_point_velocity(b, v_new, c->body[0], c->r[0]),
                           tsr_contact_point_velocity(b, v_new, c->body[1], c->r[1]));
    // The depth after the step, and the depth it was found at: a point that
    // had no contact in the step before (a body struck within it, turned
    // past its speculative reach) is found here already inside, and the step
    // then pushes it out; after the step alone, rock_pile's largest read
    // 0.15 mm where a box's corner had been 37 mm into the ground.
    double d = fmax(c->depth, c->depth - h * tsr_v3_dot(c->normal, v));
    if (d > worst) worst = d;
  }
  return worst;
}
