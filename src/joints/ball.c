// SPDX-License-Identifier: MIT
// Ball joint: the anchor points coincide, p0 - p1 = 0 (3 rows).
//   row k (world axis e_k): J0 = [e_k, r0 x e_k], J1 = [-e_k, -(r1 x e_k)], g_k = e_k.(p0 - p1)
#include "joints/joints_internal.h"

void tsr_joint_ball(TsrJointCtx *c) { tsr_joint_point_rows(c, c->d->compliance); }
