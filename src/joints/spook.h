// SPDX-License-Identifier: MIT
// From a row's (compliance eps, damping d in time steps) to its entry of C and
// its share of b: the SPOOK discretisation (Lacoursiere 2007), stated here
// once for every joint and contact row.
//
// For a constraint g(q) with velocity J v = dg/dt, SPOOK asks at step h
//
//   J v+ + C lambda + a g - beta J v = w,   C = 4 eps / (h^2 (1 + 4 d)),
//                                           a = 4 / (h (1 + 4 d)),
//                                           beta = 1 / (1 + 4 d),
//
// with lambda an impulse (N s). This is seed 000 Eq. 3 with phi/h = a g and
// w0 = beta J v. Derivation of the C that makes eps a physical compliance: at
// rest (v = v+ = 0) a static force F gives lambda = F h, and the row reads
// C F h + a g = 0, i.e. g = -C h F / a = -(4 eps / (h^2 (1+4d))) h F h (1+4d) / 4
// = -eps F: the joint stretches by compliance x load, independent of h and d
// (tests/physics/test_compliance.c). d sets how fast a violation decays: for
// a stiff row (eps -> 0) the error dynamics, with z = h J v,
//   z_{k+1} = -4 beta g_k + beta z_k,   g_{k+1} = g_k + z_{k+1},
// have characteristic polynomial x^2 - (1 - 3 beta) x + beta: both roots
// inside the unit circle for every d > 0, and for d = 2 (beta = 1/9, the
// default) a double root at 1/3, critically damped: a violation or an
// inconsistent velocity dies out in a few steps without overshoot.
//
// Unilateral rows (limits, slack ropes, contact) that are not violated
// (g >= 0) use the speculative form J v+ + g/h = w: the bodies may close the
// gap in this step but not more, and nothing pulls them together early.
// One that is violated and still closing (J v < 0) stops closing: beta J v
// would let a 1/(1 + 4d) share of the approach speed through for a step.
// The speculative row stops the bodies at the gap, not their speed, and the
// next step finds g = 0 to rounding, or just below it by the row's
// compliance x the stopping force: with g = -1e-17 instead of +1e-17, a
// slider arriving at 2.1 m/s went on at 0.15 m/s and 2.4 mm past its limit
// (tests/physics/test_joint_limits.c), and a sphere landing at 4 m/s went
// 5.6 mm into the ground. Static deflection (J v = 0) and the decay of a
// violation (J v >= 0 after its first step) are unchanged.
#ifndef TSR_SPOOK_H
#define TSR_SPOOK_H

static inline double tsr_spook_compliance(double eps, double d, double h) {
  return 4.0 * eps / (h * h * (1.0 + 4.0 * d));
}

// rhs of the row (everything in b except J M^-1 p): a g - beta J v, or g / h
// for a unilateral row that is not violated.
static inline double tsr_spook_rhs(double g, double Jv, double d, double h, int unilateral) {
  if (unilateral && g >= 0.0) return g / h;
  if (unilateral && Jv < 0.0) Jv = 0.0;
  return (4.0 * g / h - Jv) / (1.0 + 4.0 * d);
}

#endif
