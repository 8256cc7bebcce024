// SPDX-License-Identifier: MIT
// Rigid-body state and the unconstrained part of the step (seed 000 Eqs. 2, 6).
//
// Six velocity DOF per body: linear velocity of the centre of mass and
// angular velocity, both in the world frame. The mass matrix is
// blockdiag(m I3, I_world) with I_world = R I_body R^T (Eq. 2's M).
//
// The step is semi-implicit (symplectic) Euler:
//   v_free = v + h M^-1 f                 (gravity; gyroscopic term below)
//   v+     = v_free + M^-1 J^T lambda     (Eq. 2, after the MLCP solve)
//   q+     = q + h T(q) v+, quaternions normalised   (Eq. 6)
// The gyroscopic term -w x (I w) is integrated in the body frame by the
// implicit midpoint rule (bodies.c): the explicit form gains energy on a
// tumbling body and backward Euler loses it; the midpoint rule keeps both
// |L| and the rotational energy (tests/physics/test_spin.c).
#ifndef TSR_BODIES_H
#define TSR_BODIES_H

#include "math/tsr_math.h"
#include "model/model.h"

typedef struct {
  int n;
  // hot state
  TsrVec3 *x;  // centre of mass, world
  TsrQuat *q;  // orientation
  TsrVec3 *v;  // linear velocity, world
  TsrVec3 *w;  // angular velocity, world
  // mass properties
  double *inv_mass;       // 0 for fixed bodies
  TsrMat3 *inertia_body;  // body frame
  TsrMat3 *inv_inertia_body;
  double *inv_inertia_world;  // [9n] row-major, refreshed by tsr_bodies_update_inertia
  unsigned char *fixed;
  TsrVec3 *gyro_shift;  // w_mid - w_free of the last free-velocity stage (world); see bodies.c
} TsrBodies;

int tsr_bodies_init(TsrBodies *b, const TsrModel *m);
void tsr_bodies_free(TsrBodies *b);

// I_world^-1 = R I_body^-1 R^T for every body at the current orientation.
void tsr_bodies_update_inertia(TsrBodies *b);

// Adds extra[k] I3 (world frame) to body k's inertia for this step and
// refreshes inv_inertia_world: the diagonal geometric stiffness term h^2 K of
// sim/world.c. Bodies with extra[k] <= 0 are left as they are.
void tsr_bodies_add_isotropic_inertia(TsrBodies *b, const double *extra);

// v_free = v + h M^-1 f for gravity and the (implicit) gyroscopic term;
// six numbers per body (linear, angular). Fixed bodies get zeros.
void tsr_bodies_free_velocity(TsrBodies *b, TsrVec3 gravity, double h, double *v_free);

// v+ = v_free + M^-1 J^T lambda is done by the caller (it owns the rows);
// this stores v+ and advances positions and orientations (Eq. 6).
void tsr_bodies_integrate(TsrBodies *b, const double *v_new, double h);
// The turn tsr_bodies_integrate gives body k over the step at v_new (6 a
// body): returns the angle, 2 atan(h |w_rot| / 2), about w_rot = w+ plus
// the gyroscopic shift (in *w_rot); 0 when w_rot is 0.
static inline double tsr_bodies_turn(const TsrBodies *b, int k, const double *v_new, double h, TsrVec3 *w_rot) {
  const double *s = &v_new[6 * k];
  *w_rot = tsr_v3_add(tsr_v3(s[3], s[4], s[5]), b->gyro_shift[k]);
  double wn = tsr_v3_norm(*w_rot);
  return wn > 0 ? 2.0 * atan(0.5 * h * wn) : 0.0;
}

// Index of the first moving body whose state is not finite, or -1.
int tsr_bodies_find_nonfinite(const TsrBodies *b);

// Angular momentum of body k about its centre of mass, world frame.
TsrVec3 tsr_bodies_angular_momentum(const TsrBodies *b, int k);

#endif
