// SPDX-License-Identifier: MIT
#include "cli/options.h"
#include "linalg/chol.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "util/decimal.h"

// OpenBLAS's own thread pool must stay at one thread: Tessera's parallelism is
// OpenMP over subsystems (ARCHITECTURE.md "Threads"); linalg/chol.c stops it.
void tsr_cli_apply_threads(int threads) {
  tsr_chol_blas_single_thread();
  omp_set_num_threads(threads > 0 ? threads : omp_get_num_procs());
}

int tsr_cli_parse_long(const char *cmd, const char *opt, const char *s, long min, long max, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  int too_large = max < LONG_MAX && errno == ERANGE && end != s && !*end && v == LONG_MAX;  // say the bound
  if (!too_large && (errno || end == s || *end || v < min)) {
    tsr_cli_error("%s: %s expects an integer >= %ld, got '%s'", cmd, opt, min, s);
    return -1;
  }
  if (too_large || v > max) {
    tsr_cli_error("%s: %s: at most %ld, got %s", cmd, opt, max, s);
    return -1;
  }
  *out = v;
  return 0;
}

int tsr_cli_parse_seconds(const char *cmd, const char *opt, const char *s, double *out) {
  double v;
  if (!tsr_parse_decimal(s, &v) || !isfinite(v) || v < 0) {
    tsr_cli_error("%s: %s expects a non-negative number of seconds, got '%s'", cmd, opt, s);
    return -1;
  }
  *out = v;
  return 0;
}

// --dump-steps: "A" or "A-B", 1 <= A <= B, steps counted from 1 (as the
// progress lines and the run file's frames count them).
static int parse_step_range(const char *cmd, const char *opt, const char *s, long *from, long *to) {
  const char *dash = strchr(s, '-');
  char a[32];
  if (dash && (size_t)(dash - s) < sizeof a) {
    memcpy(a, s, (size_t)(dash - s));
    a[dash - s] = 0;
  } else if (dash) {
    a[0] = 0;  // too long: rejected below
  }
  if (tsr_cli_parse_long(cmd, opt, dash ? a : s, 1, TSR_MAX_STEPS, from)) return -1;
  *to = *from;
  if (dash && tsr_cli_parse_long(cmd, opt, dash + 1, *from, TSR_MAX_STEPS, to)) return -1;
  return 0;
}

