// SPDX-License-Identifier: MIT
#include "sim/world.h"
#include "linalg/chol.h"
#include "util/clock.h"
#include "util/env.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int grow(void **p, size_t n, size_t size) {
  void *q = realloc(*p, n * size + 1);
  if (!q) return -1;
  *p = q;
  return 0;
}

#define TSR_RECOLLIDE_MAX 4    // TSR_RECOLLIDE is 0 to this
#define TSR_STRUCK_SLACK 2e-3  // m, beyond gravity's |g| h^2, before a shape's reach counts as grown (recollide)
#define TSR_DENSE_ROWS 3000    // rows on one body past which the caller warns (check_coupling)

int tsr_world_create(TsrWorld *w, const TsrModel *m, char *err, int errlen) {
  memset(w, 0, sizeof *w);
  w->model = m;
  w->h = m->settings.step;
  w->bad_body = -1;
  int n = m->n_bodies;
  if (tsr_bodies_init(&w->bodies, m) || tsr_joints_init(&w->joints, m, &w->bodies)) {
    snprintf(err, (size_t)errlen, "out of memory");
    return -1;
  }
  if (tsr_contact_init(&w->contacts, m, err, errlen)) return -1;
  tsr_mlcp_init(&w->mlcp);
  tsr_partition_init(&w->partition);
  tsr_world_solver_params(m, m->settings.solver.type, &w->solver_params);
  w->solver = tsr_solver_create(&w->solver_params, err, errlen);
  if (!w->solver) return -1;
  w->v_free = calloc(6 * (size_t)n + 1, sizeof(double));
  w->v_new = calloc(6 * (size_t)n + 1, sizeof(double));
  w->geo = calloc((size_t)n + 1, sizeof(double));
  w->f_pos = calloc(3 * (size_t)n + 1, sizeof(double));
  w->f_ori = calloc(4 * (size_t)n + 1, sizeof(double));
  w->f_vel = calloc(6 * (size_t)n + 1, sizeof(double));
  w->f_body_sub = calloc((size_t)n + 1, sizeof(int32_t));
  w->body_rows = calloc((size_t)n + 1, sizeof(int));
  w->sub_rows = calloc(2 * (size_t)n + 2, sizeof(double));
  // check_coupling's thresholds and the struck bodies' passes, read once.
  double dense_rows, memory_limit, passes, first;
  if (tsr_env_number("TSR_DENSE_ROWS", TSR_DENSE_ROWS, 1, 1e9, 1, &dense_rows, err, errlen) ||
      tsr_env_number("TSR_MEMORY_LIMIT", -1.0, 0, 1e300, 0, &memory_limit, err, errlen) ||
      tsr_chol_flops_limit_from_env(err, errlen) ||
      tsr_env_number("TSR_RECOLLIDE", 1, 0, TSR_RECOLLIDE_MAX, 1, &passes, err, errlen) ||
      tsr_env_number("TSR_FIRST_FRICTION", 1, 0, 1, 1, &first, err, errlen))
    return -1;
  w->first_friction = first != 0.0;  // first_step_friction
  w->dense_rows = (int)dense_rows;
  w->memory_limit = memory_limit;
  w->recollide_passes = (int)passes;  // struck bodies: detections and solves again per step (recollide)
  // Gravity alone raises a shape's reach by at most |g| h^2 in a step
  // (2.7 mm at h = 1/60 s; contact/recollide.c): only more is a strike.
  const double g = tsr_v3_norm(m->settings.gravity);
  w->struck_tol = g * w->h * w->h + TSR_STRUCK_SLACK;
  w->v_plus = calloc((size_t)n + 1, sizeof *w->v_plus);
  w->w_plus = calloc((size_t)n + 1, sizeof *w->w_plus);
  if (!w->v_plus || !w->w_plus) {
    snprintf(err, (size_t)errlen, "out of memory");
    return -1;
  }
  if (!w->v_free || !w->v_new || !w->geo || !w->f_pos || !w->f_ori || !w->f_vel || !w->f_body_sub || !w->body_rows ||
      !w->sub_rows) {
    snprintf(err, (size_t)errlen, "out of memory");
    return -1;
  }
  return 0;
}

void tsr_world_free(TsrWorld *w) {
  tsr_bodies_free(&w->bodies);
  tsr_joints_free(&w->joints);
  tsr_contact_free(&w->contacts);
  free(w->ahead_state);
  tsr_rowset_free(&w->rows);
  tsr_mlcp_free(&w->mlcp);
  tsr_solver_free(&w->solver);
  tsr_partition_free(&w->partition);
  free(w->v_free);
  free(w->v_new);
  free(w->v_plus);
  free(w->w_plus);
  free(w->geo);
  free(w->lambda);
  free(w->index_set);
  free(w->prev_lambda);
  free(w->prev_index_set);
  free(w->keep_lambda);
  free(w->keep_set);
  free(w->body_rows);
  free(w->sub_rows);
  free(w->f_pos);
  free(w->f_ori);
  free(w->f_vel);
  free(w->f_body_sub);
  free(w->f_row_type);
  free(w->f_row_index);
  free(w->f_row_source);
  free(w->f_row_body);
  free(w->f_row_sub);
  free(w->f_contact_body);
  free(w->f_contact_point);
  free(w->f_contact_normal);
  free(w->f_contact_depth);
  free(w->f_contact_impulse);
  free(w->f_contact_tangent);
  memset(w, 0, sizeof *w);
}

