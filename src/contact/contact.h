// SPDX-License-Identifier: MIT
// Contact: collision detection with ODE's collision library (geometry only),
// matching of contacts across steps, and the contact rows of seed 000 §3.1
// (Eqs. 7-12): one unilateral normal row and two box-friction rows each.
//
// Per step the world calls, in its stages:
//   collide    tsr_contact_collide_at    shapes at q -> contacts, each matched
//                                        to a contact of the previous step (or
//                                        those detected ahead, below)
//   constrain  tsr_contact_build_rows    contacts -> rows (after the joint rows)
//              tsr_contact_warm_start    lambda / index set of those rows from
//                                        the matched contacts
//   solve      tsr_contact_store         the solution back into the contacts
//   ahead      tsr_contact_detect_ahead  the next step's contacts at the state
//                                        after the step: its penetration
//              tsr_contact_penetration   (an estimate of it, when that fails)
//
// Conventions (OUTPUT.md /contacts): body[0] < body[1] in shape order; the
// normal is unit and world-frame, and a positive normal impulse pushes body 0
// along +normal and body 1 along -normal (ODE's own convention for dCollide's
// first geom, checked in tests/physics/test_contact_basics.c). depth > 0 is
// overlap; with contact.margin > 0 contacts are also made for separations up
// to the margin (depth down to -margin).
//
// The rules this module follows are written out at the top of match.c
// (matching, warm start) and rows.c (materials, tangents, first friction
// bound, penetration after the step).
#ifndef TSR_CONTACT_H
#define TSR_CONTACT_H

#include <stdint.h>

#include "dynamics/bodies.h"
#include "mlcp/mlcp.h"
#include "model/model.h"

typedef struct {
  int body[2];       // model body indices (fixed bodies included), body[0] from shape[0]
  int shape[2];      // model shape indices, shape[0] < shape[1]
  TsrVec3 point;     // world, at detection
  TsrVec3 normal;    // unit, world; pushes body 0 along +normal
  double depth;      // penetration at detection, m (< 0: separated, within the margin)
  TsrVec3 local[2];  // the point in each body's frame (for matching)
  int match;         // contact of the previous step this one continues, or -1
  int solved;        // after tsr_contact_recollide: the contact of the step's first solve it is, or -1
  // filled by tsr_contact_build_rows
  TsrVec3 t1, t2;                        // tangent basis, t2 = normal x t1
  double friction, compliance, damping;  // combined material (rows.c)
  double bound_normal;                   // the lambda_n that bounds friction this step (Eq. 11)
  int estimated;                         // 1 when bound_normal is the first-step estimate (rows.c)
  int kinetic;                           // 1 when it slides on from the step before: t2 gets no friction (rows.c)
  double carried;  // the shape pair's normal impulse of the previous step that no matched contact continues (match.c)
  TsrVec3 r[2];    // point minus each body's centre of mass at detection
  TsrVec3 slip;    // tangential slip of body 0 over body 1 at the point since the contact last stuck (rows.c)
  // filled by tsr_contact_store
  double impulse[3];  // normal, t1, t2 (N s)
  int8_t index_set[3];
  // filled by tsr_contact_update_slip: its t1 row slid at its bound in the
  // step (short of the velocity it asked for by more than 1e-5 m/s) and the
  // bodies did not roll on each other there (rows.c kinetic)
  int slid;
} TsrContact;

typedef struct {
  double friction, compliance, damping;
} TsrContactMaterial;

typedef struct TsrCollider TsrCollider;  // ODE geoms and space (collide.c)

typedef struct {
  TsrCollider *collider;
  int n, cap;  // this step's contacts, sorted by (shape[0], shape[1]) then ODE's order
  TsrContact *c;
  int n_prev, cap_prev;  // the previous step's contacts
  TsrContact *prev;
  int n_first, cap_first;  // this step's contacts as first solved, when tsr_contact_recollide ran
  TsrContact *first;
  int cap_fresh;  // scratch of tsr_contact_recollide: its own detection
  TsrContact *fresh;
  // The next step's contacts, detected at the end of this one
  // (tsr_contact_detect_ahead), unmatched; have_ahead 0 when there are none.
  int n_ahead, cap_ahead, have_ahead;
  TsrContact *ahead;
  int n_materials;
  TsrContactMaterial *material;  // [n_materials^2], combined per pair (rows.c)
  double *shape_size;            // [n_shapes] smallest dimension of each shape (plane: INFINITY)
  double margin;
  int first_row;  // index of the first contact row in this step's row set
  // scratch for matching
  int cap_scratch;
  int *scratch;
} TsrContacts;

