// SPDX-License-Identifier: MIT
// Run file writer (OUTPUT.md, tessera-run/1).
//
// Why it is shaped like this:
// - Every growing dataset is chunked and unlimited along axis 0, and the file
//   is switched to SWMR write mode once all objects exist. SWMR orders the
//   metadata cache flushes so the file on disk is always a consistent HDF5
//   file; a kill -9 therefore leaves a file readable up to the last flush.
//   That needs the latest file format (superblock v3), hence the libver
//   bounds; SWMR forbids creating objects or attributes later, hence
//   `complete` is created at open (= 0) and only rewritten at close.
// - HDF5 calls cost microseconds each and there are ~40 streams, so frames
//   and steps are first copied into per-dataset buffers. The buffers are
//   "spilled" into the datasets (H5Dset_extent + one hyperslab write each)
//   when they hold TSR_RUN_SPILL_BYTES, and the file is flushed (H5Fflush,
//   which makes the data visible to readers and durable against a kill) at
//   least once per second of wall time and at close. Buffers are reused and
//   never shrink, so memory is bounded by the spill size plus one frame.
// - Within a spill, row and contact data go first, then offsets, then body
//   data, then /frames/step and /frames/time: a reader that trusts the
//   shortest per-frame dataset never indexes rows that are not there.
#include "io/run_file.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>

#include "io/run_file_internal.h"
#include "util/clock.h"

#ifndef TSR_VERSION
#define TSR_VERSION "unknown"
#endif

// Bytes buffered across all streams before they are written into HDF5:
// the memory bound of the buffers (plus one frame). 1, 4 and 16 MiB cost
// the same per frame (0.19 ms for 1000 bodies + 3000 rows); 64 MiB is ~25%
// slower, the copies no longer fitting in cache.
#ifndef TSR_RUN_SPILL_BYTES
#define TSR_RUN_SPILL_BYTES (4u << 20)
#endif
// Wall time between H5Fflush calls (OUTPUT.md: at least once a second).
#define TSR_RUN_FLUSH_SECONDS 1.0
// Target bytes of one chunk of a per-frame dataset.
#define TSR_RUN_FRAME_CHUNK_BYTES (256u << 10)

typedef enum { K_F64, K_I64, K_I32, K_I8, K_U8 } TsrKind;

static const size_t kind_size[] = {8, 8, 4, 1, 1};

hid_t tsr_run_file_type(int kind) {
  switch ((TsrKind)kind) {
    case K_F64:
      return H5T_IEEE_F64LE;
    case K_I64:
      return H5T_STD_I64LE;
    case K_I32:
      return H5T_STD_I32LE;
    case K_I8:
      return H5T_STD_I8LE;
    case K_U8:
      return H5T_STD_U8LE;
  }
  return H5T_STD_U8LE;
}

static hid_t mem_type(TsrKind k) {
  switch (k) {
    case K_F64:
      return H5T_NATIVE_DOUBLE;
    case K_I64:
      return H5T_NATIVE_INT64;
    case K_I32:
      return H5T_NATIVE_INT32;
    case K_I8:
      return H5T_NATIVE_INT8;
    case K_U8:
      return H5T_NATIVE_UINT8;
  }
  return H5T_NATIVE_UINT8;
}

// Which count a stream's axis 0 follows (chunk sizing only).
typedef enum { AX_ROW, AX_CONTACT, AX_OFFSET, AX_FRAME, AX_STEP } TsrAxis;

#define DIM_N (-1)  // the body count n

typedef struct {
  const char *path;
  TsrKind kind;
  TsrAxis axis;
  int rank;
  int d1, d2;          // sizes of axes 1 and 2 (DIM_N for n)
  size_t stat_offset;  // AX_STEP: offsetof the field in TsrStepStats
} TsrStreamSpec;

// Order = spill order (see the file comment). Indices are the S_ enum below.
enum {
  S_CTYPE,
  S_CSRC,
  S_CBODY,
  S_CIMP,
  S_CIDX,
  S_CSUB,
  S_KBODY,
  S_KPOINT,
  S_KNORMAL,
  S_KDEPTH,
  S_KIMP,
  S_KTAN,
  S_COFF,
  S_KOFF,
  S_POS,
  S_ORI,
  S_VEL,
  S_BSUB,
  S_STEP,
  S_TIME,
  S_STATS0,
  S_COUNT = S_STATS0 + 14
};

