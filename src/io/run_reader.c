// SPDX-License-Identifier: MIT
// Run file reader: the summary behind `tessera info`.
//
// The file may come from a run still in progress or from one that was
// killed, so it is opened with the SWMR read flag (which also skips the
// end-of-file check a killed writer can trip) and every length is taken as
// the minimum over the datasets that share an axis: in a file that was not
// closed, one spill may have reached some datasets and not others.
#include "io/run_file.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hdf5.h>

#include "io/run_file_internal.h"

// Reads a scalar string attribute (variable or fixed length) into buf.
// s into buf[len]; a string cut short ends before a UTF-8 character it
// would split (a model name of 150 x "é" cut mid-character made `info
// --json` invalid JSON).
static void copy_cut(char *buf, size_t len, const char *s) {
  size_t n = strlen(s);
  if (n >= len) {
    n = len - 1;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) n--;  // s[n] continues a character: cut before it
  }
  memcpy(buf, s, n);
  buf[n] = '\0';
}

static int read_attr_str(hid_t obj, const char *name, char *buf, size_t len) {
  buf[0] = '\0';
  if (H5Aexists(obj, name) <= 0) return -1;
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  if (a < 0) return -1;
  int rc = -1;
  hid_t ft = H5Aget_type(a);
  hid_t sp = H5Aget_space(a);
  if (ft >= 0 && sp >= 0 && H5Tget_class(ft) == H5T_STRING && H5Sget_simple_extent_npoints(sp) == 1) {
    if (H5Tis_variable_str(ft) > 0) {
      hid_t mt = tsr_run_file_str_type();
      char *v = NULL;
      if (H5Aread(a, mt, &v) >= 0 && v) {
        copy_cut(buf, len, v);
        rc = 0;
      }
      if (v) H5free_memory(v);
      H5Tclose(mt);
    } else {
      size_t sz = H5Tget_size(ft);
      if (sz > 0 && sz < (1u << 20)) {
        char *v = calloc(sz + 1, 1);
        hid_t mt = H5Tcopy(H5T_C_S1);
        H5Tset_size(mt, sz);
        if (v && H5Aread(a, mt, v) >= 0) {
          copy_cut(buf, len, v);
          rc = 0;
        }
        H5Tclose(mt);
        free(v);
      }
    }
  }
  if (sp >= 0) H5Sclose(sp);
  if (ft >= 0) H5Tclose(ft);
  H5Aclose(a);
  return rc;
}

static int read_attr_num(hid_t obj, const char *name, hid_t mtype, void *v) {
  if (H5Aexists(obj, name) <= 0) return -1;
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
  if (a < 0) return -1;
  int rc = -1;
  hid_t ft = H5Aget_type(a);
  hid_t sp = H5Aget_space(a);
  H5T_class_t cls = ft >= 0 ? H5Tget_class(ft) : H5T_NO_CLASS;
  if ((cls == H5T_INTEGER || cls == H5T_FLOAT) && sp >= 0 && H5Sget_simple_extent_npoints(sp) == 1 &&
      H5Aread(a, mtype, v) >= 0)
    rc = 0;
  if (sp >= 0) H5Sclose(sp);
  if (ft >= 0) H5Tclose(ft);
  H5Aclose(a);
  return rc;
}

// Length of axis 0 of a dataset, -1 when missing.
static long ds_len(hid_t file, const char *path) {
  if (H5Lexists(file, path, H5P_DEFAULT) <= 0) return -1;
  hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
  if (d < 0) return -1;
  long n = -1;
  hid_t sp = H5Dget_space(d);
  int rank = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
  if (rank >= 1 && rank <= 8) {
    hsize_t dims[8];
    H5Sget_simple_extent_dims(sp, dims, NULL);
    n = (long)dims[0];
  }
  if (sp >= 0) H5Sclose(sp);
  H5Dclose(d);
  return n;
}