// Creates one ODE geom per shape and the broad-phase space, and checks that
// ODE can collide every pair of shape types that may meet (bodies not both
// fixed, not the same body, not joined by a joint without `collide: true`).
// Returns 0, or -1 with a message naming the two bodies and shape types.
int tsr_contact_init(TsrContacts *cs, const TsrModel *m, char *err, int errlen);
void tsr_contact_free(TsrContacts *cs);

// Detects this step's contacts at the bodies' current state and matches each
// to the previous step's contacts. 0, or -1 when out of memory or when ODE
// raised an internal error (no further detection can be made then);
// tsr_contact_error says which.
int tsr_contact_collide(TsrContacts *cs, const TsrModel *m, const TsrBodies *b);
const char *tsr_contact_error(const TsrContacts *cs);

// Detection ahead (sim/world.c): the contacts the next step's
// tsr_contact_collide would detect, detected at the end of this step, while
// this step's contacts stay in c. Their depths are the penetration after the
// step (OUTPUT.md /stats/penetration); the next step takes them instead of
// detecting again when it starts from the state they were detected at. 0,
// or -1 as tsr_contact_collide (no contacts are kept ahead then).
int tsr_contact_detect_ahead(TsrContacts *cs, const TsrModel *m, const TsrBodies *b);
// The largest depth of the contacts detected ahead, at least 0.
double tsr_contact_ahead_depth(const TsrContacts *cs);
// As tsr_contact_collide; with `take` (the bodies' state is the one the
// contacts ahead were detected at), the contacts ahead are this step's.
int tsr_contact_collide_at(TsrContacts *cs, const TsrModel *m, const TsrBodies *b, int take);

// Appends 3 rows per contact (normal, t1, t2) to rows, in contact order.
// v_free: the unconstrained velocities of this step [6n] (tangent choice and
// the first friction bound of new contacts); b's inv_inertia_world must be
// current.
int tsr_contact_build_rows(TsrContacts *cs, const TsrModel *m, const TsrBodies *b, const double *v_free, double h,
                           TsrRowSet *rows);

// Warm start of the contact rows (starting at cs->first_row) from the matched
// contacts: normal impulse copied, friction impulse projected onto the new
// tangent basis and clamped to the new bounds; unmatched contacts start at 0,
// free when approaching, else at the lower bound (match.c).
void tsr_contact_warm_start(const TsrContacts *cs, const TsrRowSet *rows, double *lambda, int8_t *index_set);

// Struck bodies (recollide.c). A body struck within the step (a light box
// under a landing rock, a cylinder spun up by a falling capsule) leaves it
// at a velocity v+ that carries it farther than the reach its contacts were
// detected with (collide.c sweep_margin: from the velocity at the start of
// the step), into shapes it has no contact with.
// tsr_contact_struck: how many moving shapes would reach, at v_new [6n],
// farther than this step's detections covered, by more than tol (m).
// tsr_contact_recollide: detects again at the same poses with b_plus (the
// bodies with their velocities set to v+) and adds to this step's contacts
// those it finds that they do not have (no contact of the same shape pair
// within the matching radius of match.c); the set is matched to the
// previous step's again, and each contact's `solved` names the contact of
// the first set it is (cs->first), or -1. 0, or -1 as tsr_contact_collide.
// tsr_contact_warm_start_solved: as tsr_contact_warm_start, but from the
// first solve (cs->first), for solving the step again.
int tsr_contact_struck(const TsrContacts *cs, const TsrModel *m, const TsrBodies *b, const double *v_new, double tol);
int tsr_contact_recollide(TsrContacts *cs, const TsrModel *m, const TsrBodies *b_plus);
void tsr_contact_warm_start_solved(const TsrContacts *cs, const TsrRowSet *rows, double *lambda, int8_t *index_set);

// Stores the solved impulses (and index sets) of the contact rows.
void tsr_contact_store(TsrContacts *cs, const double *lambda, const int8_t *index_set);