#define STAT(name, kind) \
  { "/stats/" #name, kind, AX_STEP, 1, 0, 0, offsetof(TsrStepStats, name) }

static const TsrStreamSpec specs[S_COUNT] = {
    [S_CTYPE] = {"/constraints/type", K_I8, AX_ROW, 1, 0, 0, 0},
    [S_CSRC] = {"/constraints/source", K_I32, AX_ROW, 1, 0, 0, 0},
    [S_CBODY] = {"/constraints/body", K_I32, AX_ROW, 2, 2, 0, 0},
    [S_CIMP] = {"/constraints/impulse", K_F64, AX_ROW, 1, 0, 0, 0},
    [S_CIDX] = {"/constraints/index_set", K_I8, AX_ROW, 1, 0, 0, 0},
    [S_CSUB] = {"/constraints/subsystem", K_I32, AX_ROW, 1, 0, 0, 0},
    [S_KBODY] = {"/contacts/body", K_I32, AX_CONTACT, 2, 2, 0, 0},
    [S_KPOINT] = {"/contacts/point", K_F64, AX_CONTACT, 2, 3, 0, 0},
    [S_KNORMAL] = {"/contacts/normal", K_F64, AX_CONTACT, 2, 3, 0, 0},
    [S_KDEPTH] = {"/contacts/depth", K_F64, AX_CONTACT, 1, 0, 0, 0},
    [S_KIMP] = {"/contacts/impulse", K_F64, AX_CONTACT, 2, 3, 0, 0},
    [S_KTAN] = {"/contacts/tangent1", K_F64, AX_CONTACT, 2, 3, 0, 0},
    [S_COFF] = {"/constraints/offset", K_I64, AX_OFFSET, 1, 0, 0, 0},
    [S_KOFF] = {"/contacts/offset", K_I64, AX_OFFSET, 1, 0, 0, 0},
    [S_POS] = {"/bodies/position", K_F64, AX_FRAME, 3, DIM_N, 3, 0},
    [S_ORI] = {"/bodies/orientation", K_F64, AX_FRAME, 3, DIM_N, 4, 0},
    [S_VEL] = {"/bodies/velocity", K_F64, AX_FRAME, 3, DIM_N, 6, 0},
    [S_BSUB] = {"/bodies/subsystem", K_I32, AX_FRAME, 2, DIM_N, 0, 0},
    [S_STEP] = {"/frames/step", K_I64, AX_FRAME, 1, 0, 0, 0},
    [S_TIME] = {"/frames/time", K_F64, AX_FRAME, 1, 0, 0, 0},
    [S_STATS0 + 0] = STAT(step_seconds, K_F64),
    [S_STATS0 + 1] = STAT(collide_seconds, K_F64),
    [S_STATS0 + 2] = STAT(partition_seconds, K_F64),
    [S_STATS0 + 3] = STAT(solve_seconds, K_F64),
    [S_STATS0 + 4] = STAT(coupling_iterations, K_I32),
    [S_STATS0 + 5] = STAT(solver_iterations, K_I32),
    [S_STATS0 + 6] = STAT(converged, K_U8),
    [S_STATS0 + 7] = STAT(mlcp_error, K_F64),
    [S_STATS0 + 8] = STAT(constraint_rows, K_I32),
    [S_STATS0 + 9] = STAT(contacts, K_I32),
    [S_STATS0 + 10] = STAT(subsystems, K_I32),
    [S_STATS0 + 11] = STAT(interface_rows, K_I32),
    [S_STATS0 + 12] = STAT(joint_error, K_F64),
    [S_STATS0 + 13] = STAT(penetration, K_F64),
};

typedef struct {
  hid_t dset;
  int rank;
  hsize_t inner[2];   // sizes of axes 1, 2
  size_t item_bytes;  // bytes of one entry along axis 0
  size_t chunk_bytes;
  hsize_t extent;       // axis-0 length in the file
  unsigned char *buf;   // pending entries, not yet in the file
  size_t pending, cap;  // in entries
} TsrStream;

struct TsrRunWriter {
  hid_t file;
  char *path;
  char *staged;  // the temporary name the file is created under until published (NULL after)
  int overwrite;
  int n_bodies;
  TsrStream s[S_COUNT];
  int64_t rows_total, contacts_total;
  size_t pending_bytes;
  double last_flush;   // CLOCK_MONOTONIC seconds
  long frames, steps;  // appended so far
  long flushed_frames, flushed_steps;
  long flushes;
  int failed;
  int io_errno;  // a write or flush the file refused (its errno): the file is left as its last flush made it
  dev_t dev;     // the published file (tsr_run_writer_replaced)
  ino_t ino;
  int have_id;
  char err[256];
};

void tsr_run_file_set_err(char *err, int errlen, const char *fmt, ...) {
  if (!err || errlen <= 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, (size_t)errlen, fmt, ap);
  va_end(ap);
}

// ---- small HDF5 helpers (also used by the reader) ----

hid_t tsr_run_file_str_type(void) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  return t;
}