// Length of the shortest of the datasets `names` along their first axis (a
// killed run may have written one more entry to some than to others); -1
// with a message when one is missing or cannot be read.
static long shortest(hid_t file, const char *const *names, size_t count, const char *path, char *err, int errlen) {
  long len = -1;
  for (size_t i = 0; i < count; i++) {
    long n = ds_len(file, names[i]);
    if (n < 0) {
      if (H5Lexists(file, names[i], H5P_DEFAULT) > 0)
        tsr_run_file_set_err(err, errlen, "%s: cannot read %s (the file is damaged)", path, names[i]);
      else
        tsr_run_file_set_err(err, errlen, "%s: run file lacks %s", path, names[i]);
      return -1;
    }
    if (len < 0 || n < len) len = n;
  }
  return len;
}

// Reads the first `count` entries of a 1-D dataset, converted to mtype.
static void *read_1d(hid_t file, const char *path, hid_t mtype, size_t count) {
  size_t sz = H5Tget_size(mtype);
  void *buf = malloc((count ? count : 1) * sz);
  if (!buf || count == 0) return buf;
  hid_t d = H5Dopen2(file, path, H5P_DEFAULT);
  if (d < 0) {
    free(buf);
    return NULL;
  }
  hid_t fs = H5Dget_space(d);
  hsize_t start[1] = {0}, cnt[1] = {count};
  hid_t ms = H5Screate_simple(1, cnt, NULL);
  int ok = fs >= 0 && H5Sget_simple_extent_ndims(fs) == 1 &&
           H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL) >= 0 &&
           H5Dread(d, mtype, ms, fs, H5P_DEFAULT, buf) >= 0;
  if (fs >= 0) H5Sclose(fs);
  H5Sclose(ms);
  H5Dclose(d);
  if (!ok) {
    free(buf);
    return NULL;
  }
  return buf;
}

int tsr_run_file_invalid(char *err, int errlen, const char *path, const char *dataset, const char *fmt, ...) {
  if (err && errlen > 0) {
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(err, (size_t)errlen, "%s: error: %s: %s", path, dataset, what);
  }
  return TSR_RUN_FILE_INVALID;
}

// In a file marked complete (every frame, row and step of the run written
// and closed), the datasets of one axis have one length; a killed or live
// file may hold one spill in some of them and not in others, and is read to
// the shortest. The length most of `names` have goes to *common; the first
// of them that differs from it is named (TSR_RUN_FILE_INVALID).
static int same_lengths(hid_t f, const char *const *names, size_t count, const char *unit, const char *path, char *err,
                        int errlen, long *common) {
  long len[32];
  int best = 0, best_n = 0;
  for (size_t i = 0; i < count && i < 32; i++) len[i] = ds_len(f, names[i]);
  for (size_t i = 0; i < count && i < 32; i++) {
    int k = 0;
    for (size_t j = 0; j < count && j < 32; j++) k += len[j] == len[i];
    if (k > best_n) best = (int)i, best_n = k;
  }
  *common = len[best];
  for (size_t i = 0; i < count && i < 32; i++)
    if (len[i] != len[best])
      return tsr_run_file_invalid(err, errlen, path, names[i],
                                  "%ld %s, where %s and the other datasets of its axis have %ld (the file is marked "
                                  "complete)",
                                  len[i], unit, names[best], len[best]);
  return 0;
}