static int ensure_rows(TsrWorld *w, int m) {
  if (m <= w->row_cap) return 0;
  size_t c = (size_t)(m > 2 * w->row_cap ? m : 2 * w->row_cap);
  const int refresh = w->model->settings.contact.friction_refresh > 0;  // keep_*: refresh_friction only
  if (grow((void **)&w->lambda, c, sizeof(double)) || grow((void **)&w->index_set, c, 1) ||
      grow((void **)&w->prev_lambda, c, sizeof(double)) || grow((void **)&w->prev_index_set, c, 1) ||
      (refresh && (grow((void **)&w->keep_lambda, c, sizeof(double)) || grow((void **)&w->keep_set, c, 1))) ||
      grow((void **)&w->f_row_type, c, 1) || grow((void **)&w->f_row_index, c, 1) ||
      grow((void **)&w->f_row_source, c, sizeof(int32_t)) || grow((void **)&w->f_row_body, 2 * c, sizeof(int32_t)) ||
      grow((void **)&w->f_row_sub, c, sizeof(int32_t)))
    return -1;
  w->row_cap = (int)c;
  return 0;
}

// The bodies' state as detection reads it (x, q, v, w), into out [13 n].
static void body_state(const TsrBodies *b, double *out) {
  size_t n = (size_t)b->n;
  memcpy(out, b->x, n * sizeof *b->x);
  memcpy(out + 3 * n, b->q, n * sizeof *b->q);
  memcpy(out + 7 * n, b->v, n * sizeof *b->v);
  memcpy(out + 10 * n, b->w, n * sizeof *b->w);
}

// Whether the bodies are in the state the contacts ahead were detected at
// (nothing moved them between the steps: a caller may set a velocity).
static int at_ahead_state(const TsrWorld *w) {
  const TsrBodies *b = &w->bodies;
  size_t n = (size_t)b->n;
  const double *s = w->ahead_state;
  return w->contacts.have_ahead && !memcmp(s, b->x, n * sizeof *b->x) && !memcmp(s + 3 * n, b->q, n * sizeof *b->q) &&
         !memcmp(s + 7 * n, b->v, n * sizeof *b->v) && !memcmp(s + 10 * n, b->w, n * sizeof *b->w);
}

// Stage 1: contacts at the current state, each matched to one of the
// previous step (contact/match.c); those detected at the end of the last
// step when the state is still theirs (detect_ahead).
static int collide(TsrWorld *w) {
  if (!tsr_contact_collide_at(&w->contacts, w->model, &w->bodies, at_ahead_state(w))) return 0;
  snprintf(w->error, sizeof w->error, "contact detection failed: %s", tsr_contact_error(&w->contacts));
  return -1;
}

// Stage 2: rows from joints in model order, then three per contact in contact
// order (OUTPUT.md /constraints). The unconstrained velocity v_free is formed
// here, not in solve, because contact rows need it (tangent directions, first
// friction bounds).
static int constrain(TsrWorld *w) {
  TsrBodies *b = &w->bodies;
  tsr_bodies_update_inertia(b);
  tsr_bodies_free_velocity(b, w->model->settings.gravity, w->h, w->v_free);
  tsr_rowset_clear(&w->rows);
  if (tsr_joints_build_rows(&w->joints, w->model, b, w->v_free, w->h, &w->rows)) {
    snprintf(w->error, sizeof w->error, "out of memory (%d joint rows)", w->joints.n_rows);
    return -1;
  }
  if (tsr_contact_build_rows(&w->contacts, w->model, b, w->v_free, w->h, &w->rows)) {
    snprintf(w->error, sizeof w->error, "out of memory (%d contacts' rows)", w->contacts.n);
    return -1;
  }
  return 0;
}

// Stage 3: the substructured solvers get the model's partitioning method,
// re-run every `partitioning.every` steps (rows are re-assigned every step,
// since contacts come and go); whole-system solvers see one subsystem
// holding every moving body.
int tsr_world_partition(const TsrModel *m, long step, const TsrRowSet *rows, TsrSolverType type, TsrPartition *part) {
  const TsrSettings *s = &m->settings;
  if (!tsr_solver_substructured(type)) return tsr_partition_build(m, rows, TSR_PARTITION_NONE, 0, part);
  if (step % s->partitioning.every == 0 || part->n_bodies == 0)
    return tsr_partition_build(m, rows, s->partitioning.method, s->partitioning.max_bodies, part);
  return tsr_partition_assign_rows(rows, part);
}

static int partition(TsrWorld *w) {
  return tsr_world_partition(w->model, w->step, &w->rows, w->model->settings.solver.type, &w->partition);
}

int tsr_world_kmax(const TsrModel *m, TsrSolverType type) {
  int k = m->settings.solver.max_coupling_iterations;
  return k > 0 ? k : tsr_solver_default_kmax(type);
}

