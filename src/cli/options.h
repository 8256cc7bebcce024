// SPDX-License-Identifier: MIT
// Options shared by the commands that load and run a model (run, check, compare).
#ifndef TSR_OPTIONS_H
#define TSR_OPTIONS_H

#include "model/model.h"

// Names accepted by --partition and --refine, for messages and help texts.
#define TSR_PARTITION_METHOD_LIST "semantic, mindp, maxdp, bfs, mass-ratio, mix, metis, none"
#define TSR_PARTITION_REFINE_LIST "none, kl, fm"

typedef struct {
  const char *model;        // positional MODEL.yaml
  const char *output;       // -o
  const char *vtk_dir;      // --vtk DIR (run only)
  const char *dump_dir;     // --dump-mlcp DIR (run only)
  long dump_from, dump_to;  // --dump-steps A[-B], steps counted from 1; -1 when not given
  int overwrite, quiet;
  const char *solver, *partition, *refine;  // --solver, --partition, --refine
  long max_bodies, threads, steps, every;   // -1 when not given
  double duration;                          // NaN when not given
  const char *duration_arg;                 // --duration as given (for the run file's overrides)
  double progress;  // --progress S (run, compare): seconds between log lines; NaN when not given
  int n_sets;
  const char **sets;      // --set KEY=VALUE, in order
  char *output_resolved;  // owned: the file a symbolic-link -o names (output then points here)
} TsrRunOptions;

// Parses argv (argv[0] is the command name, which prefixes the messages). Returns -1 to go on, or an exit
// status (0 after --help, 2 on bad usage, with the message printed).
// `with_output` accepts -o/--overwrite.
int tsr_parse_run_options(int argc, char **argv, const char *usage, int with_output, TsrRunOptions *o);
void tsr_run_options_free(TsrRunOptions *o);

// What the command line changes in the model beyond its file, as given and
// in order ("--set KEY=VALUE", then "--solver S", "--partition M",
// "--refine R", "--max-bodies N", "--threads N", "--steps N", "--every N",
// "--duration T" where given): the run file keeps them (/model/overrides).
// Returns their number with the strings in *out (tsr_strings_free), or -1
// when out of memory.
int tsr_run_options_overrides(const TsrRunOptions *o, char ***out);
void tsr_strings_free(char **v, int n);

// Loads o->model with the --set overrides, then applies the dedicated flags
// (--solver, --steps, ...). Prints every problem; returns 0 or -1.
int tsr_load_model_for_cli(const TsrRunOptions *o, TsrModel *m);

// Warns on stderr (FILE:LINE:COL: warning: ..., at the later body's
// definition) about shapes that start inside one another
// (tsr_contact_overlaps); prints nothing when none do. Returns the number of
// overlapping pairs (0 when they cannot be collided: run reports that itself),
// or -1 after an error when so many shapes share one place that no contact
// detection can take them (the caller exits 2).
int tsr_cli_warn_overlaps(const TsrModel *m);

// Warns on stderr when the step count is not a multiple of output.every: the
// last steps would be simulated and never written.
void tsr_cli_warn_output(const TsrModel *m);

// Warns on stderr (FILE:LINE:COL: warning: ..., at the later joint) about
// joints between the same two bodies whose rows without compliance add up
// to more than 6: rows that are certainly redundant (a fixed joint and a
// ball joint, both with compliance 0). Returns how many joints it named.
int tsr_cli_warn_redundant(const TsrModel *m);

// A note on stderr (tessera check), per moving body, when its shapes'
// volume centroid is off the body origin (the centre of mass the dynamics
// use) by more than 1% of its size.
void tsr_cli_warn_centroids(const TsrModel *m);

// Warns (FILE:LINE:COL: warning: ...) about each moving body whose inertia is
// more than a million times smaller or larger than its solid shapes' of its
// mass (a unit slip). Returns how many it named.
int tsr_cli_warn_inertia(const TsrModel *m);

// Warns (FILE:LINE:COL: warning: ...) about each hinge or prismatic joint
// whose limits leave out its coordinate at the start (0: limits are
// relative to the initial configuration). Returns how many it named.
int tsr_cli_warn_limits(const TsrModel *m);

// After a step of w (a world of model m): its one-time warning, if the step
// wrote one (world.c check_coupling), on stderr as "PATH: warning: step N:
// ...". And what a failed step (tsr_world_step's status) calls its cause:
// the world's own reason where it gave one, else "solver error" or
// "non-finite state".
struct TsrWorld;
void tsr_cli_world_notice(const TsrModel *m, struct TsrWorld *w);
const char *tsr_cli_step_failure(const struct TsrWorld *w, int status);

// Progress of a loop over steps on stderr: on a terminal one line rewritten
// in place (at most 4 times a second); in a batch job's log (stderr not a
// terminal) a whole line every log_every seconds (NaN: 60; 0: none), so that
// the log holds no carriage returns. A line names `what`, the step, its
// share of `steps`, the simulated time t (NaN: not shown) and the time left
// at the pace so far; detail (NULL: none) is added on a terminal.
typedef struct {
  int quiet, tty, shown;
  double log_every, t_start, t_last;
  const char *unit;           // what is counted: "step" (tsr_cli_progress_start's), or set after it
  struct TsrCliWatch *watch;  // tsr_cli_step's watcher (NULL: none yet, quiet, or no thread)
  int watch_tried;
} TsrCliProgress;
void tsr_cli_progress_start(TsrCliProgress *p, int quiet, double log_every);
void tsr_cli_progress(TsrCliProgress *p, const char *what, long step, long steps, double t, const char *detail);
// Whether tsr_cli_progress would print now (to build its detail only then).
int tsr_cli_progress_due(const TsrCliProgress *p, long step, long steps);
// Ends the terminal's line: kept (keep = 1) or wiped; stops the watcher.
void tsr_cli_progress_end(TsrCliProgress *p, int keep);
// tsr_world_step(w), watched: while a step runs for longer than the
// progress's pace (a terminal's: 2 s; a log's: --progress), a line says
// which step of `steps` is still being solved and for how long, so that a
// step of minutes (bodies placed in one spot) is not a silent stall.
int tsr_cli_step(TsrCliProgress *p, const char *what, long steps, struct TsrWorld *w);

// An integer in min..max for option opt of command cmd: 0 and *out set, or -1
// after an error message ("expects an integer >= min", or "at most max" for a
// larger one, overflow included).
int tsr_cli_parse_long(const char *cmd, const char *opt, const char *s, long min, long max, long *out);

// A non-negative, finite number of seconds for option opt of command cmd:
// 0 and *out set, or -1 after an error message.
int tsr_cli_parse_seconds(const char *cmd, const char *opt, const char *s, double *out);

// OpenMP thread count (0 = every core) and single-threaded BLAS.
void tsr_cli_apply_threads(int threads);

// What run, compare and replay do with a loaded model before its world is
// made: apply its thread count and, with warn, give its warnings (shapes that
// start inside one another, redundant rigid joints). Returns -1 after an
// error when the model cannot be simulated (tsr_cli_warn_overlaps: the
// caller exits 2), else 0.
int tsr_cli_prepare_model(const TsrModel *m, int warn);

#endif