static int attr_write(hid_t obj, const char *name, hid_t ftype, hid_t mtype, const void *v) {
  hid_t sp = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(obj, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT);
  herr_t st = a < 0 ? -1 : H5Awrite(a, mtype, v);
  if (a >= 0) H5Aclose(a);
  H5Sclose(sp);
  return (a < 0 || st < 0) ? -1 : 0;
}

static int attr_str(hid_t obj, const char *name, const char *v) {
  hid_t t = tsr_run_file_str_type();
  const char *p = v ? v : "";
  int rc = attr_write(obj, name, t, t, &p);
  H5Tclose(t);
  return rc;
}

static int attr_i32(hid_t obj, const char *name, int32_t v) {
  return attr_write(obj, name, H5T_STD_I32LE, H5T_NATIVE_INT32, &v);
}

static int attr_f64(hid_t obj, const char *name, double v) {
  return attr_write(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v);
}

// A fixed-size dataset written once (/model). Empty ones are created but
// not written: HDF5 accepts zero-sized dataspaces.
static int write_fixed(hid_t grp, const char *name, hid_t ftype, hid_t mtype, int rank, const hsize_t *dims,
                       const void *data) {
  hid_t sp = rank == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, dims, NULL);
  hid_t d = H5Dcreate2(grp, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t count = 1;
  for (int i = 0; i < rank; i++) count *= dims[i];
  herr_t st = 0;
  if (d >= 0 && count > 0) st = H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  if (d >= 0) H5Dclose(d);
  H5Sclose(sp);
  return (d < 0 || st < 0) ? -1 : 0;
}

static int write_strings(hid_t grp, const char *name, int count, const char *const *v) {
  hid_t t = tsr_run_file_str_type();
  hsize_t dims[1] = {(hsize_t)count};
  int rc = write_fixed(grp, name, t, t, 1, dims, v);
  H5Tclose(t);
  return rc;
}

static int write_model(hid_t file, const TsrModel *m, const TsrRunInfo *info) {
  hid_t g = H5Gcreate2(file, "/model", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) return -1;
  int n = m->n_bodies, G = m->n_shapes, J = m->n_joints;
  int rc = 0;
  const char *src = m->source ? m->source : "";
  hid_t st = tsr_run_file_str_type();
  rc |= write_fixed(g, "source", st, st, 0, NULL, &src);
  H5Tclose(st);

  size_t nn = (size_t)(n > 0 ? n : 1), gg = (size_t)(G > 0 ? G : 1), jj = (size_t)(J > 0 ? J : 1);
  const char **names = calloc(nn > jj ? nn : jj, sizeof *names);
  double *mass = calloc(nn, sizeof *mass);
  uint8_t *fixed = calloc(nn, 1);
  int32_t *shape_body = calloc(gg, sizeof *shape_body);
  int8_t *shape_type = calloc(gg, 1);
  double *params = calloc(gg * 4, sizeof *params);
  double *pose = calloc(gg * 7, sizeof *pose);
  int8_t *joint_type = calloc(jj, 1);
  int32_t *joint_body = calloc(jj * 2, sizeof *joint_body);
  if (!names || !mass || !fixed || !shape_body || !shape_type || !params || !pose || !joint_type || !joint_body) {
    rc = -1;
    goto done;
  }
  for (int i = 0; i < n; i++) {
    names[i] = m->bodies[i].name ? m->bodies[i].name : "";
    mass[i] = m->bodies[i].mass;
    fixed[i] = m->bodies[i].fixed ? 1 : 0;
  }
  hsize_t d1[1] = {(hsize_t)n};
  rc |= write_strings(g, "body_names", n, names);
  rc |= write_fixed(g, "body_mass", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, d1, mass);
  rc |= write_fixed(g, "body_fixed", H5T_STD_U8LE, H5T_NATIVE_UINT8, 1, d1, fixed);
  for (int i = 0; i < G; i++) {
    const TsrShapeDef *s = &m->shapes[i];
    shape_body[i] = s->body;
    shape_type[i] = (int8_t)s->type;
    memcpy(&params[4 * i], s->params, sizeof s->params);
    double *p = &pose[7 * i];
    p[0] = s->position.x, p[1] = s->position.y, p[2] = s->position.z;
    p[3] = s->orientation.w, p[4] = s->orientation.x, p[5] = s->orientation.y, p[6] = s->orientation.z;
  }
  hsize_t g1[1] = {(hsize_t)G}, g4[2] = {(hsize_t)G, 4}, g7[2] = {(hsize_t)G, 7};
  rc |= write_fixed(g, "shape_body", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, g1, shape_body);
  rc |= write_fixed(g, "shape_type", H5T_STD_I8LE, H5T_NATIVE_INT8, 1, g1, shape_type);
  rc |= write_fixed(g, "shape_params", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, g4, params);
  rc |= write_fixed(g, "shape_pose", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, g7, pose);
  for (int j = 0; j < J; j++) {
    names[j] = m->joints[j].name ? m->joints[j].name : "";
    joint_type[j] = (int8_t)m->joints[j].type;
    joint_body[2 * j] = m->joints[j].body[0];
    joint_body[2 * j + 1] = m->joints[j].body[1];
  }
  hsize_t j1[1] = {(hsize_t)J}, j2[2] = {(hsize_t)J, 2};
  rc |= write_strings(g, "joint_names", J, names);
  // Additions beyond OUTPUT.md (allowed: new datasets may be added).
  rc |= write_fixed(g, "joint_type", H5T_STD_I8LE, H5T_NATIVE_INT8, 1, j1, joint_type);
  rc |= write_fixed(g, "joint_body", H5T_STD_I32LE, H5T_NATIVE_INT32, 2, j2, joint_body);
  // a run with --set or --solver is not reproduced by /model/source alone
  rc |= write_strings(g, "overrides", info ? info->n_overrides : 0, info ? info->overrides : NULL);
done:
  free(names), free(mass), free(fixed), free(shape_body), free(shape_type), free(params), free(pose);
  free(joint_type), free(joint_body);
  H5Gclose(g);
  return rc ? -1 : 0;
}