void tsr_world_solver_params(const TsrModel *m, TsrSolverType type, TsrSolverParams *p) {
  tsr_solver_default_params(type, p);
  p->max_pivots = m->settings.solver.max_pivots;
  p->index_tolerance = m->settings.solver.index_tolerance;
  p->iterations = m->settings.solver.iterations;
  p->tolerance = m->settings.solver.tolerance;
  p->warm_start = m->settings.solver.warm_start;
  p->max_coupling_iterations = tsr_world_kmax(m, type);
  p->threads = m->settings.solver.threads;
}

// Geometric stiffness (Andrews, Teichmann and Kry 2017; seed 000 §3 after
// Eq. 4 names it): a joint force F through an arm r turns with the body, so
// the torque r x F has a stiffness dtau/dtheta = [F]x [r]x that the
// velocity-level step takes explicitly. Under high tension (a chain holding
// a heavy load, swinging) that stiffness, |F||r| per link, makes the links'
// rotation unstable for |F||r| h^2 / I > ~1: a 50-link chain holding 500 kg
// swung sideways spun its links at 500 rad/s within 2 s, at h = 1/60 and at
// h = 1/960 alike. Adding h^2 |F| |r| to each body's rotational inertia (an
// isotropic bound on the spectral norm of [F]x [r]x, so M stays SPD and the
// term does not depend on the frame) makes the step stable, at the price of
// slowing the links' fastest rotations; F is the previous step's impulse / h.
// F is the joint's force on the body, the vector sum of its rows' lambda
// J_lin (a ball joint's three world-axis rows, a slider's rows across and
// along its axis; they share one arm): summing the rows' magnitudes instead
// gave up to sqrt(3) |F| for a force along a diagonal, and a scene turned as
// a whole moved differently (test_joints: test_scene_rotation).
// Only joint point rows take part: contact forces on rolling bodies would
// change rolling (a sphere's rotational inertia grows by 14% on a plane).
static void geometric_stiffness(TsrWorld *w) {
  TsrBodies *b = &w->bodies;
  int nj = w->joints.n_rows;
  if (!w->model->settings.solver.geometric_stiffness || w->prev_joint_rows != nj) return;
  memset(w->geo, 0, (size_t)b->n * sizeof *w->geo);
  int any = 0;
  for (int i = 0, e; i < nj; i = e) {
    // A joint's rows are consecutive (tsr_joints_build_rows).
    for (e = i; e < nj && w->rows.rows[e].source == w->rows.rows[i].source; e++) {
    }
    for (int s = 0; s < 2; s++) {
      int k = w->rows.rows[i].body[s];
      if (k < 0 || b->fixed[k]) continue;
      double F[3] = {0, 0, 0}, arm = 0.0;
      for (int r = i; r < e; r++) {
        const TsrRow *row = &w->rows.rows[r];
        const double *J = row->J[s], *a = row->arm[s];
        double l = w->prev_lambda[r] / w->h;
        if (l == 0.0 || (J[0] == 0.0 && J[1] == 0.0 && J[2] == 0.0)) continue;
        for (int c = 0; c < 3; c++) F[c] += l * J[c];
        arm = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
      }
      double Fn = sqrt(F[0] * F[0] + F[1] * F[1] + F[2] * F[2]);
      if (Fn * arm == 0.0) continue;
      w->geo[k] += w->h * w->h * Fn * arm;
      any = 1;
    }
  }
  if (any) tsr_bodies_add_isotropic_inertia(b, w->geo);
}

// Friction bounds from this step's normal impulses (settings.contact.
// friction_refresh; seed 000 §8.2): while some contact's friction is off
// Coulomb by more than TSR_FRICTION_REFRESH_SPEED, the bounds follow the
// solved lambda_n and the MLCP is solved again, warm-started from the last
// solution, at most friction_refresh times. The step's solver statistics are
// those of the last solve (the solution the step uses); a re-solve that
// fails gives the step the solution it started from. Eq. 11 keeps the
// previous step's lambda_n, so a heavy body landing on a light one that
// rests on the ground finds the ground's friction still sized for the light
// body's weight: a 50 kg log under a 2,500 kg box was thrown sideways at
// 6 m/s in one step and driven 13 cm into the ground.
static void refresh_friction(TsrWorld *w) {
  const size_t m = (size_t)w->rows.count;
  for (int pass = 0; pass < w->model->settings.contact.friction_refresh && w->solve_status >= 0; pass++) {
    if (!tsr_contact_refresh_friction(&w->contacts, &w->rows, &w->mlcp, w->lambda, TSR_FRICTION_REFRESH_SPEED)) return;
    memcpy(w->keep_lambda, w->lambda, m * sizeof(double));
    memcpy(w->keep_set, w->index_set, m);
    TsrSolveStats kept = w->solve_stats;
    int kept_status = w->solve_status;
    memset(&w->solve_stats, 0, sizeof w->solve_stats);
    w->solve_status = tsr_solver_solve(w->solver, &w->mlcp, &w->partition, w->lambda, w->index_set, &w->solve_stats);
    if (w->solve_status < 0) {
      memcpy(w->lambda, w->keep_lambda, m * sizeof(double));
      memcpy(w->index_set, w->keep_set, m);
      w->solve_stats = kept, w->solve_status = kept_status;
      return;
    }
  }
}