int tsr_parse_run_options(int argc, char **argv, const char *usage, int with_output, TsrRunOptions *o) {
  memset(o, 0, sizeof *o);
  o->max_bodies = o->threads = o->steps = o->every = -1;
  o->dump_from = o->dump_to = -1;
  o->duration = NAN;
  o->progress = NAN;
  o->sets = calloc((size_t)argc + 1, sizeof *o->sets);
  const char *cmd = argv[0];  // run, check or compare, for messages
  for (int i = 1; i < argc; i++) {
    TsrCliArg arg;
    tsr_cli_arg(cmd, argv[i], &arg);
    const char *a = arg.name, *val = NULL;
#define NEED_VALUE()                                                    \
  do {                                                                  \
    if (!(val = tsr_cli_value(&arg, argc, argv, &i))) goto usage_error; \
  } while (0)
    int help = tsr_cli_flag(&arg, "--help", "-h"), quiet = tsr_cli_flag(&arg, "--quiet", "-q");
    int overwrite = with_output ? tsr_cli_flag(&arg, "--overwrite", NULL) : 0;
    if (help < 0 || quiet < 0 || overwrite < 0) goto usage_error;
    if (help) {
      fputs(usage, stdout);
      tsr_run_options_free(o);
      return 0;
    } else if (with_output && (!strcmp(a, "-o") || !strcmp(a, "--output"))) {
      NEED_VALUE();
      if (tsr_cli_output_once(cmd, "-o", &o->output, val)) goto usage_error;
    } else if (with_output && !strcmp(a, "--vtk")) {
      NEED_VALUE();
      if (tsr_cli_output_once(cmd, "--vtk", &o->vtk_dir, val)) goto usage_error;
    } else if (with_output && !strcmp(a, "--dump-mlcp")) {
      NEED_VALUE();
      if (tsr_cli_output_once(cmd, "--dump-mlcp", &o->dump_dir, val)) goto usage_error;
    } else if (with_output && !strcmp(a, "--dump-steps")) {
      NEED_VALUE();
      if (parse_step_range(cmd, a, val, &o->dump_from, &o->dump_to)) goto usage_error;
    } else if (overwrite) {
      o->overwrite = 1;
    } else if ((with_output || !strcmp(cmd, "compare")) && !strcmp(a, "--progress")) {
      NEED_VALUE();
      if (tsr_cli_parse_seconds(cmd, a, val, &o->progress)) goto usage_error;
    } else if (quiet) {
      o->quiet = 1;
    } else if (!strcmp(a, "--solver")) {
      NEED_VALUE();
      o->solver = val;
    } else if (!strcmp(a, "--partition")) {
      NEED_VALUE();
      o->partition = val;
    } else if (!strcmp(a, "--refine")) {
      NEED_VALUE();
      o->refine = val;
    } else if (!strcmp(a, "--max-bodies")) {
      NEED_VALUE();
      // At most an int, as the model's max_bodies (4294967297 read as 1).
      if (tsr_cli_parse_long(cmd, a, val, 1, TSR_MAX_INT, &o->max_bodies)) goto usage_error;
    } else if (!strcmp(a, "--threads")) {
      NEED_VALUE();
      if (tsr_cli_parse_long(cmd, a, val, 0, TSR_MAX_THREADS, &o->threads)) goto usage_error;
    } else if (!strcmp(a, "--steps")) {
      NEED_VALUE();
      // At least 1, as the model's `steps` (0 wrote a run file of no step
      // marked complete); compare says its own "nothing to compare".
      if (tsr_cli_parse_long(cmd, a, val, strcmp(cmd, "compare") ? 1 : 0, TSR_MAX_STEPS, &o->steps)) goto usage_error;
    } else if (!strcmp(a, "--every")) {
      NEED_VALUE();
      // (4294967297 became 1 as an int)
      if (tsr_cli_parse_long(cmd, a, val, 1, TSR_MAX_INT, &o->every)) goto usage_error;
    } else if (!strcmp(a, "--duration")) {
      NEED_VALUE();
      if (tsr_cli_parse_seconds(cmd, a, val, &o->duration)) goto usage_error;
      o->duration_arg = val;
    } else if (!strcmp(a, "--set")) {
      NEED_VALUE();
      if (!strchr(val, '=')) {
        tsr_cli_error("%s: --set expects KEY=VALUE, got '%s'", cmd, val);
        goto usage_error;
      }
      o->sets[o->n_sets++] = val;
    } else if (a[0] == '-' && a[1]) {
      tsr_cli_error("%s: unknown option '%s'", cmd, arg.arg);
      goto usage_error;
    } else if (!o->model) {
      o->model = arg.arg;
    } else {
      tsr_cli_error("%s: unexpected argument '%s'", cmd, arg.arg);
      goto usage_error;
    }
#undef NEED_VALUE
  }
  if (!o->model) {
    tsr_cli_error("%s: no model file given", cmd);
    goto usage_error;
  }
  if (!o->dump_dir != (o->dump_from < 0)) {
    tsr_cli_error("%s: %s", cmd,
                  o->dump_dir ? "--dump-mlcp needs --dump-steps A or A-B (which steps' MLCPs to write)"
                              : "--dump-steps needs --dump-mlcp DIR (where to write them)");
    goto usage_error;
  }
  if (o->steps >= 0 && !isnan(o->duration)) {
    tsr_cli_error("%s: give --steps or --duration, not both", cmd);
    goto usage_error;
  }
  return -1;
usage_error:
  fputs(usage, stderr);
  tsr_run_options_free(o);
  return 2;
}

void tsr_run_options_free(TsrRunOptions *o) {
  free(o->sets);
  o->sets = NULL;
  free(o->output_resolved);
  o->output_resolved = NULL;
}

// One "--flag value" string of the override list, or the list's end on
// failure (out of memory).
static int add_override(char **v, int n, const char *flag, const char *value) {
  if (n < 0) return n;
  size_t len = strlen(flag) + 1 + strlen(value) + 1;
  if (!(v[n] = malloc(len))) return -1;
  snprintf(v[n], len, "%s %s", flag, value);
  return n + 1;
}

