// SPDX-License-Identifier: MIT
// The run file (OUTPUT.md, tessera-run/1): a streaming HDF5 writer and the
// small reader behind `tessera info`.
//
// The writer knows frames and step statistics, never solver internals.
// Everything that grows is chunked and extendible along its first axis; the
// file is written in SWMR mode and flushed at least once a second of wall
// time, so a killed run leaves a file readable up to its last flush, with
// the root attribute `complete` = 0.
#ifndef TSR_RUN_FILE_H
#define TSR_RUN_FILE_H

#include <stdint.h>

#include "model/model.h"

// Value of the root attribute `format`.
#define TSR_RUN_FORMAT "tessera-run/1"

typedef struct {
  const char *solver;        // type string
  const char *partitioning;  // method string
  int threads;
  int max_coupling_iterations;  // k_max, stored as a root attribute (for `info`)
  const char *tessera_version;
  // Addition: shuffle + deflate level (1..9) on every growing dataset; 0 (the
  // default) writes uncompressed. Level 1 costs ~4-5x the write time per
  // frame (measured: 0.2 -> 0.9 ms for 1000 bodies + 3000 rows), hence off.
  int deflate_level;
  // Addition: what the command line changed in the model beyond
  // /model/source (`--set KEY=VALUE`, `--solver S`, ...), as given, in
  // order; written to /model/overrides ([K] strings, K may be 0).
  int n_overrides;
  const char *const *overrides;
} TsrRunInfo;

// One written frame. Arrays are borrowed for the duration of the call.
typedef struct {
  double time;
  int64_t step;
  int n_bodies;
  const double *position;          // [n*3]
  const double *orientation;       // [n*4] wxyz
  const double *velocity;          // [n*6] linear, angular
  const int32_t *body_subsystem;   // [n]
  int n_rows;                      // 0 when output.constraints is off, or frame 0
  const int8_t *row_type;          // [R]
  const int32_t *row_source;       // [R]
  const int32_t *row_body;         // [R*2]
  const double *row_impulse;       // [R]
  const int8_t *row_index_set;     // [R]
  const int32_t *row_subsystem;    // [R]
  int n_contacts;                  // 0 when output.contacts is off, or frame 0
  const int32_t *contact_body;     // [C*2]
  const double *contact_point;     // [C*3]
  const double *contact_normal;    // [C*3]
  const double *contact_depth;     // [C]
  const double *contact_impulse;   // [C*3]
  const double *contact_tangent1;  // [C*3] first friction direction (tangent 2 = normal x tangent 1); NULL: zeros
} TsrFrame;

// Per simulated step (OUTPUT.md "Per simulated step").
typedef struct {
  double step_seconds, collide_seconds, partition_seconds, solve_seconds;
  int32_t coupling_iterations, solver_iterations;
  uint8_t converged;
  double mlcp_error;
  int32_t constraint_rows, contacts, subsystems, interface_rows;
  double joint_error, penetration;
} TsrStepStats;

typedef struct TsrRunWriter TsrRunWriter;

// Creates the file (fails if it exists and overwrite is 0) and writes the
// root attributes (complete = 0) and /model. NULL on failure, message in err.
// The file is written under a temporary name beside path and then renamed
// to it (tsr_run_writer_stage, tsr_run_writer_publish): path is replaced
// whole, never truncated in place (a reader or another run holding the old
// file keeps it), and a failed open leaves path as it was.
TsrRunWriter *tsr_run_writer_open(const char *path, int overwrite, const TsrModel *model, const TsrRunInfo *info,
                                  char *err, int errlen);
// The same without the rename: the caller checks what else the run needs
// (a VTK folder) first, then publishes; a writer closed unpublished removes
// its file and leaves path untouched.
TsrRunWriter *tsr_run_writer_stage(const char *path, int overwrite, const TsrModel *model, const TsrRunInfo *info,
                                   char *err, int errlen);