// How much A a step needs, before it is assembled. A = J M^-1 J^T + C
// couples every two rows that share a moving body, so a body with d rows
// brings a dense d x d block: sum_k d_k^2 entries at most (tsr_mlcp_assemble
// counts the same), and a direct factorisation of that block costs about
// d^3 / 3 flops. A plate carrying 1,600 spheres (4,800 contact rows) made
// 23 million entries and 1.5 s per step. When the entries would need more
// memory than the machine has available (MemAvailable of /proc/meminfo, or
// TSR_MEMORY_LIMIT bytes where set), the step fails with a message instead
// of the kernel killing the run; above TSR_DENSE_ROWS rows on one body
// (default 3,000: about a second per factorisation here) the caller warns,
// once. TSR_BYTES_PER_ENTRY: A (value and row index), the factor and the
// solvers' copies of its free part. The factor's fill is not known before
// its symbolic analysis and is not counted: where rows of different bodies
// couple through many bodies (spheres placed in one spot), the factor is
// nearly dense and holds more than A (70 spheres, direct-bpp: 0.11 GiB
// estimated, 0.43 GiB used). The cost limit (linalg/chol.h) bounds it: a
// dense factor within 1e12 flops has at most 14,400 rows, 0.8 GB.
#define TSR_BYTES_PER_ENTRY 40.0
static double memory_available(const TsrWorld *w) {
  if (w->memory_limit > 0.0) return w->memory_limit;
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f) return -1.0;
  char line[256];
  double kb = -1.0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
  fclose(f);
  return kb > 0.0 ? 1024.0 * kb : -1.0;
}

// The dense blocks of the Schur complement solvers (solvers/schur.c), bytes:
// subsystem i, with n_i rows and nu_i interface rows coupled to it, holds its
// Schur block Sblk (nu_i x nu_i) and K = G_F^T (n_i x nu_i), and S_Gamma
// gathers the blocks: nu_i^2 entries each, which count as A's do
// (TSR_BYTES_PER_ENTRY: S_Gamma is the interface solve's A, copied and
// factorised as A is). A pile whose contacts all cross subsystems
// (large_rock_pile with a contact margin of 10 m: every rock touches every
// other) went past 24 GB this way, where A itself needed 9 GiB, and the
// kernel killed the run (found by fuzzing). Counting S_Gamma's entries at 8
// bytes (its values alone), the estimate was 0.38-0.58 of the peak resident
// memory of bodies placed in one spot and split into 5 subsystems (50-120
// spheres; 100 of them: 2.15 GiB estimated, 5.6 GiB used), a run the kernel
// would kill on a machine with the estimate available; now 0.98-1.4 of it
// (1.4 where the interface's factorisation is refused for its cost), and 2.1
// on test_cli's blob, whose interface rows are mostly at their bounds (a
// small free part to copy and factorise). *sub, *nu: the largest block's
// subsystem and size. 0 for the other solvers.
static double schur_bytes(const TsrWorld *w, int *sub, int *nu) {
  const TsrPartition *p = &w->partition;
  const TsrSolverType t = w->model->settings.solver.type;
  *sub = -1, *nu = 0;
  if ((t != TSR_SOLVER_SCHUR_BPP && t != TSR_SOLVER_SCHUR_PGS_SM) || p->n_rows != w->rows.count ||
      p->n_subsystems < 2 || p->n_subsystems > w->bodies.n)
    return 0.0;
  const int N = p->n_subsystems;
  double *cnt = w->sub_rows;  // rows, then coupled interface rows, per subsystem
  memset(cnt, 0, 2 * (size_t)N * sizeof *cnt);
  for (int r = 0; r < p->n_rows; r++) {
    const int i = p->row_subsystem[r];
    if (i >= 0) {
      cnt[i] += 1.0;
      continue;
    }
    int seen = -1;
    for (int s = 0; s < 2; s++) {
      const int k = w->rows.rows[r].body[s];
      const int j = k >= 0 && k < p->n_bodies ? p->body_subsystem[k] : -1;
      if (j >= 0 && j < N && j != seen) cnt[N + j] += 1.0, seen = j;
    }
  }
  double bytes = 0.0;
  for (int i = 0; i < N; i++) {
    bytes += 8.0 * cnt[N + i] * (cnt[N + i] + cnt[i]) + TSR_BYTES_PER_ENTRY * cnt[N + i] * cnt[N + i];
    if (cnt[N + i] > *nu) *nu = (int)cnt[N + i], *sub = i;
  }
  return bytes;
}