// After the step's velocities v_new [6 n] (Eq. 2, and the poses of Eq. 6
// they made): each contact that sticks (both friction rows get, to 1e-5
// m/s, the velocity they asked for, w = J v+ + C lambda + rhs, at a bound
// or not) adds to its slip how far its two anchors (the bodies' material
// points half the slip either side of the point) moved apart
// with their bodies over the step, or, where the bodies roll on each
// other, h times its tangential J v+, less h w of a row at its bound (that
// part slid); the normal part is dropped (match.c). Any other's slip is
// cleared (it slides, or carries no friction). The next step's friction
// rows pull the slip back (rows.c: the stiction anchor).
void tsr_contact_update_slip(TsrContacts *cs, const TsrBodies *b, const TsrRowSet *rows, const double *lambda,
                             const double *v_new, double h);

// Friction bounds refreshed from this step's solution (seed 000 §8.2's
// remedy for Eq. 11's lagging lambda_n: "an initial pass to estimate the
// normal force at each time step and then updating Coulomb friction bounds
// accordingly"). For each contact whose friction rows, in lambda, either
// sit at a bound below mu lambda_n or exceed mu lambda_n, by an impulse
// that would change the sliding speed there (that row's diagonal of A) by
// more than dv m/s, both friction rows get the bounds +-mu lambda_n, in p
// and in rows, and bound_normal becomes lambda_n. Returns how many
// contacts changed; the caller solves again when any did.
#define TSR_FRICTION_REFRESH_SPEED 0.05  // m/s
int tsr_contact_refresh_friction(TsrContacts *cs, TsrRowSet *rows, TsrMlcp *p, const double *lambda, double dv);

// The first step's friction, from a first solve of it (lambda, and the
// velocities v_new [6n] it gave). No contact has a lambda_n of a step
// before, so every friction bound of the first solve is an estimate
// (rows.c), and the estimate sees no load where both bodies fall together
// in the free velocities: the upper boxes of a stack, a box on a plank
// held by a joint. Each such contact (estimated, with friction) gets the
// bounds +-mu lambda_n of the first solve, and, unless the free
// velocities v_free [6n] slide at its point by more than
// FIRST_FRICTION_SLIP (then t1 is along that slide already), t1 along the
// slip the first solve left there where that exceeds FIRST_FRICTION_SLIP
// (the direction it slides in, or the load its friction must hold), in
// rows and in the contact. Returns how many contacts changed; the caller
// assembles the MLCP again and solves it (sim/world.c).
// FIRST_FRICTION_SLIP, 1 mm/s: far above the solvers' differences in
// velocity (1e-6 of the speeds), whose direction t1 would otherwise follow
// from solver to solver; a slope of 0.35 degrees pushes a body by g sin h =
// 1 mm/s in a step at h = 1/60.
#define FIRST_FRICTION_SLIP 1e-3  // m/s
int tsr_contact_first_friction(TsrContacts *cs, const TsrBodies *b, const double *v_free, const double *v_new, double h,
                               TsrRowSet *rows, const double *lambda);

// Largest penetration of the step's contacts: after the step, linearised
// (depth - h * (normal separating velocity at v+)), or at detection, the
// start of the step, where deeper (the end of the step before, for a point
// that went in with no contact); at least 0. v_new: v+ [6n] (linear,
// angular).
double tsr_contact_penetration(const TsrContacts *cs, const TsrBodies *b, const double *v_new, double h);

// Whether ODE 0.16 collides these two shape types (probed once by colliding
// two overlapping geoms).
int tsr_contact_pair_supported(TsrShapeType a, TsrShapeType b);

// Shapes overlapping at the initial configuration by more than this fraction
// of the thinner shape's smallest dimension (a capsule's diameter, a box's
// shortest edge): deeper than any resting contact a model starts with.
#define TSR_OVERLAP_FRACTION 0.25

typedef struct {
  int body[2];   // model body indices
  double depth;  // deepest overlap of the two shapes, m
  double size;   // the thinner shape's smallest dimension, m
} TsrOverlap;

// Collides the model's shapes at t = 0 (overlap.c). Returns how many pairs of
// shapes overlap by more than TSR_OVERLAP_FRACTION of their size, and fills
// out[0..min(that, max_out)) with the deepest relative to size, deepest
// first; -1 with a message in err when the shapes cannot be collided, -2
// when that is because too many share one place (tsr_contact_detect refuses
// a sweep and prune of over 2e6 pairs of overlapping boxes).
int tsr_contact_overlaps(const TsrModel *m, TsrOverlap *out, int max_out, char *err, int errlen);

const char *tsr_contact_shape_name(TsrShapeType t);

#endif