// Gives the staged file its name (an existing one is replaced only with
// overwrite). 0, or -1 with the message in err (the writer stays staged).
int tsr_run_writer_publish(TsrRunWriter *w, char *err, int errlen);
// 1 when the published file's name no longer names it: another run (or
// anything) removed or replaced it meanwhile, and what this writer writes
// reaches no one.
int tsr_run_writer_replaced(const TsrRunWriter *w);
int tsr_run_writer_frame(TsrRunWriter *w, const TsrFrame *f);
int tsr_run_writer_step(TsrRunWriter *w, const TsrStepStats *s);
// Flushes everything, closes the datasets, sets `complete` (when asked and
// everything before succeeded) and closes. Frees w in every case. 0; -1;
// -2 when only the last close failed, complete = 1 already on disk (the
// file holds the whole run, its superblock still marked open for writing:
// other HDF5 readers need `h5clear -s` first).
// On failure errno holds the system's reason for the first write that
// failed (ENOSPC, EIO, ...), or 0 when there is none.
int tsr_run_writer_close(TsrRunWriter **w, int complete);
// Writes every buffered frame and step and flushes the file now (the writer
// also does this by itself at least once a second). 0 OK, -1 on failure.
int tsr_run_writer_flush(TsrRunWriter *w);
// Frames known to be in the file on disk (as of the last flush).
long tsr_run_writer_flushed_frames(const TsrRunWriter *w);
// Number of flushes so far (progress displays, tests).
long tsr_run_writer_flush_count(const TsrRunWriter *w);
// Why the last call returned -1 ("" when none did).
const char *tsr_run_writer_error(const TsrRunWriter *w);

// Summary of a run file for `tessera info` and tests.
typedef struct {
  char model_name[TSR_MODEL_NAME_MAX + 1];  // (a longer one, from another writer, cut at a character)
  char solver[64];
  char partitioning[64];
  char created_utc[64];
  int complete;
  int threads;
  double step;
  long frames;
  long steps;
  double solve_ms_mean, solve_ms_median, solve_ms_max;
  double step_ms_mean;
  double coupling_mean;
  double pct_at_kmax;  // % of steps with coupling_iterations >= max_coupling_iterations (0 if not substructured; NaN
                       // with no step)
  double mlcp_error_mean, mlcp_error_median, mlcp_error_max;
  double joint_error_max, penetration_max;
  double converged_fraction;
  // Additions (not in the first header).
  char tessera_version[64];
  int max_coupling_iterations;
  int n_bodies;
  long constraint_rows, contacts;  // summed over the frames counted
  // /model/overrides: n_overrides strings, each ended by '\0', one after the
  // other in overrides (tsr_run_summary_override); overrides_cut when the
  // list did not fit (the strings kept are whole).
  char overrides[1024];
  int n_overrides, overrides_cut;
} TsrRunSummary;

// The k-th of s's overrides (k < s->n_overrides).
const char *tsr_run_summary_override(const TsrRunSummary *s, int k);

// Once, before any other call here (main): no HDF5 clean-up at exit. Every
// file is closed explicitly (the writer flushes and closes on every path).
// After a close that failed (a full disk) or a damaged file, HDF5's exit
// handler retried what had already failed and printed "HDF5: infinite loop
// closing library" after our own error message.
void tsr_run_file_library_init(void);

// A run file whose content breaks OUTPUT.md's contract: a dataset whose
// length disagrees with the others in a file marked complete, offsets that
// do not start at 0, decrease or point past the data, a non-finite pose, a
// body index out of range, ... Its readers (the summary, the VTK export)
// return TSR_RUN_FILE_INVALID with err = "RUNFILE: error: DATASET: WHAT", a
// line the CLI prints as it is (the model loader's "FILE:LINE:COL: error:
// ..." for run files).
#define TSR_RUN_FILE_INVALID (-5)

// 0; -1 when the file cannot be read (err: "PATH: why"); -5
// (TSR_RUN_FILE_INVALID) when its datasets break OUTPUT.md's contract in a
// way the summary would repeat as figures (lengths that disagree in a
// complete file, offsets out of order or past the data, /frames/time or
// /frames/step out of order): err is then a whole line, "PATH: error:
// DATASET: WHAT", to print as it is.
int tsr_run_file_summary(const char *path, TsrRunSummary *s, char *err, int errlen);

#endif