static int check_coupling(TsrWorld *w) {
  const TsrBodies *b = &w->bodies;
  const int m = w->rows.count, n = b->n;
  memset(w->body_rows, 0, (size_t)n * sizeof *w->body_rows);
  for (int i = 0; i < m; i++)
    for (int s = 0; s < 2; s++) {
      int k = w->rows.rows[i].body[s];
      if (k >= 0 && k < n && !b->fixed[k] && (s == 0 || k != w->rows.rows[i].body[0])) w->body_rows[k]++;
    }
  double entries = m;
  int kmax = -1;
  for (int k = 0; k < n; k++) {
    entries += (double)w->body_rows[k] * w->body_rows[k];
    if (kmax < 0 || w->body_rows[k] > w->body_rows[kmax]) kmax = k;
  }
  w->densest_body = kmax;
  int sub, nu;
  const double schur = schur_bytes(w, &sub, &nu);
  const double bytes = TSR_BYTES_PER_ENTRY * entries + schur, gib = 1024.0 * 1024.0 * 1024.0;
  const char *name = kmax >= 0 ? w->model->bodies[kmax].name : "";
  const int dmax = kmax >= 0 ? w->body_rows[kmax] : 0;
  // what the last steps' A and factors hold already counts as available:
  // the arrays are kept and reused (the Schur solvers' blocks too: counted
  // again against MemAvailable, which no longer has them, a pile using half
  // the memory in its blocks would be refused at its second step)
  const double held = TSR_BYTES_PER_ENTRY * w->mlcp.cap_nnz + w->schur_held;
  if (bytes - held > 64.0 * 1024 * 1024 || w->memory_limit > 0.0) {
    double avail = memory_available(w);  // <= 0: not known (no /proc/meminfo)
    if (avail > 0.0 && !(w->memory_limit > 0.0)) avail += held;
    if (avail > 0.0 && bytes > avail && schur > 0.5 * bytes) {
      snprintf(w->error, sizeof w->error,
               "the substructured solve of this step needs about %.3g GiB (%d rows; %d of them interface rows; "
               "subsystem %d's Schur block alone is %d x %d, dense), more than the %.3g GiB available: a partition "
               "with fewer rows between subsystems (see --partition), or the direct solver",
               bytes / gib, m, w->partition.n_interface_rows, sub, nu, nu, avail / gib);
      return -1;
    }
    if (avail > 0.0 && bytes > avail) {
      snprintf(w->error, sizeof w->error,
               "the MLCP of this step needs about %.3g GiB (%d rows, %.3g entries of A; body '%s' alone touches %d "
               "of them, and every two rows of one body are coupled), more than the %.3g GiB available",
               bytes / gib, m, entries, name, dmax, avail / gib);
      return -1;
    }
  }
  w->schur_held = fmax(w->schur_held, schur);  // the solver grows its blocks to this, and keeps them
  if (!w->dense_warned && dmax > w->dense_rows) {
    snprintf(w->notice, sizeof w->notice,
             "body '%s' touches %d constraint rows, and every two of them are coupled in A: a dense %d x %d block, "
             "whose direct factorisation costs about %.2g flops (steps will be slow)",
             name, dmax, dmax, dmax, (double)dmax * dmax * dmax / 3.0);
    w->notice_new = w->dense_warned = 1;
  }
  return 0;
}

// The coupling check and A, b of the step's rows (Eq. 5).
static int assemble(TsrWorld *w) {
  TsrBodies *b = &w->bodies;
  if (check_coupling(w)) return -1;
  if (tsr_mlcp_assemble(&w->rows, b->n, b->inv_mass, b->inv_inertia_world, w->v_free, &w->mlcp)) {
    snprintf(w->error, sizeof w->error, "out of memory assembling the MLCP (%d rows)", w->rows.count);
    return -1;
  }
  return 0;
}

// The error of a step whose solve was refused for the cost of a
// factorisation (linalg/chol.h): what it would have cost, and why A can be
// that dense (check_coupling's figures: the body that touches the most rows).
static void refused_message(TsrWorld *w) {
  int kmax = w->densest_body;
  char cost[160];
  tsr_chol_refusal_text(cost, sizeof cost, w->rows.count);
  snprintf(w->error, sizeof w->error,
           "%s: A is nearly dense (body '%.40s' touches %d rows: bodies starting inside one another?); pgs "
           "factorises nothing, and TSR_FACTOR_FLOPS=1e300 lifts the limit",
           cost, kmax >= 0 ? w->model->bodies[kmax].name : "", kmax >= 0 ? w->body_rows[kmax] : 0);
}

// The assembled MLCP solved from the warm start in lambda and index_set,
// friction refreshed; its time added to /stats/solve_seconds (the MLCP
// solve alone: OUTPUT.md; what seed 000 Table 3 reports, and what `tessera
// compare --replay` times); the joint rows' solution kept for the next
// step's warm start and the contacts' for matching.
static int solve_assembled(TsrWorld *w) {
  memset(&w->solve_stats, 0, sizeof w->solve_stats);
  double ts = tsr_now_seconds();
  w->solve_status = tsr_solver_solve(w->solver, &w->mlcp, &w->partition, w->lambda, w->index_set, &w->solve_stats);
  refresh_friction(w);
  w->stats.solve_seconds += tsr_now_seconds() - ts;
  int nj = w->joints.n_rows;
  if (nj > 0) {
    memcpy(w->prev_lambda, w->lambda, (size_t)nj * sizeof(double));
    memcpy(w->prev_index_set, w->index_set, (size_t)nj);
  }
  w->prev_joint_rows = nj;
  tsr_contact_store(&w->contacts, w->lambda, w->index_set);
  if (w->solve_status == TSR_SOLVER_REFUSED) refused_message(w);
  return w->solve_status < 0 ? -1 : 0;
}

