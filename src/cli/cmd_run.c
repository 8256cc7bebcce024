// SPDX-License-Identifier: MIT
// `tessera run MODEL.yaml -o RUN.h5 [options]`: simulate and stream the
// trajectory to one HDF5 file (OUTPUT.md).
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "io/out_files.h"
#include "io/run_file.h"
#include "io/vtk.h"
#include "model/model.h"
#include "sim/world.h"
#include "solvers/stop.h"
#include "util/clock.h"

static const char run_usage[] =
    "usage: tessera run MODEL.yaml -o RUN.h5 [options]\n"
    "\n"
    "  -o, --output FILE     run file to write (HDF5, OUTPUT.md layout)\n"
    "  --overwrite           replace FILE if it exists\n"
    "  --solver S            direct-bpp | pgs | pgs-sm | schur-bpp | schur-pgs-sm | fbic\n"
    "                        (overrides settings.solver.type)\n"
    "  --partition M         semantic | mindp | maxdp | bfs | mass-ratio | mix | metis | none\n"
    "                        (settings.partitioning.method; README.md describes each)\n"
    "  --refine R            none | kl | fm: refine an automatic partition at the\n"
    "                        interface (Kernighan-Lin, Fiduccia-Mattheyses)\n"
    "  --max-bodies N        bodies per subsystem for automatic partitioning\n"
    "  --threads N           OpenMP threads (0 = every core; at most 1024)\n"
    "  --steps N             number of steps to simulate\n"
    "  --duration T          simulated time, s (steps = round(T / h))\n"
    "  --every N             write a frame every N steps\n"
    "  --vtk DIR             also write DIR/<model>.pvd (+ _contacts, _joints) for ParaView as the run goes\n"
    "  --dump-mlcp DIR       write the MLCP of each step in --dump-steps to\n"
    "                        DIR/relay_<model>_<step>.dat (Siconos box-LCP text; solve it\n"
    "                        again with `tessera mlcp solve FILE --solver S`)\n"
    "  --dump-steps A[-B]    the steps to dump, counted from 1 as the progress lines\n"
    "                        and the run file's frames count them\n"
    "  --set KEY=VALUE       override any model field, e.g. --set bodies.box.mass=1000\n"
    "                        or --set settings.gravity=[0,0,-1.62]; may be repeated\n"
    "  --progress S          when stderr is not a terminal (a batch job's log), a\n"
    "                        progress line every S seconds (default 60; 0 = none),\n"
    "                        also while one step runs longer than S\n"
    "  -q, --quiet           no progress lines (and no summary line)\n"
    "\n"
    "Exit status: 0 success, 1 the simulation failed (the file is kept with\n"
    "complete = 0), 2 bad usage or bad input (no file is written), 130 interrupted\n"
    "(Ctrl-C / SIGTERM end the step in progress, which is not written; the file\n"
    "keeps every frame before it; a second Ctrl-C, a second or more after the\n"
    "first, kills at once).\n";

// --dump-mlcp: the MLCP each step in [from, to] hands its solver first (the
// world's solve hook: assembled, warm start set; re-solves of the same step
// for friction, struck bodies or the first step's friction are not
// written), as DIR/relay_<model>_<step>.dat. A file that cannot be written
// is said once and ends the dump, not the run; the command then exits 1.
typedef struct {
  const char *dir;
  char model[256];  // the model's name made safe for a file name (tsr_io_safe_name)
  long from, to, written;
  int failed;
} MlcpDump;

static void dump_hook(const TsrWorld *w, void *ctx) {
  MlcpDump *d = ctx;
  long step = w->step + 1;  // the step being solved, counted from 1
  if (d->failed || step < d->from || step > d->to) return;
  errno = 0;
  char path[4096];
  int n = snprintf(path, sizeof path, "%s/relay_%s_%06ld.dat", d->dir, d->model, step);
  FILE *f = n > 0 && (size_t)n < sizeof path ? fopen(path, "w") : NULL;
  int bad = !f || tsr_mlcp_write_relay(&w->mlcp, f);
  if (f && fclose(f)) bad = 1;
  if (bad) {
    tsr_cli_error("--dump-mlcp: cannot write %s%s%s (at step %ld); the run goes on without the dump", path,
                  errno ? ": " : "", errno ? strerror(errno) : "", step);
    if (f) remove(path);  // not a file that looks whole
    d->failed = 1;
    return;
  }
  d->written++;
}

