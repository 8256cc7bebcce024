// SPDX-License-Identifier: MIT
// A synthetic model and synthetic frames for the run file tests: every value
// is a function of (frame, index), so a reader can check round trips exactly
// without keeping what was written.
#ifndef TSR_TEST_SYNTH_H
#define TSR_TEST_SYNTH_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/run_file.h"
#include "model/model.h"

static const char synth_source[] =
    "name: synth\n"
    "bodies:\n"
    "  - {name: ground, fixed: true, shape: {plane: [0, 0, 1, 0]}}\n"
    "  - {name: box, mass: 2, shapes: [{box: [1, 2, 3]}, {sphere: 0.5, position: [0, 0, 1]}]}\n"
    "  - {name: ball, mass: 0.5, shape: {sphere: 0.25}}\n"
    "joints:\n"
    "  - {name: hinge, type: hinge, bodies: [box, ball]}\n"
    "# ünïcode survives\n";

// n >= 3 bodies: 0 fixed with a plane, 1 compound (box + sphere), the rest
// spheres; joints chain bodies 1..n-1.
static void synth_model(TsrModel *m, int n) {
  memset(m, 0, sizeof *m);
  m->name = strdup("synth");
  m->source = strdup(synth_source);
  m->settings.step = 1.0 / 60.0;
  m->n_bodies = n;
  m->bodies = calloc((size_t)n, sizeof *m->bodies);
  m->n_shapes = n + 1;
  m->shapes = calloc((size_t)m->n_shapes, sizeof *m->shapes);
  m->n_joints = n - 2;
  m->joints = calloc((size_t)m->n_joints, sizeof *m->joints);
  int g = 0;
  for (int i = 0; i < n; i++) {
    TsrBodyDef *b = &m->bodies[i];
    char name[32];
    if (i < 3)
      snprintf(name, sizeof name, "%s", i == 0 ? "ground" : i == 1 ? "box" : "ball");
    else
      snprintf(name, sizeof name, "link[%d]", i - 3);
    b->name = strdup(name);
    b->fixed = i == 0;
    b->mass = i == 0 ? 0.0 : 0.5 + i;
    b->orientation.w = 1;
    b->first_shape = g;
    b->shape_count = i == 1 ? 2 : 1;
    for (int k = 0; k < b->shape_count; k++, g++) {
      TsrShapeDef *s = &m->shapes[g];
      s->body = i;
      s->orientation = (TsrQuat){1, 0, 0, 0};
      if (i == 0) {
        s->type = TSR_SHAPE_PLANE;
        s->params[0] = 0, s->params[1] = 0, s->params[2] = 1, s->params[3] = -0.5;
      } else if (i == 1 && k == 0) {
        s->type = TSR_SHAPE_BOX;
        s->params[0] = 1, s->params[1] = 2, s->params[2] = 3;
        s->orientation = (TsrQuat){0.5, 0.5, 0.5, 0.5};
      } else if (i == 1) {
        s->type = TSR_SHAPE_SPHERE;
        s->params[0] = 0.5;
        s->position = (TsrVec3){0, 0, 1};
      } else {
        s->type = (TsrShapeType)(i % 2 ? TSR_SHAPE_CAPSULE : TSR_SHAPE_SPHERE);
        s->params[0] = 0.25, s->params[1] = 0.1 * i;
      }
    }
  }
  for (int j = 0; j < m->n_joints; j++) {
    char name[32];
    snprintf(name, sizeof name, j == 0 ? "hinge" : "j[%d]", j);
    m->joints[j].name = strdup(name);
    m->joints[j].type = TSR_JOINT_HINGE;
    m->joints[j].body[0] = j + 1;
    m->joints[j].body[1] = j + 2;
  }
}

static void synth_model_free(TsrModel *m) {
  for (int i = 0; i < m->n_bodies; i++) free(m->bodies[i].name);
  for (int j = 0; j < m->n_joints; j++) free(m->joints[j].name);
  free(m->bodies), free(m->shapes), free(m->joints), free(m->name), free(m->source);
  memset(m, 0, sizeof *m);
}

// Row and contact counts of frame f (frame 0 has none).
static inline int synth_rows(long f) { return f == 0 ? 0 : (int)((f * 7) % 13 + (f % 5 == 0 ? 40 : 0)); }
static inline int synth_contacts(long f) { return f == 0 ? 0 : (int)((f * 5) % 4); }

static inline double synth_val(long f, long i, int c) { return (double)f * 1000.0 + (double)i + 0.125 * c; }

// Scratch for one frame; sized for n bodies, max_rows, max_contacts.
typedef struct {
  double *pos, *ori, *vel, *rimp, *cpt, *cn, *cd, *cimp, *ct1;
  int32_t *bsub, *rsrc, *rbody, *rsub, *cbody;
  int8_t *rtype, *ridx;
} SynthScratch;

static void synth_scratch_init(SynthScratch *s, int n, int max_rows, int max_contacts) {
  size_t N = (size_t)n, R = (size_t)max_rows + 1, C = (size_t)max_contacts + 1;
  s->pos = malloc(N * 3 * 8), s->ori = malloc(N * 4 * 8), s->vel = malloc(N * 6 * 8), s->bsub = malloc(N * 4);
  s->rtype = malloc(R), s->rsrc = malloc(R * 4), s->rbody = malloc(R * 8), s->rimp = malloc(R * 8);
  s->ridx = malloc(R), s->rsub = malloc(R * 4);
  s->cbody = malloc(C * 8), s->cpt = malloc(C * 24), s->cn = malloc(C * 24), s->cd = malloc(C * 8);
  s->cimp = malloc(C * 24), s->ct1 = malloc(C * 24);
}