// v+ = v_free + M^-1 J^T lambda (Eq. 2) into v_new.
static void velocities(TsrWorld *w) {
  TsrBodies *b = &w->bodies;
  memcpy(w->v_new, w->v_free, 6 * (size_t)b->n * sizeof(double));
  for (int i = 0; i < w->rows.count; i++) {
    const TsrRow *r = &w->rows.rows[i];
    double l = w->lambda[i];
    if (l == 0.0) continue;
    for (int s = 0; s < 2; s++) {
      int k = r->body[s];
      if (k < 0 || b->fixed[k]) continue;
      const double *J = r->J[s], *Ii = &b->inv_inertia_world[9 * k];
      double *o = &w->v_new[6 * k];
      double im = b->inv_mass[k] * l;
      o[0] += im * J[0], o[1] += im * J[1], o[2] += im * J[2];
      for (int a = 0; a < 3; a++) o[3 + a] += l * (Ii[3 * a] * J[3] + Ii[3 * a + 1] * J[4] + Ii[3 * a + 2] * J[5]);
    }
  }
}

// The first step's friction (contact/contact.h tsr_contact_first_friction):
// no contact has a lambda_n of a step before, and the estimates give none
// where both bodies fall together in v_free, so the first step is solved a
// second time with the bounds of the first solve's lambda_n and t1 along
// the slip it left, warm-started from it. A 2 kg box set down at rest on a
// box on a 20 degree slope (mu 0.6) slid 0.93 mm in the first step before
// (tests/physics/test_contact_first_step.c). Its time counts in
// solve_seconds; later steps are not affected. TSR_FIRST_FRICTION=0 turns
// it off (the first step then solves the MLCP its rows were built as: the
// same for every solver, which tests/substructure compares). Reads the
// first solve's v+ in v_new, and leaves the second's there.
static int first_step_friction(TsrWorld *w) {
  if (w->step != 0 || !w->first_friction) return 0;
  if (!tsr_contact_first_friction(&w->contacts, &w->bodies, w->v_free, w->v_new, w->h, &w->rows, w->lambda)) return 0;
  if (assemble(w) || solve_assembled(w)) return -1;
  velocities(w);
  return 0;
}

// Stage 4: assemble the MLCP and solve it; v+ into v_new. Warm start (when
// on): joint rows map 1:1 from the previous step (their number and order
// never change), contact rows from their matched contacts
// (contact/match.c); the rest start at 0 and free.
static int solve(TsrWorld *w) {
  geometric_stiffness(w);
  double t0 = tsr_now_seconds();
  if (assemble(w)) return -1;
  w->assemble_seconds = tsr_now_seconds() - t0;
  int m = w->rows.count, nj = w->joints.n_rows;
  // A model without rows (free bodies) has NULL row arrays: the copies are
  // skipped, as memset / memcpy of NULL is undefined even for 0 bytes.
  if (m > 0) {
    memset(w->lambda, 0, (size_t)m * sizeof(double));
    memset(w->index_set, 0, (size_t)m);
  }
  if (w->solver_params.warm_start) {
    if (w->prev_joint_rows == nj && nj > 0) {
      memcpy(w->lambda, w->prev_lambda, (size_t)nj * sizeof(double));
      memcpy(w->index_set, w->prev_index_set, (size_t)nj);
    }
    tsr_contact_warm_start(&w->contacts, &w->rows, w->lambda, w->index_set);
  }
  // (assembly, warm start and the replay hook are outside solve_seconds)
  if (w->solve_hook) w->solve_hook(w, w->solve_hook_ctx);
  if (solve_assembled(w)) return -1;
  velocities(w);
  return first_step_friction(w);
}

