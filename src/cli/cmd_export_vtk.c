// SPDX-License-Identifier: MIT
// `tessera export-vtk RUN.h5 -o DIR [--every N] [--from T0] [--to T1]
//  [--threads N] [--segments N] [--progress S] [--quiet]`: VTK pieces and .pvd collections
// for ParaView (layout in src/io/vtk.h and postproc/README.md).
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "solvers/stop.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "io/vtk.h"
#include "util/clock.h"
#include "util/decimal.h"

static const char usage[] =
    "usage: tessera export-vtk RUN.h5 -o DIR [--every N] [--from T0] [--to T1] [--threads N]\n"
    "                          [--segments N] [--progress S] [--quiet]\n"
    "\n"
    "Writes VTK files for ParaView: DIR/NAME.pvd (bodies), DIR/NAME_contacts.pvd and\n"
    "DIR/NAME_joints.pvd (file series, one time step per frame), and the .vtp pieces\n"
    "they name in DIR/NAME/. NAME is the model name. DIR is created if missing.\n"
    "A run file of a run that did not finish exports every frame it holds.\n"
    "\n"
    "  -o DIR         output directory (required)\n"
    "  --every N      frames whose index in the file is a multiple of N (default 1)\n"
    "  --from T0      first simulated time to export, s (default: the start)\n"
    "  --to T1        last simulated time to export, s (default: the end)\n"
    "  --threads N    OpenMP threads encoding frames (0 = every core; default:\n"
    "                 OMP_NUM_THREADS or every core)\n"
    "  --segments N   facets around spheres, capsules and cylinders (3..128, default 12)\n"
    "  --progress S   when stderr is not a terminal (a batch job's log), a progress\n"
    "                 line every S seconds (default 60; 0 = none); on a terminal\n"
    "                 one line rewritten in place\n"
    "  -q, --quiet    no progress and no summary line\n";

static int parse_time(const char *opt, const char *s, double *out) {
  double v;
  if (!tsr_parse_decimal(s, &v) || !isfinite(v)) {
    tsr_cli_error("export-vtk: %s expects a time in seconds, got '%s'", opt, s);
    return -1;
  }
  *out = v;
  return 0;
}

// A progress line (tsr_cli_progress) after a frame, named by the run file.
typedef struct {
  TsrCliProgress p;
  const char *run;
} Progress;

static void frame_done(void *ctx, long done, long total) {
  Progress *pr = ctx;
  tsr_cli_progress(&pr->p, pr->run, done, total, NAN, NULL);
}