int tsr_run_options_overrides(const TsrRunOptions *o, char ***out) {
  *out = NULL;
  char **v = calloc((size_t)o->n_sets + 10, sizeof *v), num[64];
  if (!v) return -1;
  int n = 0;
  for (int i = 0; i < o->n_sets; i++) n = add_override(v, n, "--set", o->sets[i]);
  if (o->solver) n = add_override(v, n, "--solver", o->solver);
  if (o->partition) n = add_override(v, n, "--partition", o->partition);
  if (o->refine) n = add_override(v, n, "--refine", o->refine);
  const struct {
    const char *flag;
    long value, min;
  } ints[] = {{"--max-bodies", o->max_bodies, 1},
              {"--threads", o->threads, 0},
              {"--steps", o->steps, 0},
              {"--every", o->every, 1}};
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
    if (ints[i].value >= ints[i].min) {
      snprintf(num, sizeof num, "%ld", ints[i].value);
      n = add_override(v, n, ints[i].flag, num);
    }
  if (o->duration_arg) n = add_override(v, n, "--duration", o->duration_arg);  // as given: 6.6, not 6.59...96
  if (n < 0) {
    tsr_strings_free(v, o->n_sets + 10);
    return -1;
  }
  *out = v;
  return n;
}

void tsr_strings_free(char **v, int n) {
  if (!v) return;
  for (int i = 0; i < n; i++) free(v[i]);
  free(v);
}

int tsr_load_model_for_cli(const TsrRunOptions *o, TsrModel *m) {
  TsrDiag diag;
  tsr_diag_init(&diag);
  int rc = tsr_model_load(o->model, o->sets, o->n_sets, m, &diag);
  for (int i = 0; i < diag.count; i++) fprintf(stderr, "%s\n", diag.messages[i]);
  tsr_diag_free(&diag);
  if (rc) return -1;
  // Format 1 allows a model without bodies (MODEL.md requires only format and
  // name), but there is nothing to simulate: run, check and compare say so
  // here rather than run failing at its first write with the output's name.
  if (m->n_bodies == 0) {
    fprintf(stderr, "%s:%d:%d: error: the model has no bodies: nothing to simulate\n", m->path, m->bodies_mark.line,
            m->bodies_mark.col);
    goto fail;
  }
  TsrSettings *s = &m->settings;
  if (o->solver) {
    int t = tsr_solver_type_from_name(o->solver);
    if (t < 0) {
      tsr_cli_error("--solver: unknown solver '%s' (direct-bpp, pgs, pgs-sm, schur-bpp, schur-pgs-sm, fbic)",
                    o->solver);
      goto fail;
    }
    s->solver.type = (TsrSolverType)t;
  }
  if (o->partition) {
    int p = tsr_partition_method_from_name(o->partition);
    if (p < 0) {
      tsr_cli_error("--partition: unknown method '%s' (" TSR_PARTITION_METHOD_LIST ")", o->partition);
      goto fail;
    }
    s->partitioning.method = (TsrPartitionMethod)p;
  }
  if (o->refine) {
    int r = tsr_partition_refine_from_name(o->refine);
    if (r < 0) {
      tsr_cli_error("--refine: unknown refinement '%s' (" TSR_PARTITION_REFINE_LIST ")", o->refine);
      goto fail;
    }
    s->partitioning.refine = (TsrPartitionRefine)r;
  }
  if (o->max_bodies > 0) s->partitioning.max_bodies = (int)o->max_bodies;
  if (o->threads >= 0) s->solver.threads = (int)o->threads;
  if (o->every > 0) s->output.every = (int)o->every;
  if (o->steps >= 0) s->steps = o->steps;
  if (!isnan(o->duration)) {
    double steps;
    char why[160];
    if (tsr_model_steps_for(o->duration, s->step, &steps, why, (int)sizeof why)) {
      tsr_cli_error("--%s", why);
      goto fail;
    }
    s->duration = o->duration;
    s->steps = (long)steps;
  }
  return 0;
fail:
  tsr_model_free(m);
  return -1;
}