// Stage 4b: struck bodies (contact/recollide.c). When the solved v+ (in
// v_new, which each re-solve brings up to date) carries some shape farther
// than the step's detection reached, the shapes are detected again at v+, the contacts found new are added (their rows
// after the joint rows, in contact order, as stage 2 makes them) and the MLCP is solved again, warm-started from the
// last solve; at most `passes` times. Joint rows are as they were (the same number and order), and keep their solution
// as the warm start; the geometric stiffness of stage 4 is in the bodies' inertia already. /stats/solve_seconds and
// collide_seconds count every solve and detection of the step; the solver's other statistics are those of the last
// solve (as refresh_friction's).
static int recollide(TsrWorld *w) {
  TsrBodies *b = &w->bodies;
  const TsrModel *m = w->model;
  for (int pass = 0; pass < w->recollide_passes; pass++) {
    double t0 = tsr_now_seconds();
    if (!tsr_contact_struck(&w->contacts, m, b, w->v_new, w->struck_tol)) {
      w->stats.collide_seconds += tsr_now_seconds() - t0;
      return 0;
    }
    TsrBodies plus = *b;  // the same poses, at v+
    for (int k = 0; k < b->n; k++) {
      const double *v = &w->v_new[6 * k];
      w->v_plus[k] = tsr_v3(v[0], v[1], v[2]);
      w->w_plus[k] = tsr_v3(v[3], v[4], v[5]);
    }
    plus.v = w->v_plus, plus.w = w->w_plus;
    const int n_before = w->contacts.n;
    if (tsr_contact_recollide(&w->contacts, m, &plus)) {
      snprintf(w->error, sizeof w->error, "contact detection failed: %s", tsr_contact_error(&w->contacts));
      return -1;
    }
    w->stats.collide_seconds += tsr_now_seconds() - t0;
    if (w->contacts.n == n_before) return 0;  // nothing new: the solution stands
    w->resolves++;
    w->rows.count = w->joints.n_rows;
    if (tsr_contact_build_rows(&w->contacts, m, b, w->v_free, w->h, &w->rows) || ensure_rows(w, w->rows.count)) {
      snprintf(w->error, sizeof w->error, "out of memory (%d rows)", w->rows.count);
      return -1;
    }
    double t1 = tsr_now_seconds();
    int failed = partition(w) ? -1 : 0;
    w->stats.partition_seconds += tsr_now_seconds() - t1;
    if (failed || assemble(w)) return -1;
    tsr_contact_warm_start_solved(&w->contacts, &w->rows, w->lambda, w->index_set);
    if (solve_assembled(w)) return -1;
    velocities(w);
    if (first_step_friction(w)) return -1;
  }
  return 0;
}

// Stage 5: positions from v+ (Eq. 6).
static void integrate(TsrWorld *w) { tsr_bodies_integrate(&w->bodies, w->v_new, w->h); }

// Stage 6: the next step's contacts, detected now: their depths are the
// penetration after this step (OUTPUT.md /stats/penetration), and the next
// step takes them (collide) instead of detecting them again, so this costs
// nothing but the first step's second detection. 1 when detected; 0 when not
// (out of memory, or ODE failed: the next step detects again and reports it).
// Before, the statistic was each contact's depth at detection moved by
// h J_n v+, which missed what a turn of the bodies brought in: on rock_pile
// 16 of 60 steps read less than the depth the next detection found (40 um
// where two rocks that were 5.8 mm apart went 2.2 mm into each other).
static int detect_ahead(TsrWorld *w) {
  size_t need = 13 * (size_t)w->bodies.n;
  if (need > w->cap_ahead_state) {
    double *s = realloc(w->ahead_state, (need ? need : 1) * sizeof *s);
    if (!s) return 0;
    w->ahead_state = s;
    w->cap_ahead_state = need;
  }
  body_state(&w->bodies, w->ahead_state);
  return tsr_contact_detect_ahead(&w->contacts, w->model, &w->bodies) == 0;
}

int tsr_world_step(TsrWorld *w) {
  TsrStepStats *st = &w->stats;
  memset(st, 0, sizeof *st);
  w->error[0] = '\0';
  double t0 = tsr_now_seconds();

  int failed = collide(w);
  double t1 = tsr_now_seconds();
  if (!failed) failed = constrain(w);
  if (!failed && ensure_rows(w, w->rows.count)) {
    snprintf(w->error, sizeof w->error, "out of memory (%d rows)", w->rows.count);
    failed = -1;
  }
  double t2 = tsr_now_seconds();
  if (!failed) failed = partition(w) ? -1 : 0;
  double t3 = tsr_now_seconds();
  if (!failed) failed = solve(w);      // sets st->solve_seconds, and v+ in v_new
  if (!failed) failed = recollide(w);  // adds to st->solve_seconds, collide_seconds, partition_seconds
  if (!failed) {
    integrate(w);
    tsr_joints_track(&w->joints, w->model, &w->bodies, w->h, &w->rows, w->lambda, w->v_new);
    tsr_contact_update_slip(&w->contacts, &w->bodies, &w->rows, w->lambda, w->v_new, w->h);
  }
  double t5 = tsr_now_seconds();

  w->step++;
  w->time = (double)w->step * w->h;
  st->collide_seconds += t1 - t0;
  st->partition_seconds += t3 - t2;
  st->step_seconds = t5 - t0;
  st->coupling_iterations = w->solve_stats.coupling_iterations;
  st->solver_iterations = w->solve_stats.iterations;
  st->converged = (uint8_t)(w->solve_stats.converged != 0);
  st->mlcp_error = w->solve_stats.residual;
  st->constraint_rows = w->rows.count;
  st->contacts = w->contacts.n;
  st->subsystems = w->solve_stats.subsystems ? w->solve_stats.subsystems : w->partition.n_subsystems;
  st->interface_rows = w->solve_stats.interface_rows;
  st->joint_error = tsr_joints_max_error(&w->joints, w->model, &w->bodies);
  // (collide took or dropped the contacts ahead: none are held here)
  if (failed) return 1;
  w->bad_body = tsr_bodies_find_nonfinite(&w->bodies);
  if (w->bad_body >= 0) return 2;
  double t6 = tsr_now_seconds();
  st->penetration = detect_ahead(w) ? tsr_contact_ahead_depth(&w->contacts)
                                    : tsr_contact_penetration(&w->contacts, &w->bodies, w->v_new, w->h);
  double ta = tsr_now_seconds() - t6;
  st->collide_seconds += ta;
  st->step_seconds += ta;
  // A finite state can still overflow what is measured of it: a hinge motor
  // at 1e300 rad/s ran to the end with exit 0, its joint error inf and its
  // MLCP error 2e283 (relative to impulses as large: "converged").
  const char *what = !isfinite(st->joint_error)   ? "largest joint error"
                     : !isfinite(st->mlcp_error)  ? "MLCP error"
                     : !isfinite(st->penetration) ? "largest penetration"
                                                  : NULL;
  if (!what) return 0;
  snprintf(w->error, sizeof w->error, "the step's %s is not finite", what);
  return 3;
}