static hsize_t chunk_len(const TsrStreamSpec *sp, size_t item_bytes) {
  switch (sp->axis) {
    case AX_ROW:
    case AX_CONTACT:
      return 4096;
    case AX_OFFSET:
    case AX_STEP:
      return 1024;
    case AX_FRAME: {
      size_t k = TSR_RUN_FRAME_CHUNK_BYTES / item_bytes;
      if (k < 1) k = 1;
      if (k > 1024) k = 1024;
      return (hsize_t)k;
    }
  }
  return 1024;
}

static int create_streams(TsrRunWriter *w, int deflate_level) {
  static const char *groups[] = {"/frames", "/bodies", "/constraints", "/contacts", "/stats"};
  for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++) {
    hid_t g = H5Gcreate2(w->file, groups[i], H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return -1;
    H5Gclose(g);
  }
  for (int i = 0; i < S_COUNT; i++) {
    const TsrStreamSpec *sp = &specs[i];
    TsrStream *s = &w->s[i];
    s->rank = sp->rank;
    s->inner[0] = (hsize_t)(sp->d1 == DIM_N ? w->n_bodies : sp->d1);
    s->inner[1] = (hsize_t)(sp->d2 == DIM_N ? w->n_bodies : sp->d2);
    s->item_bytes = kind_size[sp->kind];
    for (int r = 1; r < sp->rank; r++) s->item_bytes *= s->inner[r - 1];
    hsize_t dims[3] = {0, s->inner[0], s->inner[1]};
    hsize_t maxdims[3] = {H5S_UNLIMITED, s->inner[0], s->inner[1]};
    hsize_t chunk[3] = {chunk_len(sp, s->item_bytes), s->inner[0], s->inner[1]};
    s->chunk_bytes = (size_t)chunk[0] * s->item_bytes;
    // Offsets start with a single 0 so that offset has T+1 entries at all times.
    int64_t zero = 0;
    if (sp->axis == AX_OFFSET) dims[0] = 1;
    hid_t space = H5Screate_simple(sp->rank, dims, maxdims);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, sp->rank, chunk);
    if (deflate_level > 0) {
      H5Pset_shuffle(dcpl);
      H5Pset_deflate(dcpl, (unsigned)(deflate_level > 9 ? 9 : deflate_level));
    }
    hid_t d = H5Dcreate2(w->file, sp->path, tsr_run_file_type(sp->kind), space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    herr_t st = 0;
    if (d >= 0 && sp->axis == AX_OFFSET) st = H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &zero);
    s->extent = dims[0];
    H5Pclose(dcpl);
    H5Sclose(space);
    if (d < 0 || st < 0) {
      if (d >= 0) H5Dclose(d);
      return -1;
    }
    H5Dclose(d);  // reopened after H5Fstart_swmr_write
  }
  return 0;
}