// The first T + 1 entries of an offset dataset: 0 first, never decreasing;
// in a complete file, the datasets of its group have one length and the
// last entry is that length; in any file, it is within the shortest of them
// (which reached the disk first in a killed file: rows are written before
// their offsets).
// 0, or TSR_RUN_FILE_INVALID.
static int check_offsets(hid_t f, const int64_t *off, long T, const char *name, const char *const *group, size_t count,
                         const char *what, int complete, const char *path, char *err, int errlen) {
  if (off[0] != 0) return tsr_run_file_invalid(err, errlen, path, name, "starts at %lld, not 0", (long long)off[0]);
  for (long t = 1; t <= T; t++)
    if (off[t] < off[t - 1])
      return tsr_run_file_invalid(err, errlen, path, name,
                                  "entry %ld (%lld) is less than entry %ld (%lld): offsets never decrease", t,
                                  (long long)off[t], t - 1, (long long)off[t - 1]);
  long data = -1, common;
  int bad = complete ? same_lengths(f, group, count, what, path, err, errlen, &common) : 0;
  if (bad) return bad;
  if (complete && off[T] != common)
    return tsr_run_file_invalid(err, errlen, path, name,
                                "entry %ld (%lld) ends the last frame, but %ld %s are stored (the file is marked "
                                "complete)",
                                T, (long long)off[T], common, what);
  for (size_t i = 0; i < count; i++) {
    long n = ds_len(f, group[i]);
    if (data < 0 || n < data) data = n;
  }
  if (off[T] > data)
    return tsr_run_file_invalid(err, errlen, path, name, "entry %ld (%lld) is past the %ld %s stored", T,
                                (long long)off[T], data, what);
  return 0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

// Mean, median and max of v[0..n) (NaN entries ignored); NaN when empty.
static void stats3(const double *v, size_t n, double scale, double *mean, double *median, double *max) {
  *mean = *median = *max = NAN;
  double *tmp = malloc((n ? n : 1) * sizeof *tmp);
  if (!tmp) return;
  size_t k = 0;
  double sum = 0;
  for (size_t i = 0; i < n; i++)
    if (!isnan(v[i])) tmp[k++] = v[i] * scale, sum += v[i] * scale;
  if (k) {
    qsort(tmp, k, sizeof *tmp, cmp_double);
    *mean = sum / (double)k;
    *median = k % 2 ? tmp[k / 2] : 0.5 * (tmp[k / 2 - 1] + tmp[k / 2]);
    *max = tmp[k - 1];
  }
  free(tmp);
}

static const char *const frame_sets[] = {"/frames/time",        "/frames/step",     "/bodies/position",
                                         "/bodies/orientation", "/bodies/velocity", "/bodies/subsystem"};
static const char *const row_sets[] = {"/constraints/type",    "/constraints/source",    "/constraints/body",
                                       "/constraints/impulse", "/constraints/index_set", "/constraints/subsystem"};
static const char *const contact_sets[] = {"/contacts/body", "/contacts/point", "/contacts/normal", "/contacts/depth",
                                           "/contacts/impulse"};
static const char *const stat_sets[] = {
    "/stats/step_seconds",        "/stats/collide_seconds",   "/stats/partition_seconds", "/stats/solve_seconds",
    "/stats/coupling_iterations", "/stats/solver_iterations", "/stats/converged",         "/stats/mlcp_error",
    "/stats/constraint_rows",     "/stats/contacts",          "/stats/subsystems",        "/stats/interface_rows",
    "/stats/joint_error",         "/stats/penetration"};

// The strings of dataset d when it holds variable-length strings (at most
// max of them), read into a new array (free_strings); NULL otherwise, with
// *n = 0.
static char **read_strings(hid_t d, hssize_t max, hssize_t *n) {
  *n = 0;
  hid_t ft = H5Dget_type(d), sp = H5Dget_space(d);
  hssize_t k = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
  char **v = NULL;
  if (ft >= 0 && H5Tget_class(ft) == H5T_STRING && H5Tis_variable_str(ft) > 0 && k > 0 && k < max &&
      (v = calloc((size_t)k, sizeof *v))) {
    hid_t mt = tsr_run_file_str_type();
    if (H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0)
      *n = k;
    else
      free(v), v = NULL;
    H5Tclose(mt);
  }
  if (sp >= 0) H5Sclose(sp);
  if (ft >= 0) H5Tclose(ft);
  return v;
}

static void free_strings(char **v, hssize_t n) {
  for (hssize_t i = 0; i < n; i++) H5free_memory(v[i]);
  free(v);
}

// /model/overrides (variable-length strings; absent in files written before
// it) into s: each string and its '\0', one after the other, while they fit.
static void read_overrides(hid_t f, TsrRunSummary *s) {
  s->n_overrides = s->overrides_cut = 0;
  if (H5Lexists(f, "/model/overrides", H5P_DEFAULT) <= 0) return;
  hid_t d = H5Dopen2(f, "/model/overrides", H5P_DEFAULT);
  if (d < 0) return;
  hssize_t n;
  char **v = read_strings(d, 1 << 20, &n);
  size_t used = 0;
  for (hssize_t i = 0; i < n; i++) {
    const char *o = v && v[i] ? v[i] : "";
    size_t w = strlen(o) + 1;
    if (w > sizeof s->overrides - used) {
      s->overrides_cut = 1;
      break;
    }
    memcpy(s->overrides + used, o, w);
    used += w;
    s->n_overrides++;
  }
  free_strings(v, n);
  H5Dclose(d);
}

const char *tsr_run_summary_override(const TsrRunSummary *s, int k) {
  const char *o = s->overrides;
  for (int i = 0; i < k; i++) o += strlen(o) + 1;
  return o;
}

static int summarise(hid_t f, const char *path, TsrRunSummary *s, char *err, int errlen) {
  char format[64];
  if (read_attr_str(f, "format", format, sizeof format) || strncmp(format, "tessera-run/", 12)) {
    tsr_run_file_set_err(err, errlen, "%s: not a Tessera run file (no root attribute format = \"%s\")", path,
                         TSR_RUN_FORMAT);
    return -1;
  }
  if (strcmp(format, TSR_RUN_FORMAT)) {
    tsr_run_file_set_err(err, errlen, "%s: unsupported run file format '%s' (this tessera reads %s)", path, format,
                         TSR_RUN_FORMAT);
    return -1;
  }
  read_attr_str(f, "model_name", s->model_name, sizeof s->model_name);
  read_attr_str(f, "solver", s->solver, sizeof s->solver);
  read_attr_str(f, "partitioning", s->partitioning, sizeof s->partitioning);
  read_attr_str(f, "created_utc", s->created_utc, sizeof s->created_utc);
  read_attr_str(f, "tessera_version", s->tessera_version, sizeof s->tessera_version);
  read_attr_num(f, "complete", H5T_NATIVE_INT, &s->complete);
  read_attr_num(f, "threads", H5T_NATIVE_INT, &s->threads);
  read_attr_num(f, "max_coupling_iterations", H5T_NATIVE_INT, &s->max_coupling_iterations);
  read_attr_num(f, "step", H5T_NATIVE_DOUBLE, &s->step);
  // (A damaged /model/body_names once read as "bodies: 0", exit 0, where
  // export-vtk refused the file.)
  long nb = ds_len(f, "/model/body_names");
  if (nb < 0) return tsr_run_file_invalid(err, errlen, path, "/model/body_names", "missing, or cannot be read");
  s->n_bodies = (int)nb;
  read_overrides(f, s);

  // Frames: the shortest per-frame dataset, and offsets need T+1 entries.
  // A file marked complete has every dataset of an axis at one length; a
  // killed or live one is read to the shortest (see the file comment).
  int complete = s->complete == 1, bad = 0;
  long T = shortest(f, frame_sets, sizeof frame_sets / sizeof frame_sets[0], path, err, errlen);
  if (T < 0) return -1;
  long coff_n = ds_len(f, "/constraints/offset"), koff_n = ds_len(f, "/contacts/offset");
  if (coff_n < 1 || koff_n < 1) {
    tsr_run_file_set_err(err, errlen, "%s: run file lacks /constraints/offset or /contacts/offset", path);
    return -1;
  }
  if (complete) {
    long T0;
    if ((bad = same_lengths(f, frame_sets, sizeof frame_sets / sizeof frame_sets[0], "frames", path, err, errlen, &T0)))
      return bad;
    if (coff_n != T0 + 1 || koff_n != T0 + 1)
      return tsr_run_file_invalid(err, errlen, path, coff_n != T0 + 1 ? "/constraints/offset" : "/contacts/offset",
                                  "%ld entries, but the frame datasets have %ld frames: expected %ld (the file is "
                                  "marked complete)",
                                  coff_n != T0 + 1 ? coff_n : koff_n, T0, T0 + 1);
  }
  if (coff_n - 1 < T) T = coff_n - 1;
  if (koff_n - 1 < T) T = koff_n - 1;
  s->frames = T;
  if (shortest(f, row_sets, sizeof row_sets / sizeof row_sets[0], path, err, errlen) < 0 ||
      shortest(f, contact_sets, sizeof contact_sets / sizeof contact_sets[0], path, err, errlen) < 0)
    return -1;
  int64_t *coff = read_1d(f, "/constraints/offset", H5T_NATIVE_INT64, (size_t)T + 1);
  int64_t *koff = read_1d(f, "/contacts/offset", H5T_NATIVE_INT64, (size_t)T + 1);
  double *time = read_1d(f, "/frames/time", H5T_NATIVE_DOUBLE, (size_t)T);
  int64_t *step = read_1d(f, "/frames/step", H5T_NATIVE_INT64, (size_t)T);
  if (!coff || !koff || !time || !step) {
    tsr_run_file_set_err(err, errlen, "%s: cannot read /frames or the offsets (the file is damaged)", path);
    bad = -1;
  }
  // A file that did not finish can end in frames that were never written:
  // the datasets were extended, and their data lost (a write refused under
  // `ulimit -f`, the file's end cut off), so they read as the fill value,
  // time 0 at step 0, which no frame after the first is. The frames before
  // the first of them are the file's (they were refused as "time 0 is
  // before frame 42's 0.7").
  for (long t = 1; !bad && !complete && t < T; t++)
    if (time[t] == 0.0 && step[t] == 0) {
      T = t;
      s->frames = T;
    }
  if (!bad)
    bad = check_offsets(f, coff, T, "/constraints/offset", row_sets, sizeof row_sets / sizeof row_sets[0], "rows",
                        complete, path, err, errlen);
  if (!bad)
    bad = check_offsets(f, koff, T, "/contacts/offset", contact_sets, sizeof contact_sets / sizeof contact_sets[0],
                        "contacts", complete, path, err, errlen);
  // Frame k is the state after a later step than frame k - 1, at a later
  // (or, for a step of 0 s, the same) time.
  for (long t = 0; !bad && t < T; t++) {
    if (!isfinite(time[t]))
      bad = tsr_run_file_invalid(err, errlen, path, "/frames/time", "frame %ld: time %g is not finite", t, time[t]);
    else if (t > 0 && time[t] < time[t - 1])
      bad = tsr_run_file_invalid(err, errlen, path, "/frames/time", "frame %ld: time %.17g is before frame %ld's %.17g",
                                 t, time[t], t - 1, time[t - 1]);
    else if (step[t] < 0)
      bad = tsr_run_file_invalid(err, errlen, path, "/frames/step", "frame %ld: step %lld is negative", t,
                                 (long long)step[t]);
    else if (t > 0 && step[t] <= step[t - 1])
      bad = tsr_run_file_invalid(err, errlen, path, "/frames/step",
                                 "frame %ld: step %lld does not follow frame %ld's %lld", t, (long long)step[t], t - 1,
                                 (long long)step[t - 1]);
  }
  if (!bad) {
    s->constraint_rows = (long)coff[T];
    s->contacts = (long)koff[T];
  }
  long last_step = !bad && T > 0 ? (long)step[T - 1] : 0;
  free(coff), free(koff), free(time), free(step);
  if (bad) return bad;

  long S = shortest(f, stat_sets, sizeof stat_sets / sizeof stat_sets[0], path, err, errlen), S0;
  if (S < 0) return -1;
  if (complete &&
      (bad = same_lengths(f, stat_sets, sizeof stat_sets / sizeof stat_sets[0], "steps", path, err, errlen, &S0)))
    return bad;
  if (complete && last_step > S)
    return tsr_run_file_invalid(err, errlen, path, "/frames/step",
                                "the last frame is step %ld, but /stats holds %ld steps (the file is marked complete)",
                                last_step, S);
  s->steps = S;
  size_t n = (size_t)S;
  double *solve = read_1d(f, "/stats/solve_seconds", H5T_NATIVE_DOUBLE, n);
  double *stepw = read_1d(f, "/stats/step_seconds", H5T_NATIVE_DOUBLE, n);
  double *mlcp = read_1d(f, "/stats/mlcp_error", H5T_NATIVE_DOUBLE, n);
  double *jerr = read_1d(f, "/stats/joint_error", H5T_NATIVE_DOUBLE, n);
  double *pen = read_1d(f, "/stats/penetration", H5T_NATIVE_DOUBLE, n);
  int *k = read_1d(f, "/stats/coupling_iterations", H5T_NATIVE_INT, n);
  unsigned char *conv = read_1d(f, "/stats/converged", H5T_NATIVE_UCHAR, n);
  int rc = 0;
  if (!solve || !stepw || !mlcp || !jerr || !pen || !k || !conv) {
    tsr_run_file_set_err(err, errlen, "%s: cannot read /stats (damaged file?)", path);
    rc = -1;
    goto done;
  }
  double dummy;
  stats3(solve, n, 1e3, &s->solve_ms_mean, &s->solve_ms_median, &s->solve_ms_max);
  stats3(stepw, n, 1e3, &s->step_ms_mean, &dummy, &dummy);
  stats3(mlcp, n, 1.0, &s->mlcp_error_mean, &s->mlcp_error_median, &s->mlcp_error_max);
  double tmp;
  stats3(jerr, n, 1.0, &tmp, &dummy, &s->joint_error_max);
  stats3(pen, n, 1.0, &tmp, &dummy, &s->penetration_max);
  long ksum = 0, kmax_hits = 0, kmax_seen = 0, nconv = 0;
  for (size_t i = 0; i < n; i++) {
    ksum += k[i];
    if (k[i] > kmax_seen) kmax_seen = k[i];
    if (s->max_coupling_iterations > 0 && k[i] >= s->max_coupling_iterations) kmax_hits++;
    nconv += conv[i] != 0;
  }
  s->coupling_mean = n ? (double)ksum / (double)n : NAN;
  // A solver that does not substructure reports k = 0 throughout: 0%, not 100%.
  // No step: no figure (NaN, null in info --json), as the other statistics.
  s->pct_at_kmax = !n ? NAN : kmax_seen > 0 ? 100.0 * (double)kmax_hits / (double)n : 0.0;
  s->converged_fraction = n ? (double)nconv / (double)n : NAN;
done:
  free(solve), free(stepw), free(mlcp), free(jerr), free(pen), free(k), free(conv);
  return rc;
}

void tsr_run_file_library_init(void) { H5dont_atexit(); }

// A SWMR reader retries a metadata block whose checksum fails (it may be
// read while the writer rewrites it), sleeping 1, 2, 4, ... ns between tries:
// HDF5's default of 100 tries makes a damaged file hang for ages (fuzzed
// files: `tessera info` still asleep after 100 s). 24 tries wait 17 ms in
// all, far longer than a flush takes to write one block.
#define READ_ATTEMPTS 24

hid_t tsr_run_file_open_read(const char *path) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl >= 0) H5Pset_metadata_read_attempts(fapl, READ_ATTEMPTS);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, fapl >= 0 ? fapl : H5P_DEFAULT);
  if (f < 0) f = H5Fopen(path, H5F_ACC_RDONLY, fapl >= 0 ? fapl : H5P_DEFAULT);
  if (fapl >= 0) H5Pclose(fapl);
  return f;
}