// Contacts of the last step into the frame scratch; depth is the depth at
// detection (the start of the step), as the rows used it.
static int frame_contacts(TsrWorld *w) {
  const TsrContacts *cs = &w->contacts;
  if (cs->n > w->f_contact_cap) {
    size_t c = (size_t)cs->n;
    if (grow((void **)&w->f_contact_body, 2 * c, sizeof(int32_t)) ||
        grow((void **)&w->f_contact_point, 3 * c, sizeof(double)) ||
        grow((void **)&w->f_contact_normal, 3 * c, sizeof(double)) ||
        grow((void **)&w->f_contact_depth, c, sizeof(double)) ||
        grow((void **)&w->f_contact_impulse, 3 * c, sizeof(double)) ||
        grow((void **)&w->f_contact_tangent, 3 * c, sizeof(double)))
      return -1;
    w->f_contact_cap = cs->n;
  }
  for (int i = 0; i < cs->n; i++) {
    const TsrContact *c = &cs->c[i];
    w->f_contact_body[2 * i] = c->body[0];
    w->f_contact_body[2 * i + 1] = c->body[1];
    double *p = &w->f_contact_point[3 * i], *n = &w->f_contact_normal[3 * i];
    p[0] = c->point.x, p[1] = c->point.y, p[2] = c->point.z;
    n[0] = c->normal.x, n[1] = c->normal.y, n[2] = c->normal.z;
    w->f_contact_depth[i] = c->depth;
    for (int k = 0; k < 3; k++) w->f_contact_impulse[3 * i + k] = c->impulse[k];
    double *t = &w->f_contact_tangent[3 * i];
    t[0] = c->t1.x, t[1] = c->t1.y, t[2] = c->t1.z;
  }
  return 0;
}

void tsr_world_frame(TsrWorld *w, int initial, TsrFrame *f) {
  const TsrBodies *b = &w->bodies;
  memset(f, 0, sizeof *f);
  f->time = w->time;
  f->step = w->step;
  f->n_bodies = b->n;
  for (int k = 0; k < b->n; k++) {
    double *p = &w->f_pos[3 * k], *q = &w->f_ori[4 * k], *v = &w->f_vel[6 * k];
    p[0] = b->x[k].x, p[1] = b->x[k].y, p[2] = b->x[k].z;
    q[0] = b->q[k].w, q[1] = b->q[k].x, q[2] = b->q[k].y, q[3] = b->q[k].z;
    v[0] = b->v[k].x, v[1] = b->v[k].y, v[2] = b->v[k].z;
    v[3] = b->w[k].x, v[4] = b->w[k].y, v[5] = b->w[k].z;
    w->f_body_sub[k] = b->fixed[k] ? -1 : (initial ? 0 : w->partition.body_subsystem[k]);
  }
  f->position = w->f_pos;
  f->orientation = w->f_ori;
  f->velocity = w->f_vel;
  f->body_subsystem = w->f_body_sub;
  if (initial) return;
  if (w->model->settings.output.contacts && frame_contacts(w) == 0) {
    const TsrContacts *cs = &w->contacts;
    f->n_contacts = cs->n;
    f->contact_body = w->f_contact_body;
    f->contact_point = w->f_contact_point;
    f->contact_normal = w->f_contact_normal;
    f->contact_depth = w->f_contact_depth;
    f->contact_impulse = w->f_contact_impulse;
    f->contact_tangent1 = w->f_contact_tangent;
  }
  if (!w->model->settings.output.constraints) return;
  int m = w->rows.count;
  for (int i = 0; i < m; i++) {
    const TsrRow *r = &w->rows.rows[i];
    w->f_row_type[i] = r->type;
    w->f_row_source[i] = r->source;
    w->f_row_body[2 * i] = r->body[0];
    w->f_row_body[2 * i + 1] = r->body[1];
    w->f_row_sub[i] = w->partition.row_subsystem[i];
  }
  tsr_mlcp_index_set(&w->mlcp, w->lambda, w->solver_params.index_tolerance, w->f_row_index);
  f->n_rows = m;
  f->row_type = w->f_row_type;
  f->row_source = w->f_row_source;
  f->row_body = w->f_row_body;
  f->row_impulse = w->lambda;
  f->row_index_set = w->f_row_index;
  f->row_subsystem = w->f_row_sub;
}