static void synth_scratch_free(SynthScratch *s) {
  free(s->pos), free(s->ori), free(s->vel), free(s->bsub), free(s->rtype), free(s->rsrc), free(s->rbody);
  free(s->rimp), free(s->ridx), free(s->rsub), free(s->cbody), free(s->cpt), free(s->cn), free(s->cd);
  free(s->cimp), free(s->ct1);
}

// Fills frame f with n_rows rows and n_contacts contacts.
static void synth_frame(TsrFrame *fr, SynthScratch *s, int n, long f, int n_rows, int n_contacts) {
  for (int i = 0; i < n; i++) {
    for (int c = 0; c < 3; c++) s->pos[3 * i + c] = synth_val(f, i, c);
    double q[4] = {1.0, 1e-3 * (double)f, 1e-2 * (double)i, 0.125}, qn = 0;
    for (int c = 0; c < 4; c++) qn += q[c] * q[c];
    for (int c = 0; c < 4; c++) s->ori[4 * i + c] = q[c] / sqrt(qn);
    for (int c = 0; c < 6; c++) s->vel[6 * i + c] = 0.5 * synth_val(f, i, c);
    s->bsub[i] = i == 0 ? -1 : (int32_t)((i + f) % 3);
  }
  // Joint rows first (types 0, 3, 4), then each contact's normal and two
  // friction rows, as OUTPUT.md orders them.
  int joint_rows = n_rows - 3 * n_contacts > 0 ? n_rows - 3 * n_contacts : 0;
  for (int r = 0; r < n_rows; r++) {
    if (r < joint_rows) {
      static const int8_t jt[4] = {0, 0, 3, 4};
      s->rtype[r] = jt[r % 4];
      s->rsrc[r] = r / 4;
      s->ridx[r] = s->rtype[r] == 0 ? 0 : (int8_t)(r % 3 - 1);
    } else {
      int k = r - joint_rows;
      s->rtype[r] = k % 3 == 0 ? 1 : 2;
      s->rsrc[r] = k / 3;
      s->ridx[r] = (int8_t)(k % 3 - 1);
    }
    s->rbody[2 * r] = r % n, s->rbody[2 * r + 1] = r % 2 ? -1 : (r + 1) % n;
    s->rimp[r] = synth_val(f, r, 7);
    s->rsub[r] = (int32_t)(r % 4) - 1;
  }
  for (int k = 0; k < n_contacts; k++) {
    s->cbody[2 * k] = 1, s->cbody[2 * k + 1] = 0;
    for (int c = 0; c < 3; c++) {
      s->cpt[3 * k + c] = synth_val(f, k, c + 20);
      s->cn[3 * k + c] = c == 2 ? 1.0 : 0.0;
      s->cimp[3 * k + c] = synth_val(f, k, c + 30);
    }
    s->cd[k] = 1e-3 * (double)k;
    // A first friction direction across the normal (0, 0, 1), turning from
    // contact to contact: the full impulse vector then depends on it.
    double a = 0.7 * (double)k + 0.1 * (double)f;
    s->ct1[3 * k] = cos(a), s->ct1[3 * k + 1] = sin(a), s->ct1[3 * k + 2] = 0.0;
  }
  *fr = (TsrFrame){.time = (double)f / 60.0,
                   .step = f,
                   .n_bodies = n,
                   .position = s->pos,
                   .orientation = s->ori,
                   .velocity = s->vel,
                   .body_subsystem = s->bsub,
                   .n_rows = n_rows,
                   .row_type = s->rtype,
                   .row_source = s->rsrc,
                   .row_body = s->rbody,
                   .row_impulse = s->rimp,
                   .row_index_set = s->ridx,
                   .row_subsystem = s->rsub,
                   .n_contacts = n_contacts,
                   .contact_body = s->cbody,
                   .contact_point = s->cpt,
                   .contact_normal = s->cn,
                   .contact_depth = s->cd,
                   .contact_impulse = s->cimp,
                   .contact_tangent1 = s->ct1};
}

static inline TsrStepStats synth_stats(long k) {
  return (TsrStepStats){.step_seconds = 1e-3 * (double)(k % 10 + 1),
                        .collide_seconds = 1e-4,
                        .partition_seconds = 2e-5,
                        .solve_seconds = 5e-4 * (double)(k % 10 + 1),
                        .coupling_iterations = (int32_t)(k % 11),
                        .solver_iterations = (int32_t)k,
                        .converged = (uint8_t)(k % 4 != 0),
                        .mlcp_error = 1e-9 * (double)(k % 7),
                        .constraint_rows = synth_rows(k),
                        .contacts = synth_contacts(k),
                        .subsystems = 3,
                        .interface_rows = 2,
                        .joint_error = 1e-6 * (double)(k % 13),
                        .penetration = 1e-4 * (double)(k % 17)};
}

static inline TsrRunInfo synth_info(void) {
  return (TsrRunInfo){.solver = "schur-bpp",
                      .partitioning = "semantic",
                      .threads = 2,
                      .max_coupling_iterations = 10,
                      .tessera_version = "0.1.0-test"};
}

#endif
