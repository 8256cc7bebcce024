// SPDX-License-Identifier: MIT
// `tessera info RUN.h5 [--json]`: summary of a run file, one "key: value"
// per line (or one JSON object), readable also while the run is going on or
// after it was killed.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "io/run_file.h"
#include "model/model.h"
#include "solvers/solver.h"

static const char usage[] =
    "usage: tessera info RUN.h5 [--json]\n"
    "\n"
    "Summarises a run file: model, solver, frames, steps, solve times, coupling\n"
    "iterations, MLCP error, joint error and penetration. Works on files of runs\n"
    "still going on or killed (they report complete: no).\n"
    "\n"
    "  --json   one JSON object instead of key: value lines\n";

// v as a JSON string, quoted and escaped.
static void json_chars(const char *v) {
  putchar('"');
  for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
    if (*p == '"' || *p == '\\')
      printf("\\%c", *p);
    else if (*p < 0x20)
      printf("\\u%04x", *p);
    else
      putchar(*p);
  }
  putchar('"');
}

static void json_str(const char *key, const char *v, int last) {
  printf("  \"%s\": ", key);
  json_chars(v);
  printf("%s\n", last ? "" : ",");
}

static void json_num(const char *key, double v, int last) {
  if (isfinite(v))
    printf("  \"%s\": %.17g%s\n", key, v, last ? "" : ",");
  else
    printf("  \"%s\": null%s\n", key, last ? "" : ",");
}

static void print_json(const TsrRunSummary *s) {
  printf("{\n");
  json_str("model", s->model_name, 0);
  json_str("solver", s->solver, 0);
  json_str("partitioning", s->partitioning, 0);
  json_num("threads", s->threads, 0);
  json_num("step", s->step, 0);
  json_str("created_utc", s->created_utc, 0);
  json_str("tessera_version", s->tessera_version, 0);
  printf("  \"overrides\": [");  // as given, in order (the list the run file keeps)
  for (int k = 0; k < s->n_overrides; k++) {
    printf("%s", k ? ", " : "");
    json_chars(tsr_run_summary_override(s, k));
  }
  printf("]%s,\n", s->overrides_cut ? ", \"overrides_cut\": true" : "");
  printf("  \"complete\": %s,\n", s->complete ? "true" : "false");
  json_num("bodies", s->n_bodies, 0);
  json_num("frames", (double)s->frames, 0);
  json_num("steps", (double)s->steps, 0);
  json_num("constraint_rows", (double)s->constraint_rows, 0);
  json_num("contacts", (double)s->contacts, 0);
  json_num("solve_ms_mean", s->solve_ms_mean, 0);
  json_num("solve_ms_median", s->solve_ms_median, 0);
  json_num("solve_ms_max", s->solve_ms_max, 0);
  json_num("step_ms_mean", s->step_ms_mean, 0);
  json_num("coupling_iterations_mean", s->coupling_mean, 0);
  json_num("max_coupling_iterations", s->max_coupling_iterations, 0);
  json_num("pct_at_kmax", s->pct_at_kmax, 0);
  json_num("mlcp_error_mean", s->mlcp_error_mean, 0);
  json_num("mlcp_error_median", s->mlcp_error_median, 0);
  json_num("mlcp_error_max", s->mlcp_error_max, 0);
  json_num("joint_error_max", s->joint_error_max, 0);
  json_num("penetration_max", s->penetration_max, 0);
  json_num("converged_fraction", s->converged_fraction, 1);
  printf("}\n");
}

static void print_text(const char *path, const TsrRunSummary *s) {
  printf("file: %s\n", path);
  printf("model: %s\n", s->model_name);
  printf("complete: %s\n", s->complete ? "yes" : "no");
  printf("created: %s\n", s->created_utc);
  printf("tessera: %s\n", s->tessera_version);
  if (s->n_overrides > 0 || s->overrides_cut) {
    printf("overrides:");
    for (int k = 0; k < s->n_overrides; k++) printf(" %s", tsr_run_summary_override(s, k));
    printf("%s\n", s->overrides_cut ? " ..." : "");
  }
  printf("solver: %s\n", s->solver);
  printf("partitioning: %s\n", s->partitioning);
  printf("threads: %d\n", s->threads);
  printf("step: %g s\n", s->step);
  printf("bodies: %d\n", s->n_bodies);
  printf("frames: %ld\n", s->frames);
  printf("steps: %ld\n", s->steps);
  printf("constraint rows: %ld (all frames)\n", s->constraint_rows);
  printf("contacts: %ld (all frames)\n", s->contacts);
  if (s->steps > 0) {
    printf("solve ms: mean %.3f median %.3f max %.3f\n", s->solve_ms_mean, s->solve_ms_median, s->solve_ms_max);
    printf("step ms: mean %.3f\n", s->step_ms_mean);
    // A whole-system solver has no coupling loop: its k_max (the run file
    // keeps the default's) is no limit of anything it did.
    int type = tsr_solver_type_from_name(s->solver);
    if (type >= 0 && !tsr_solver_substructured((TsrSolverType)type))
      printf("coupling iterations: none (%s solves the whole system)\n", s->solver);
    else
      printf("coupling iterations: mean %.2f (%.1f%% at k_max = %d)\n", s->coupling_mean, s->pct_at_kmax,
             s->max_coupling_iterations);
    printf("mlcp error: mean %.3g median %.3g max %.3g\n", s->mlcp_error_mean, s->mlcp_error_median, s->mlcp_error_max);
    printf("max joint error: %.3g m\n", s->joint_error_max);
    printf("max penetration: %.3g m\n", s->penetration_max);
    printf("converged: %.1f%% of steps\n", 100.0 * s->converged_fraction);
  } else {
    printf("solve ms: n/a (no steps)\n");
  }
}

int tsr_cmd_info(int argc, char **argv) {
  const char *path = NULL;
  int json = 0;
  for (int i = 1; i < argc; i++) {
    TsrCliArg a;
    tsr_cli_arg("info", argv[i], &a);
    int help = tsr_cli_flag(&a, "--help", "-h"), js = help ? 0 : tsr_cli_flag(&a, "--json", NULL);
    if (help < 0 || js < 0) return 2;
    if (help) {
      fputs(usage, stdout);
      return 0;
    } else if (js) {
      json = 1;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      tsr_cli_error("info: unknown option '%s' (see 'tessera info --help')", argv[i]);
      return 2;
    } else if (path) {
      tsr_cli_error("info: one run file at a time ('%s' and '%s')", path, argv[i]);
      return 2;
    } else {
      path = argv[i];
    }
  }
  if (!path) {
    tsr_cli_error("info: no run file given (usage: tessera info RUN.h5 [--json])");
    return 2;
  }
  TsrRunSummary s;
  char err[512];
  int rc = tsr_run_file_summary(path, &s, err, sizeof err);
  if (rc == TSR_RUN_FILE_INVALID) {  // "RUNFILE: error: DATASET: WHAT", whole
    fprintf(stderr, "%s\n", err);
    return 2;
  } else if (rc) {
    tsr_cli_file_error(err, path);
    return 2;
  }
  if (json)
    print_json(&s);
  else
    print_text(path, &s);
  // The warning goes to stderr so scripts parsing stdout see only key: value lines.
  if (!s.complete)
    fprintf(stderr, "tessera: warning: run did not finish: file holds %ld frames (%ld steps)\n", s.frames, s.steps);
  return 0;
}
