// SPDX-License-Identifier: MIT
// `tessera check MODEL.yaml`: validate a model and print what it holds.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "joints/joints.h"
#include "model/model.h"

static const char check_usage[] =
    "usage: tessera check MODEL.yaml [options]\n"
    "\n"
    "Validates the model (errors as FILE:LINE:COL: error: ..., exit 2) and prints\n"
    "a summary: bodies, shapes, joints, constraint rows, groups, settings, and\n"
    "the pairs of shapes that start inside one another (deeper than a quarter of\n"
    "the thinner shape: warned about, with the deepest three located).\n"
    "\n"
    "The model is checked as `tessera run` with the same options would run it:\n"
    "  --set KEY=VALUE       override any model field; may be repeated\n"
    "  --solver S            direct-bpp | pgs | pgs-sm | schur-bpp | schur-pgs-sm | fbic\n"
    "  --partition M         semantic | mindp | maxdp | bfs | mass-ratio | mix | metis | none\n"
    "  --refine R            none | kl | fm\n"
    "  --max-bodies N        bodies per subsystem for automatic partitioning\n"
    "  --steps N             number of steps (--duration T: simulated time, s)\n"
    "  --every N             a frame every N steps (warned about when the steps\n"
    "                        are not a multiple of it)\n"
    "  --threads N, -q       accepted, so that a run's options can be given as they\n"
    "                        are; they change nothing here\n";

static const char *joint_names[] = {"ball", "hinge", "universal", "prismatic", "fixed", "cable", "distance"};

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

// Distinct group names, by sorting them: comparing each with every earlier
// one took 20 s for 100,000 bodies.
static int count_groups(const TsrModel *m) {
  const char **g = malloc(((size_t)m->n_bodies + 1) * sizeof *g);
  if (!g) return -1;
  int n = 0, groups = 0;
  for (int i = 0; i < m->n_bodies; i++)
    if (m->bodies[i].group) g[n++] = m->bodies[i].group;
  qsort(g, (size_t)n, sizeof *g, cmp_str);
  for (int i = 0; i < n; i++) groups += i == 0 || strcmp(g[i], g[i - 1]) != 0;
  free(g);
  return groups;
}

int tsr_cmd_check(int argc, char **argv) {
  TsrRunOptions o;
  int rc = tsr_parse_run_options(argc, argv, check_usage, 0, &o);
  if (rc >= 0) return rc;
  TsrModel m;
  if (tsr_load_model_for_cli(&o, &m)) {
    tsr_run_options_free(&o);
    return 2;
  }
  int fixed = 0, rows = 0, per_type[7] = {0}, limits = 0, motors = 0;
  double mass = 0, min_mass = 0, max_mass = 0;
  for (int i = 0; i < m.n_bodies; i++) {
    const TsrBodyDef *b = &m.bodies[i];
    if (b->fixed) {
      fixed++;
      continue;
    }
    mass += b->mass;
    if (min_mass == 0 || b->mass < min_mass) min_mass = b->mass;
    if (b->mass > max_mass) max_mass = b->mass;
  }
  for (int j = 0; j < m.n_joints; j++) {
    const TsrJointDef *d = &m.joints[j];
    rows += tsr_joint_row_count(d);
    per_type[d->type]++;
    limits += d->has_limits;
    motors += d->has_motor;
  }
  printf("model: %s (%s)\n", m.name, m.path);
  printf("bodies: %d (%d moving, %d fixed), total moving mass %.6g kg\n", m.n_bodies, m.n_bodies - fixed, fixed, mass);
  if (max_mass > 0) printf("mass ratio: %.6g (%.6g .. %.6g kg)\n", max_mass / min_mass, min_mass, max_mass);
  printf("shapes: %d\n", m.n_shapes);
  printf("joints: %d", m.n_joints);
  const char *sep = " (";
  for (int t = 0; t < 7; t++)
    if (per_type[t]) {
      printf("%s%d %s", sep, per_type[t], joint_names[t]);
      sep = ", ";
    }
  printf("%s\n", m.n_joints ? ")" : "");
  printf("joint rows: %d (%d limit, %d motor)\n", rows, limits, motors);
  printf("groups: %d\n", count_groups(&m));
  printf("materials: %d, material pairs: %d\n", m.n_materials, m.n_material_pairs);
  printf("step: %.9g s, steps: %ld (%.6g s)\n", m.settings.step, m.settings.steps,
         (double)m.settings.steps * m.settings.step);
  char partitioning[64];
  printf("solver: %s, partitioning: %s\n", tsr_solver_type_name(m.settings.solver.type),
         tsr_cli_partition_label(&m.settings, partitioning, sizeof partitioning));
  fflush(stdout);  // the summary first, then any warning (stderr)
  int overlaps = tsr_cli_warn_overlaps(&m);
  if (overlaps < 0) {
    tsr_model_free(&m);
    tsr_run_options_free(&o);
    return 2;
  }
  printf("initial overlaps: %d\n", overlaps);
  tsr_cli_warn_centroids(&m);
  tsr_cli_warn_output(&m);
  tsr_cli_warn_redundant(&m);
  tsr_cli_warn_inertia(&m);
  tsr_cli_warn_limits(&m);
  tsr_model_free(&m);
  tsr_run_options_free(&o);
  return 0;
}