// Damaged global heaps. Variable-length strings (the root attributes, the
// name datasets, /model/source) live in the file's global heap, and HDF5
// 1.10.8 trusts the object sizes written there: a damaged size makes
// H5HG_read copy past its buffer and crash (2 of ~500 fuzzed run files; a
// first object's size set to 1 MiB crashes every time, tests/io/test_info.py).
// No HDF5 call reports it. So a child process first reads every such string
// and the summary; a child that dies (a signal, or a sanitizer's exit code)
// means the file is damaged, and the caller gets an error instead of a crash.
static herr_t probe_attr(hid_t obj, const char *name, const H5A_info_t *ainfo, void *op) {
  (void)ainfo, (void)op;
  char v[8];
  read_attr_str(obj, name, v, sizeof v);  // a string attribute read; any other refused there
  return 0;
}

static herr_t probe_object(hid_t root, const char *name, const H5O_info_t *info, void *op) {
  (void)op;
  hid_t o = H5Oopen(root, name, H5P_DEFAULT);
  if (o < 0) return 0;
  H5Aiterate2(o, H5_INDEX_NAME, H5_ITER_NATIVE, NULL, probe_attr, NULL);
  if (info->type == H5O_TYPE_DATASET) {
    hssize_t n;
    char **v = read_strings(o, 1 << 26, &n);
    free_strings(v, n);
  }
  H5Oclose(o);
  return 0;
}