// The live VTK export after a piece failed: said, closed (its .pvd files
// list the frames written), and the run goes on without it. Returns 1.
static int vtk_stop(TsrVtkWriter **vtk, long step) {
  tsr_cli_error("--vtk: %s (at step %ld); the run goes on without its VTK export", tsr_vtk_writer_error(*vtk), step);
  tsr_vtk_writer_close(vtk);
  *vtk = NULL;
  return 1;
}

int tsr_cmd_run(int argc, char **argv) {
  TsrRunOptions o;
  int rc = tsr_parse_run_options(argc, argv, run_usage, 1, &o);
  if (rc >= 0) return rc;
  if (!o.output) {
    tsr_cli_error("run: no output file (use -o RUN.h5)");
    fputs(run_usage, stderr);
    tsr_run_options_free(&o);
    return 2;
  }

  // From the start: a signal during the setup (a large model's loading, an
  // earlier export's pieces removed) killed the process with no word, and
  // left the staging file.
  tsr_cli_catch_stop_signals();
  TsrModel model;
  if (tsr_load_model_for_cli(&o, &model)) {
    tsr_run_options_free(&o);
    return 2;
  }
  // -o naming the model replaced it with the run file (and a failed run
  // then removed it), -o /dev/null the device with a regular file.
  if (tsr_cli_output_file("-o", o.output, o.model, &o.output_resolved)) {
    tsr_model_free(&model);
    tsr_run_options_free(&o);
    return 2;
  }
  if (o.output_resolved) o.output = o.output_resolved;
  struct stat sb;
  if (!o.overwrite && stat(o.output, &sb) == 0) {
    tsr_cli_error("%s exists (use --overwrite to replace it)", o.output);
    tsr_model_free(&model);
    tsr_run_options_free(&o);
    return 2;
  }
  if (tsr_cli_prepare_model(&model, 1)) {
    tsr_model_free(&model);
    tsr_run_options_free(&o);
    return 2;
  }
  tsr_cli_warn_output(&model);

  TsrWorld world;
  char err[512] = "";
  if (tsr_world_create(&world, &model, err, sizeof err)) {
    tsr_cli_error("%s", err);
    tsr_world_free(&world);
    tsr_model_free(&model);
    tsr_run_options_free(&o);
    return 2;
  }
  char partitioning[64];  // "mindp", "mindp+kl", "none"
  char **overrides = NULL;
  int n_overrides = tsr_run_options_overrides(&o, &overrides);
  if (n_overrides < 0) {
    tsr_cli_error("out of memory");
    tsr_world_free(&world);
    tsr_model_free(&model);
    tsr_run_options_free(&o);
    return 2;
  }
  TsrRunInfo info = {
      .solver = tsr_solver_type_name(model.settings.solver.type),
      .partitioning = tsr_cli_partition_label(&model.settings, partitioning, sizeof partitioning),
      .threads = omp_get_max_threads(),
      .max_coupling_iterations = tsr_world_kmax(&model, model.settings.solver.type),
      .tessera_version = TSR_VERSION,
      .n_overrides = n_overrides,
      .overrides = (const char *const *)overrides,
  };
  // The run file is staged under a temporary name and given its own only
  // once the VTK folder is known to be good: a bad --vtk leaves an earlier
  // run file of that name as it was (with --overwrite it was replaced, and
  // then removed, before anything was simulated).
  // A stop requested during the setup (checked before each part that
  // changes a file) replaces nothing: exit 130.
  TsrRunWriter *writer = NULL;
  TsrVtkWriter *vtk = NULL;
  int bad = tsr_interrupt_requested() ? 130 : 0;
  if (!bad && !(writer = tsr_run_writer_stage(o.output, o.overwrite, &model, &info, err, sizeof err))) {
    tsr_cli_error("%s", err);
    bad = 1;
  }
  tsr_strings_free(overrides, n_overrides);
  if (!bad && tsr_interrupt_requested()) bad = 130;
  if (!bad && o.vtk_dir && !(vtk = tsr_vtk_writer_open(o.vtk_dir, &model, err, sizeof err))) {
    tsr_cli_error("--vtk: %s", err);
    bad = 1;
  }
  if (!bad && o.dump_dir && (!*o.dump_dir || tsr_io_make_dir(o.dump_dir, err, sizeof err))) {
    tsr_cli_error("--dump-mlcp: %s", *o.dump_dir ? err : "'' is empty, not a folder name");
    bad = 1;
  }
  if (!bad && tsr_interrupt_requested()) bad = 130;
  // With --overwrite, the publish replaces an earlier file of the name: an
  // interruption from here on leaves this run's frames there, not that
  // file, and says so.
  int replacing = !bad && o.overwrite && stat(o.output, &sb) == 0;
  if (!bad && tsr_run_writer_publish(writer, err, sizeof err)) {
    tsr_cli_error("%s", err);
    bad = 1;
  }
  if (bad == 130) tsr_cli_error("interrupted before the first step; %s is left as it was", o.output);
  if (bad) {
    if (vtk) tsr_vtk_writer_close(&vtk);
    if (writer) tsr_run_writer_close(&writer, 0);  // (an unpublished file is removed)
    tsr_world_free(&world);
    tsr_model_free(&model);
    tsr_run_options_free(&o);
    return bad == 130 ? 130 : 2;
  }

  MlcpDump dump = {.dir = o.dump_dir, .from = o.dump_from, .to = o.dump_to};
  if (o.dump_dir) {
    tsr_io_safe_name(model.name, dump.model, sizeof dump.model);
    world.solve_hook = dump_hook;
    world.solve_hook_ctx = &dump;
  }
  long steps = model.settings.steps;
  int every = model.settings.output.every;
  TsrFrame frame;
  tsr_world_frame(&world, 1, &frame);
  int status = tsr_run_writer_frame(writer, &frame) ? 1 : 0;
  if (status) tsr_cli_error("cannot write the initial frame: %s", tsr_run_writer_error(writer));
  // A VTK piece that cannot be written (the folder removed or made
  // read-only during the run, no space) ends the export, said once, not the
  // simulation: the run file, the result, goes on to its end (it stopped at
  // that frame, complete = 0) and the command exits 1.
  int vtk_failed = 0;
  if (!status && vtk && tsr_vtk_writer_frame(vtk, &frame)) vtk_failed = vtk_stop(&vtk, 0);
  // On a terminal: one line rewritten 4 times a second. Otherwise (a batch
  // job's log): a whole line every --progress seconds, 60 by default, so that
  // a long run shows where it is; 0 turns it off. Its clock (the summary's
  // wall time too) starts after the first frame, with the steps.
  TsrCliProgress progress;
  tsr_cli_progress_start(&progress, o.quiet, o.progress);
  long unconverged = 0, written = 0;  // steps whose solver did not meet its stop (/stats/converged = 0), steps written
  double worst_error = 0.0;
  while (!status && world.step < steps && !tsr_interrupt_requested()) {
    int s = tsr_cli_step(&progress, model.name, steps, &world);
    if (tsr_interrupt_requested()) break;  // its solve was cut short: the step is not written
    tsr_cli_world_notice(&model, &world);
    if (s == 1) {
      // A step that failed before its impulses were solved (out of memory,
      // the memory limit, the solver's error) is not written, as an
      // interrupted one: its rows have no impulses and its bodies did not
      // move. The file keeps every step before it, complete = 0.
      if (world.error[0])
        tsr_cli_error("step %ld: %s", world.step, world.error);
      else
        tsr_cli_error("step %ld: the %s solver failed (status %d)", world.step, info.solver, world.solve_status);
      status = 1;
      break;
    }
    if (tsr_run_writer_step(writer, &world.stats)) {
      tsr_cli_error("cannot write step statistics: %s", tsr_run_writer_error(writer));
      status = 1;
      break;
    }
    written++;
    if (!world.stats.converged) {
      unconverged++;
      if (!(world.stats.mlcp_error <= worst_error)) worst_error = world.stats.mlcp_error;
    }
    if (s == 2) {
      tsr_cli_error("step %ld (t = %.6g s): body '%s' has a non-finite state; the simulation diverged", world.step,
                    world.time, model.bodies[world.bad_body].name);
      status = 1;
    } else if (s == 3) {
      tsr_cli_error("step %ld (t = %.6g s): %s; the simulation diverged", world.step, world.time, world.error);
      status = 1;
    }
    // The state of a diverged step is still written: it is what diverged.
    if (world.step % every == 0 || status) {
      tsr_world_frame(&world, 0, &frame);
      if (tsr_run_writer_frame(writer, &frame)) {
        tsr_cli_error("cannot write frame at step %ld: %s", world.step, tsr_run_writer_error(writer));
        status = 1;
      } else if (vtk && tsr_vtk_writer_frame(vtk, &frame)) {
        vtk_failed = vtk_stop(&vtk, world.step);
      }
    }
    if (!status && tsr_cli_progress_due(&progress, world.step, steps)) {  // (no formatting every step)
      char detail[64];
      snprintf(detail, sizeof detail, "solve %.2f ms  err %.1e", 1e3 * world.stats.solve_seconds,
               world.stats.mlcp_error);
      tsr_cli_progress(&progress, model.name, world.step, steps, world.time, detail);
    }
  }
  tsr_cli_progress_end(&progress, 1);
  // (a .pvd that could not be written fails the command, exit 1, but not the
  // run file, which is whole)
  if (vtk && tsr_vtk_writer_close(&vtk)) {
    tsr_cli_error("--vtk: cannot finish the .pvd files in %s", o.vtk_dir);
    vtk_failed = 1;
  }
  int interrupted = tsr_interrupt_requested();
  int complete = !status && !interrupted;
  // Another run given the same -o with --overwrite, or anything else, may
  // have replaced the file under its name: this run's file then reaches no
  // one, and saying "-> FILE" and exiting 0 lost it without a word. That
  // fails the run (exit 1), unless it was interrupted: the interrupt decides
  // the status (130), as it does for a run whose file is there, so that a
  // script stopped by Ctrl-C stops (it exited 1 and the script went on).
  int replaced = tsr_run_writer_replaced(writer);
  int closed = tsr_run_writer_close(&writer, complete);
  if (replaced) {
    tsr_cli_error("%s was replaced or removed by something else while this run wrote it: this run's output is lost",
                  o.output);
    if (!status && !interrupted) status = 1;
    complete = 0;
  }
  if (closed == -2) {
    tsr_cli_error(
        "%s: the run file holds the whole run (complete = 1) but could not be closed cleanly%s%s; "
        "`h5clear -s %s` lets other HDF5 readers open it",
        o.output, errno ? ": " : "", errno ? strerror(errno) : "", o.output);
    status = 1;
  } else if (closed && complete) {
    tsr_cli_error("%s: cannot finish the run file%s%s", o.output, errno ? ": " : "", errno ? strerror(errno) : "");
    status = 1;
    complete = 0;
  }
  if (interrupted && !status) {
    const char *earlier = replacing ? " (it replaced the earlier file of that name when the run started)" : "";
    if (replaced)  // (said above: nothing of this run is kept)
      tsr_cli_error("interrupted at step %ld", world.step);
    else if (world.step > written)  // in the middle of a step, which is not written
      tsr_cli_error(
          "interrupted at step %ld, which is not written; %s holds the steps before it and their frames (complete = "
          "0)%s",
          world.step, o.output, earlier);
    else
      tsr_cli_error("interrupted after step %ld; %s holds the steps so far and their frames (complete = 0)%s",
                    world.step, o.output, earlier);
    status = 130;
  }
  if ((vtk_failed || dump.failed) && !status) status = 1;
  if (o.dump_dir && !dump.failed && !dump.written)
    fprintf(stderr, "%s: warning: --dump-mlcp wrote nothing: the run took %ld steps, --dump-steps starts at %ld\n",
            model.path, world.step, o.dump_from);
  if (complete && !o.quiet)
    fprintf(stderr, "%s: %ld steps in %.2f s wall -> %s\n", model.name, world.step,
            tsr_now_seconds() - progress.t_start, o.output);
  // Said even with -q: a batch job's log should show steps not solved.
  if (unconverged > 0)
    fprintf(stderr,
            "%s: warning: %ld of %ld steps did not converge (largest MLCP error %.3g); /stats/converged marks "
            "them\n",
            model.path, unconverged, written, worst_error);
  tsr_world_free(&world);
  tsr_model_free(&model);
  tsr_run_options_free(&o);
  return status;
}