int tsr_cmd_export_vtk(int argc, char **argv) {
  const char *run = NULL, *dir = NULL;
  double progress = NAN;  // seconds between a log's progress lines (NaN: the default)
  TsrVtkExportOptions o = {.every = 1, .t_from = -INFINITY, .t_to = INFINITY, .segments = 0};
  long threads = -1, segments = 0;  // threads: -1 OMP_NUM_THREADS or every core; 0 every core
  int quiet = 0;
  for (int i = 1; i < argc; i++) {
    TsrCliArg arg;
    tsr_cli_arg("export-vtk", argv[i], &arg);
    const char *a = arg.name, *v = NULL;
#define VALUE() (v = tsr_cli_value(&arg, argc, argv, &i))
    int help = tsr_cli_flag(&arg, "--help", "-h"), q = help ? 0 : tsr_cli_flag(&arg, "--quiet", "-q");
    if (help < 0 || q < 0) return 2;
    if (help) {
      fputs(usage, stdout);
      return 0;
    } else if (q) {
      quiet = 1;
    } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
      if (!VALUE() || tsr_cli_output_once("export-vtk", "-o", &dir, v)) return 2;
    } else if (!strcmp(a, "--every")) {
      if (!VALUE() || tsr_cli_parse_long("export-vtk", a, v, 1, LONG_MAX, &o.every)) return 2;
    } else if (!strcmp(a, "--from")) {
      if (!VALUE() || parse_time(a, v, &o.t_from)) return 2;
    } else if (!strcmp(a, "--to")) {
      if (!VALUE() || parse_time(a, v, &o.t_to)) return 2;
    } else if (!strcmp(a, "--threads")) {
      if (!VALUE() || tsr_cli_parse_long("export-vtk", a, v, 0, TSR_MAX_THREADS, &threads)) return 2;
    } else if (!strcmp(a, "--segments")) {
      if (!VALUE() || tsr_cli_parse_long("export-vtk", a, v, 3, 128, &segments)) return 2;
    } else if (!strcmp(a, "--progress")) {
      if (!VALUE() || tsr_cli_parse_seconds("export-vtk", a, v, &progress)) return 2;
    } else if (a[0] == '-' && a[1]) {
      tsr_cli_error("export-vtk: unknown option '%s' (see 'tessera export-vtk --help')", arg.arg);
      return 2;
    } else if (run) {
      tsr_cli_error("export-vtk: one run file at a time ('%s' and '%s')", run, arg.arg);
      return 2;
    } else {
      run = arg.arg;
    }
#undef VALUE
  }
  if (!run) {
    tsr_cli_error("export-vtk: no run file given (usage: tessera export-vtk RUN.h5 -o DIR)");
    return 2;
  }
  if (!dir || !dir[0]) {
    tsr_cli_error("export-vtk: no output directory given (-o DIR)");
    return 2;
  }
  if (o.t_from > o.t_to) {
    tsr_cli_error("export-vtk: --from %g is after --to %g", o.t_from, o.t_to);
    return 2;
  }
  o.segments = (int)segments;
  if (threads >= 0) {
    tsr_cli_apply_threads((int)threads);  // 0: every core, as for run and compare
  } else if (omp_get_max_threads() > TSR_MAX_THREADS) {
    // OMP_NUM_THREADS=100000 made libgomp fail to create its threads, or
    // crash in GOMP_parallel; --threads has the same bound.
    tsr_cli_error("export-vtk: OMP_NUM_THREADS asks for %d threads, at most %d (or give --threads N)",
                  omp_get_max_threads(), TSR_MAX_THREADS);
    return 2;
  }
  TsrVtkExportResult res;
  char err[1024];
  double t0 = tsr_now_seconds();
  tsr_cli_catch_stop_signals();  // Ctrl-C, SIGTERM: the export stops between frames, exit 130
  o.stop = tsr_interrupt_requested;
  Progress pr = {.run = run};
  tsr_cli_progress_start(&pr.p, quiet, progress);
  pr.p.unit = "frame";
  if (!pr.p.quiet) o.progress = frame_done, o.progress_ctx = &pr;
  int rc = tsr_vtk_export(run, dir, &o, &res, err, sizeof err);
  tsr_cli_progress_end(&pr.p, rc == 0);
  if (rc == TSR_VTK_RUN_FILE_INVALID) {  // "RUNFILE: error: DATASET: WHAT", whole; nothing of a series left
    fprintf(stderr, "%s\n", err);
    return 2;
  } else if (rc) {
    tsr_cli_file_error(err, run);
    // 2: the run file cannot be read (bad input); a folder that cannot be
    // written is a failure of the export (1), as for run
    return rc == -3 ? 130 : rc == -4 ? 1 : 2;
  }
  if (res.warning[0]) {
    for (char *line = strtok(res.warning, "\n"); line; line = strtok(NULL, "\n"))
      fprintf(stderr, "tessera: warning: %s\n", line);
  }
  if (!res.complete)
    fprintf(stderr, "tessera: warning: %s: run did not finish (complete = 0): exported the %ld frames it holds\n", run,
            res.frames_in_file);
  if (res.frames_written == 0)
    fprintf(stderr, "tessera: warning: no frame of %s is in the selection (%ld frames in the file)\n", run,
            res.frames_in_file);
  if (!quiet)
    printf("%s: %ld of %ld frames in %.2f s (%d threads)\n", res.pvd, res.frames_written, res.frames_in_file,
           tsr_now_seconds() - t0, omp_get_max_threads());
  return 0;
}