// The probe's time limit, s. Some damage makes HDF5 loop for ever (a run
// file with 512 bytes zeroed inside a global heap: the probe spun in
// H5HG_read, and `tessera info` never returned; found by fuzzing). A sound
// file's probe reads names and the summary: milliseconds.
#define PROBE_SECONDS 10

static int probe_in_child(const char *path, char *err, int errlen) {
  fflush(NULL);  // the child must not write the parent's buffered output again
  pid_t pid = fork();
  if (pid < 0) return 0;  // no child: read without the guard
  if (pid == 0) {
    signal(SIGALRM, SIG_DFL);
    alarm(PROBE_SECONDS);
    H5E_BEGIN_TRY {
      hid_t f = tsr_run_file_open_read(path);
      if (f >= 0) {
        H5Ovisit(f, H5_INDEX_NAME, H5_ITER_NATIVE, probe_object, NULL);
        TsrRunSummary s;
        char e[256];
        memset(&s, 0, sizeof s);
        summarise(f, path, &s, e, sizeof e);
        H5Fclose(f);
      }
    }
    H5E_END_TRY;
    _exit(0);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 0;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
    tsr_run_file_set_err(err, errlen, "%s: damaged HDF5 file: the HDF5 library was still reading it after %d s", path,
                         PROBE_SECONDS);
  else if (WIFSIGNALED(status))
    tsr_run_file_set_err(err, errlen, "%s: damaged HDF5 file: the HDF5 library crashed reading it (%s)", path,
                         strsignal(WTERMSIG(status)));
  else
    tsr_run_file_set_err(err, errlen, "%s: damaged HDF5 file: reading it failed in the HDF5 library (exit %d)", path,
                         WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return -1;
}

int tsr_run_file_summary(const char *path, TsrRunSummary *s, char *err, int errlen) {
  if (err && errlen > 0) err[0] = '\0';
  memset(s, 0, sizeof *s);
  struct stat st;
  if (stat(path, &st) != 0) {
    tsr_run_file_set_err(err, errlen, "%s: %s", path, strerror(errno));
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    tsr_run_file_set_err(err, errlen, "%s: not a regular file", path);
    return -1;
  }
  if (probe_in_child(path, err, errlen)) return -1;
  int rc = -1;
  H5E_BEGIN_TRY {
    hid_t f = tsr_run_file_open_read(path);
    if (f < 0) {
      htri_t is = H5Fis_hdf5(path);
      if (is > 0)
        tsr_run_file_set_err(err, errlen,
                             "%s: cannot open the HDF5 file (damaged, or locked by a writer not in SWMR mode)", path);
      else
        tsr_run_file_set_err(err, errlen, "%s: not an HDF5 file", path);
    } else {
      rc = summarise(f, path, s, err, errlen);
      H5Fclose(f);
    }
  }
  H5E_END_TRY;
  return rc;
}