static void format_utc(char *buf, size_t len) {
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

// Closes what is open (quietly: a failure here was reported, or the file is
// being discarded), removes a file never published, frees w.
static void writer_free(TsrRunWriter *w) {
  if (!w) return;
  if (w->io_errno && !w->staged) {
    // A write failed (no space, a file size limit, an I/O error): the file
    // is left as its last successful flush made it, which SWMR keeps whole
    // for readers, and not closed. Closing would flush the metadata of the
    // failed appends, and those writes, refused in part beyond a limit that
    // lets the ones in place through, left a file no reader could open
    // (`ulimit -f`). The handle is left to the process's exit, where HDF5
    // does not flush (H5dont_atexit, tsr_run_file_library_init).
    for (int i = 0; i < S_COUNT; i++) free(w->s[i].buf);
    free(w->path);
    free(w);
    return;
  }
  H5E_BEGIN_TRY {
    for (int i = 0; i < S_COUNT; i++)
      if (w->s[i].dset >= 0) H5Dclose(w->s[i].dset);
    if (w->file >= 0) H5Fclose(w->file);
  }
  H5E_END_TRY;
  for (int i = 0; i < S_COUNT; i++) free(w->s[i].buf);
  if (w->staged) unlink(w->staged);
  free(w->staged);
  free(w->path);
  free(w);
}

// The staging name of path: beside it (a rename within one folder), hidden,
// with the process id and the clock's nanoseconds:
// "DIR/.NAME.tessera-PID-NS.tmp", created exclusively (two processes of one
// process id on two hosts of a shared folder do not meet; nothing is
// removed to make room). A NAME of over 200 bytes is cut to 200 (the whole
// stays within NAME_MAX).
static char *staging_name(const char *path) {
  const char *slash = strrchr(path, '/');
  size_t dir = slash ? (size_t)(slash - path) + 1 : 0, len = strlen(path) + 64;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  char *t = malloc(len);
  if (t)
    snprintf(t, len, "%.*s.%.200s.tessera-%ld-%09ld.tmp", (int)dir, path, path + dir, (long)getpid(), (long)ts.tv_nsec);
  return t;
}

// The published file's identity, to tell later whether path still names it.
static void remember_id(TsrRunWriter *w) {
  struct stat st;
  w->have_id = stat(w->path, &st) == 0;
  if (w->have_id) w->dev = st.st_dev, w->ino = st.st_ino;
}

int tsr_run_writer_publish(TsrRunWriter *w, char *err, int errlen) {
  if (!w || !w->staged) return 0;
  int rc;
  if (w->overwrite) {
    // Atomic: a reader holding the old file keeps it whole, and a run still
    // writing it goes on into its own (now nameless) file; the old file was
    // truncated in place before, under both.
    rc = rename(w->staged, w->path);
  } else {
    // link() fails when the name exists: a file that appeared since the
    // caller's check is not replaced.
    rc = link(w->staged, w->path);
    if (rc && errno != EEXIST) {  // (a file system without hard links)
      struct stat st;
      if (stat(w->path, &st) == 0)
        errno = EEXIST;
      else
        rc = rename(w->staged, w->path);
    } else if (!rc) {
      unlink(w->staged);
    }
  }
  if (rc) {
    int e = errno;
    tsr_run_file_set_err(err, errlen, e == EEXIST ? "%s exists (use --overwrite)" : "cannot create %s: %s", w->path,
                         strerror(e));
    return -1;
  }
  free(w->staged);
  w->staged = NULL;
  remember_id(w);
  return 0;
}

int tsr_run_writer_replaced(const TsrRunWriter *w) {
  struct stat st;
  if (!w || !w->have_id) return 0;
  return stat(w->path, &st) != 0 || st.st_dev != w->dev || st.st_ino != w->ino;
}

TsrRunWriter *tsr_run_writer_open(const char *path, int overwrite, const TsrModel *model, const TsrRunInfo *info,
                                  char *err, int errlen) {
  TsrRunWriter *w = tsr_run_writer_stage(path, overwrite, model, info, err, errlen);
  if (w && tsr_run_writer_publish(w, err, errlen)) writer_free(w), w = NULL;
  return w;
}

TsrRunWriter *tsr_run_writer_stage(const char *path, int overwrite, const TsrModel *model, const TsrRunInfo *info,
                                   char *err, int errlen) {
  if (err && errlen > 0) err[0] = '\0';
  if (!path || !model) {
    tsr_run_file_set_err(err, errlen, "run file: no path or model");
    return NULL;
  }
  if (model->n_bodies < 1) {
    tsr_run_file_set_err(err, errlen, "%s: model has no bodies", path);
    return NULL;
  }
  struct stat stbuf;
  if (!overwrite && stat(path, &stbuf) == 0) {
    tsr_run_file_set_err(err, errlen, "%s exists (use --overwrite)", path);
    return NULL;
  }
  TsrRunWriter *w = calloc(1, sizeof *w);
  if (!w) {
    tsr_run_file_set_err(err, errlen, "%s: out of memory", path);
    return NULL;
  }
  w->path = strdup(path);
  w->staged = staging_name(path);
  w->overwrite = overwrite;
  if (!w->path || !w->staged) {
    tsr_run_file_set_err(err, errlen, "%s: out of memory", path);
    free(w->path), free(w->staged), free(w);
    return NULL;
  }
  w->n_bodies = model->n_bodies;
  for (int i = 0; i < S_COUNT; i++) w->s[i].dset = H5I_INVALID_HID;
  w->file = H5I_INVALID_HID;

  int ok = 0;
  const char *what = "create";
  H5E_BEGIN_TRY {
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
    // Created under the staging name (EXCL: never someone else's) and
    // published by name once written: path itself is never truncated in
    // place (a folder that takes no new file refuses the run, even where the
    // file in it could be written).
    errno = 0;
    w->file = H5Fcreate(w->staged, H5F_ACC_EXCL, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (w->file < 0) goto out;
    what = "write attributes of";
    char utc[64];
    format_utc(utc, sizeof utc);
    int rc = 0;
    rc |= attr_str(w->file, "format", TSR_RUN_FORMAT);
    rc |= attr_str(w->file, "tessera_version", info && info->tessera_version ? info->tessera_version : TSR_VERSION);
    rc |= attr_str(w->file, "model_name", model->name);
    rc |= attr_f64(w->file, "step", model->settings.step);
    rc |= attr_str(w->file, "solver", info ? info->solver : NULL);
    rc |= attr_str(w->file, "partitioning", info ? info->partitioning : NULL);
    rc |= attr_i32(w->file, "threads", info ? info->threads : 0);
    rc |= attr_i32(w->file, "max_coupling_iterations", info ? info->max_coupling_iterations : 0);
    rc |= attr_str(w->file, "created_utc", utc);
    // settings.output: a reader (check_run_file.py) tells contact rows whose
    // contacts were not written (contacts: false) from a damaged file.
    rc |= attr_i32(w->file, "output_constraints", model->settings.output.constraints);
    rc |= attr_i32(w->file, "output_contacts", model->settings.output.contacts);
    rc |= attr_i32(w->file, "complete", 0);
    if (rc) goto out;
    what = "write /model to";
    if (write_model(w->file, model, info)) goto out;
    what = "create datasets in";
    if (create_streams(w, info ? info->deflate_level : 0)) goto out;
    what = "start SWMR writing on";
    if (H5Fstart_swmr_write(w->file) < 0) goto out;
    for (int i = 0; i < S_COUNT; i++) {
      // Appends touch only the last chunk, so a cache of two chunks (with
      // fully written chunks evicted first, w0 = 1) is all a stream needs;
      // HDF5's default 1 MiB per dataset would let ~40 streams hold tens
      // of MB that fill slowly over a run.
      hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
      H5Pset_chunk_cache(dapl, 7, 2 * w->s[i].chunk_bytes, 1.0);
      w->s[i].dset = H5Dopen2(w->file, specs[i].path, dapl);
      H5Pclose(dapl);
      if (w->s[i].dset < 0) goto out;
    }
    ok = 1;
  out:;
  }
  H5E_END_TRY;
  if (!ok) {
    // HDF5 leaves errno as the failed system call set it: the reason when
    // the file could not be created, or a write that failed (no space).
    int e = errno, io = e == ENOSPC || e == EDQUOT || e == EFBIG || e == EIO || e == EROFS;
    if ((w->file < 0 && e) || io)
      tsr_run_file_set_err(err, errlen, "cannot %s %s: %s", what, path, strerror(e));
    else
      tsr_run_file_set_err(err, errlen, "cannot %s %s (HDF5 error)", what, path);
    writer_free(w);  // (and the staged file with it)
    return NULL;
  }
  w->last_flush = tsr_now_seconds();
  return w;
}

// Ensures room for `count` more entries and returns where they go.
static void *stream_reserve(TsrRunWriter *w, TsrStream *s, size_t count) {
  if (s->pending + count > s->cap) {
    size_t cap = s->cap ? s->cap : 64;
    while (cap < s->pending + count) cap *= 2;
    unsigned char *b = realloc(s->buf, cap * s->item_bytes);
    if (!b) return NULL;
    s->buf = b;
    s->cap = cap;
  }
  void *p = s->buf + s->pending * s->item_bytes;
  s->pending += count;
  w->pending_bytes += count * s->item_bytes;
  return p;
}

static int stream_push(TsrRunWriter *w, int i, const void *data, size_t count) {
  if (count == 0) return 0;
  TsrStream *s = &w->s[i];
  void *p = stream_reserve(w, s, count);
  if (!p) return -1;
  if (data)
    memcpy(p, data, count * s->item_bytes);
  else
    memset(p, 0, count * s->item_bytes);
  return 0;
}

// Writes every pending entry into the datasets (no H5Fflush).
static int spill(TsrRunWriter *w) {
  int ok = 1;
  errno = 0;  // the reason of a failed write (ENOSPC, EFBIG, EIO) for the message
  H5E_BEGIN_TRY {
    for (int i = 0; i < S_COUNT && ok; i++) {
      TsrStream *s = &w->s[i];
      if (!s->pending) continue;
      hsize_t dims[3] = {s->extent + s->pending, s->inner[0], s->inner[1]};
      hsize_t start[3] = {s->extent, 0, 0};
      hsize_t count[3] = {s->pending, s->inner[0], s->inner[1]};
      if (H5Dset_extent(s->dset, dims) < 0) {
        ok = 0;
        break;
      }
      hid_t fs = H5Dget_space(s->dset);
      hid_t ms = H5Screate_simple(s->rank, count, NULL);
      if (fs < 0 || ms < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
          H5Dwrite(s->dset, mem_type(specs[i].kind), ms, fs, H5P_DEFAULT, s->buf) < 0)
        ok = 0;
      if (fs >= 0) H5Sclose(fs);
      if (ms >= 0) H5Sclose(ms);
      if (ok) {
        s->extent += s->pending;
        s->pending = 0;
      }
    }
  }
  H5E_END_TRY;
  if (!ok) {
    int e = errno;
    w->failed = 1;
    w->io_errno = e ? e : EIO;
    snprintf(w->err, sizeof w->err, "%s: cannot write: %s", w->path, e ? strerror(e) : "HDF5 error");
    errno = e;
    return -1;
  }
  w->pending_bytes = 0;
  return 0;
}

int tsr_run_writer_flush(TsrRunWriter *w) {
  if (!w || w->failed) return -1;
  if (spill(w)) return -1;
  herr_t st;
  errno = 0;
  H5E_BEGIN_TRY { st = H5Fflush(w->file, H5F_SCOPE_LOCAL); }
  H5E_END_TRY;
  if (st < 0) {
    int e = errno;
    w->failed = 1;
    w->io_errno = e ? e : EIO;
    snprintf(w->err, sizeof w->err, "%s: cannot flush: %s", w->path, e ? strerror(e) : "HDF5 error");
    errno = e;
    return -1;
  }
  w->flushed_frames = w->frames;
  w->flushed_steps = w->steps;
  w->flushes++;
  w->last_flush = tsr_now_seconds();
  return 0;
}

static int after_append(TsrRunWriter *w) {
  if (w->pending_bytes >= TSR_RUN_SPILL_BYTES && spill(w)) return -1;
  if (tsr_now_seconds() - w->last_flush >= TSR_RUN_FLUSH_SECONDS) return tsr_run_writer_flush(w);
  return 0;
}

static int oom(TsrRunWriter *w) {
  w->failed = 1;
  snprintf(w->err, sizeof w->err, "%s: out of memory while buffering output", w->path);
  return -1;
}

int tsr_run_writer_frame(TsrRunWriter *w, const TsrFrame *f) {
  if (!w || !f || w->failed) return -1;
  if (f->n_bodies != w->n_bodies || f->n_rows < 0 || f->n_contacts < 0 || !f->position || !f->orientation ||
      !f->velocity) {
    snprintf(w->err, sizeof w->err, "%s: frame %ld: %d bodies (model has %d), %d rows, %d contacts", w->path, w->frames,
             f->n_bodies, w->n_bodies, f->n_rows, f->n_contacts);
    return -1;
  }
  size_t n = (size_t)w->n_bodies, R = (size_t)f->n_rows, C = (size_t)f->n_contacts;
  int rc = 0;
  // Missing optional arrays are stored as zeros rather than refused: the
  // layout must stay consistent even if a producer has no such data.
  rc |= stream_push(w, S_CTYPE, f->row_type, R);
  rc |= stream_push(w, S_CSRC, f->row_source, R);
  rc |= stream_push(w, S_CBODY, f->row_body, R);
  rc |= stream_push(w, S_CIMP, f->row_impulse, R);
  rc |= stream_push(w, S_CIDX, f->row_index_set, R);
  rc |= stream_push(w, S_CSUB, f->row_subsystem, R);
  rc |= stream_push(w, S_KBODY, f->contact_body, C);
  rc |= stream_push(w, S_KPOINT, f->contact_point, C);
  rc |= stream_push(w, S_KNORMAL, f->contact_normal, C);
  rc |= stream_push(w, S_KDEPTH, f->contact_depth, C);
  rc |= stream_push(w, S_KIMP, f->contact_impulse, C);
  rc |= stream_push(w, S_KTAN, f->contact_tangent1, C);  // zeros when not given
  w->rows_total += (int64_t)R;
  w->contacts_total += (int64_t)C;
  rc |= stream_push(w, S_COFF, &w->rows_total, 1);
  rc |= stream_push(w, S_KOFF, &w->contacts_total, 1);
  rc |= stream_push(w, S_POS, f->position, 1);
  rc |= stream_push(w, S_ORI, f->orientation, 1);
  rc |= stream_push(w, S_VEL, f->velocity, 1);
  if (f->body_subsystem) {
    rc |= stream_push(w, S_BSUB, f->body_subsystem, 1);
  } else {
    int32_t *p = stream_reserve(w, &w->s[S_BSUB], 1);
    if (!p) return oom(w);
    for (size_t i = 0; i < n; i++) p[i] = 0;
  }
  rc |= stream_push(w, S_STEP, &f->step, 1);
  rc |= stream_push(w, S_TIME, &f->time, 1);
  if (rc) return oom(w);
  w->frames++;
  return after_append(w);
}

int tsr_run_writer_step(TsrRunWriter *w, const TsrStepStats *st) {
  if (!w || !st || w->failed) return -1;
  for (int i = S_STATS0; i < S_COUNT; i++)
    if (stream_push(w, i, (const unsigned char *)st + specs[i].stat_offset, 1)) return oom(w);
  w->steps++;
  return after_append(w);
}

long tsr_run_writer_flushed_frames(const TsrRunWriter *w) { return w ? w->flushed_frames : 0; }
long tsr_run_writer_flush_count(const TsrRunWriter *w) { return w ? w->flushes : 0; }
const char *tsr_run_writer_error(const TsrRunWriter *w) { return w && w->err[0] ? w->err : ""; }

// A step of closing failed: rc = -1, and *reason keeps the first errno.
static void close_failed(int *rc, int *reason) {
  *rc = -1;
  if (!*reason) *reason = errno;
}

int tsr_run_writer_close(TsrRunWriter **pw, int complete) {
  if (!pw || !*pw) return -1;
  TsrRunWriter *w = *pw;
  *pw = NULL;
  int rc = 0, reason = 0;  // reason: errno of the first failure (ENOSPC, EIO, ...)
  errno = 0;
  if (w->staged) complete = 0;  // never published: discarded below
  if (w->failed || tsr_run_writer_flush(w)) {
    if (w->io_errno && !w->staged) {
      int e = w->io_errno;
      writer_free(w);  // left as its last flush made it (complete = 0)
      errno = e;
      return -1;
    }
    close_failed(&rc, &reason);
  }
  // Everything but `complete` is closed and on disk before it is set, so
  // that a write failing on the way (no space) leaves complete = 0: it was
  // set first, and the closes after it could fail under a file marked
  // complete. `complete` was created before SWMR started; rewriting an
  // existing attribute's value is allowed in SWMR mode (creating one is not).
  int32_t c = 1;
  int marked = 0;  // complete = 1 is on disk
  H5E_BEGIN_TRY {
    for (int i = 0; i < S_COUNT; i++) {
      if (w->s[i].dset >= 0 && H5Dclose(w->s[i].dset) < 0) close_failed(&rc, &reason);
      w->s[i].dset = H5I_INVALID_HID;
    }
    if (rc == 0 && H5Fflush(w->file, H5F_SCOPE_GLOBAL) < 0) close_failed(&rc, &reason);
    if (complete && rc == 0) {
      hid_t a = H5Aopen(w->file, "complete", H5P_DEFAULT);
      if (a < 0 || H5Awrite(a, H5T_NATIVE_INT32, &c) < 0 || H5Fflush(w->file, H5F_SCOPE_GLOBAL) < 0) {
        close_failed(&rc, &reason);
        c = 0;  // (and back, as far as the file still takes writes)
        if (a >= 0 && H5Awrite(a, H5T_NATIVE_INT32, &c) >= 0) H5Fflush(w->file, H5F_SCOPE_GLOBAL);
      } else {
        marked = 1;
      }
      if (a >= 0) H5Aclose(a);
    }
    // What fails here after complete = 1 is on disk is the superblock's
    // last write (its open-for-writing flag): the run is all there (-2).
    if (H5Fclose(w->file) < 0) {
      close_failed(&rc, &reason);
      if (marked) rc = -2;
    }
    w->file = H5I_INVALID_HID;
  }
  H5E_END_TRY;
  writer_free(w);
  errno = rc ? reason : 0;
  return rc;
}
