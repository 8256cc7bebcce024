// SPDX-License-Identifier: MIT
// `tessera export-vtk`: the frames of a run file as VTK pieces (vtk.h).
//
// Frames are encoded in parallel (OpenMP, dynamic schedule, each thread its
// own frame and output buffers). HDF5 reads are serialised in one critical
// section: a thread reads its frame (a few small hyperslabs), then encodes
// and writes three files while the others read theirs, so reading overlaps
// the work that costs. The file may come from a killed run: it is opened
// with the SWMR read flag, the frame count is the shortest per-frame dataset
// (tsr_run_file_summary), and row/contact ranges are clipped to the rows that
// reached the disk.
//
// Joint anchors are not in the run file: the model is re-loaded from
// /model/source and each anchor is taken to its body's frame with the poses
// of frame 0 (the initial state the run actually used, --set overrides
// included), as the joints module does: a_body = R0^T (a_world - x0).
#include "io/vtk.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>
#include <omp.h>

#include "io/run_file_internal.h"
#include "io/out_files.h"
#include "io/vtk_internal.h"

typedef struct {
  hid_t id;
  long len;  // axis 0
  int rank;
  hsize_t row;  // values per entry of axis 0
} Ds;

static void ds_open(hid_t f, const char *path, Ds *d) {
  d->id = -1, d->len = -1, d->rank = 0, d->row = 1;
  if (H5Lexists(f, path, H5P_DEFAULT) <= 0) return;
  d->id = H5Dopen2(f, path, H5P_DEFAULT);
  if (d->id < 0) return;
  hid_t sp = H5Dget_space(d->id);
  int r = H5Sget_simple_extent_ndims(sp);
  if (r >= 1 && r <= 3) {
    hsize_t dims[3];
    H5Sget_simple_extent_dims(sp, dims, NULL);
    d->rank = r, d->len = (long)dims[0];
    for (int k = 1; k < r; k++) d->row *= dims[k];
  }
  H5Sclose(sp);
}

static void ds_close(Ds *d) {
  if (d->id >= 0) H5Dclose(d->id);
  d->id = -1;
}

// Entries [start, start + count) along axis 0, every trailing axis.
static int ds_read(const Ds *d, hid_t mtype, long start, long count, void *buf) {
  if (count <= 0) return 0;
  if (d->id < 0 || d->rank < 1 || start < 0 || start + count > d->len) return -1;
  hid_t fs = H5Dget_space(d->id);
  hsize_t st[3] = {(hsize_t)start, 0, 0}, cnt[3], dims[3];
  H5Sget_simple_extent_dims(fs, dims, NULL);
  cnt[0] = (hsize_t)count;
  for (int k = 1; k < d->rank; k++) cnt[k] = dims[k];
  hsize_t total = (hsize_t)count * d->row;
  hid_t ms = H5Screate_simple(1, &total, NULL);
  int ok = H5Sselect_hyperslab(fs, H5S_SELECT_SET, st, NULL, cnt, NULL) >= 0 &&
           H5Dread(d->id, mtype, ms, fs, H5P_DEFAULT, buf) >= 0;
  H5Sclose(ms);
  H5Sclose(fs);
  return ok ? 0 : -1;
}

enum {
  D_TIME,
  D_POS,
  D_ORI,
  D_VEL,
  D_SUB,
  D_COFF,
  D_RTYPE,
  D_RSRC,
  D_RIDX,
  D_RSUB,
  D_KOFF,
  D_KBODY,
  D_KPT,
  D_KN,
  D_KDEPTH,
  D_KIMP,
  D_KT1,
  D_KT2,
  D_COUNT
};
static const char *const ds_paths[D_COUNT] = {"/frames/time",           "/bodies/position",    "/bodies/orientation",
                                              "/bodies/velocity",       "/bodies/subsystem",   "/constraints/offset",
                                              "/constraints/type",      "/constraints/source", "/constraints/index_set",
                                              "/constraints/subsystem", "/contacts/offset",    "/contacts/body",
                                              "/contacts/point",        "/contacts/normal",    "/contacts/depth",
                                              "/contacts/impulse",      "/contacts/tangent1",  "/contacts/tangent2"};

// Entries per index of axis 0 (OUTPUT.md); 0: per body, checked against
// the model's bodies. A file whose datasets have another width (a foreign
// or damaged file: time as [T, 2]) is refused: ds_read reads count x width
// into buffers sized for these (a heap overflow, SIGSEGV).
static const hsize_t ds_width[D_COUNT] = {1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 3, 3, 1, 3, 3, 3};

typedef struct {
  Ds d[D_COUNT];
  int n;                // bodies
  long rows, contacts;  // entries that reached the disk, all row (contact) datasets
  int tangents;         // /contacts/tangent1 and tangent2 exist
  // What a frame's values are checked against (frame_check).
  const char *path;
  long frames;           // T
  long joints;           // /model/joint_names
  int complete;          // the run ended normally
  int contacts_written;  // settings.output.contacts (contact rows then name a contact of their frame)
} RunSets;

// One frame read from the file; arrays grow as needed (one per thread).
typedef struct {
  double *pos, *ori, *vel, *kpt, *kn, *kdepth, *kimp, *ktan;
  int32_t *sub, *rsrc, *rsub, *kbody;
  int8_t *rtype, *ridx;
  long rcap, kcap;
  TsrFrame f;
} FrameBuf;

#define GROW(p, n, sz) ((p) = realloc((p), ((size_t)(n) + 1) * (sz)))

// A quaternion or a normal is unit to this (the writer normalises both;
// schemas/check_run_file.py allows the same).
#define UNIT_TOL 1e-6

static int finite_n(const double *v, int k) {
  for (int j = 0; j < k; j++)
    if (!isfinite(v[j])) return 0;
  return 1;
}

static int unit_n(const double *v, int k) {
  double s = 0;
  for (int j = 0; j < k; j++) s += v[j] * v[j];
  return fabs(sqrt(s) - 1.0) <= UNIT_TOL;
}

// The values of frame i that its pieces show, against OUTPUT.md: positions
// and velocities finite and orientations unit quaternions (in every frame
// but the last of a run that did not finish: a diverged step is written,
// non-finite, to show what diverged), subsystems -1 or more, rows of a known
// type and index set whose source names a joint of the model or a contact
// of the frame, contacts between bodies of the model (or -1, the world) with
// finite values and a unit normal. Before, such a frame was exported as it
// was (a zero quaternion as a body collapsed to a point, a contact of body
// 99 as cell data), exit 0. 0, or TSR_RUN_FILE_INVALID with err.
static int frame_check(const RunSets *s, long i, const int64_t *coff, const int64_t *koff, const FrameBuf *b, char *err,
                       int errlen) {
  const TsrFrame *f = &b->f;
  const char *p = s->path;
  int diverged = !s->complete && i == s->frames - 1;  // (may hold the non-finite state that stopped the run)
  long r0 = (long)coff[i], k0 = (long)koff[i];
  for (int k = 0; k < f->n_bodies; k++) {
    const double *x = &f->position[3 * k], *q = &f->orientation[4 * k], *v = &f->velocity[6 * k];
    if (!diverged && !finite_n(x, 3))
      return tsr_run_file_invalid(err, errlen, p, "/bodies/position", "frame %ld, body %d: (%g, %g, %g) is not finite",
                                  i, k, x[0], x[1], x[2]);
    if (!diverged && !finite_n(v, 6))
      return tsr_run_file_invalid(err, errlen, p, "/bodies/velocity", "frame %ld, body %d: not finite", i, k);
    if (!diverged && !(finite_n(q, 4) && unit_n(q, 4)))
      return tsr_run_file_invalid(err, errlen, p, "/bodies/orientation",
                                  "frame %ld, body %d: [%g, %g, %g, %g] is not a unit quaternion (norm %g)", i, k, q[0],
                                  q[1], q[2], q[3], sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]));
    if (f->body_subsystem[k] < -1)
      return tsr_run_file_invalid(err, errlen, p, "/bodies/subsystem", "frame %ld, body %d: subsystem %d (-1 or more)",
                                  i, k, (int)f->body_subsystem[k]);
  }
  for (int r = 0; r < f->n_rows; r++) {
    int type = f->row_type[r], src = f->row_source[r], idx = f->row_index_set[r];
    long row = r0 + r;
    if (type < 0 || type > 4)
      return tsr_run_file_invalid(err, errlen, p, "/constraints/type", "row %ld (frame %ld): type %d, not 0..4", row, i,
                                  type);
    if (idx < -1 || idx > 1)
      return tsr_run_file_invalid(err, errlen, p, "/constraints/index_set", "row %ld (frame %ld): %d, not -1, 0 or 1",
                                  row, i, idx);
    if (f->row_subsystem[r] < -1)
      return tsr_run_file_invalid(err, errlen, p, "/constraints/subsystem", "row %ld (frame %ld): %d (-1 or more)", row,
                                  i, (int)f->row_subsystem[r]);
    int contact = type == 1 || type == 2;
    if (contact && s->contacts_written && (src < 0 || src >= f->n_contacts))
      return tsr_run_file_invalid(err, errlen, p, "/constraints/source",
                                  "row %ld (frame %ld): a contact row names contact %d of the frame's %d", row, i, src,
                                  f->n_contacts);
    if (!contact && (src < 0 || src >= s->joints))
      return tsr_run_file_invalid(err, errlen, p, "/constraints/source",
                                  "row %ld (frame %ld): a joint row names joint %d of the model's %ld", row, i, src,
                                  s->joints);
  }
  for (int c = 0; c < f->n_contacts; c++) {
    long k = k0 + c;
    for (int e = 0; e < 2; e++) {
      int body = f->contact_body[2 * c + e];
      if (body < -1 || body >= f->n_bodies)
        return tsr_run_file_invalid(err, errlen, p, "/contacts/body",
                                    "contact %ld (frame %ld): body %d, not -1 (the world) or one of the %d bodies", k,
                                    i, body, f->n_bodies);
    }
    if (diverged) continue;
    const double *n = &f->contact_normal[3 * c];
    if (!finite_n(n, 3) || !unit_n(n, 3))
      return tsr_run_file_invalid(err, errlen, p, "/contacts/normal",
                                  "contact %ld (frame %ld): (%g, %g, %g) is not a unit vector", k, i, n[0], n[1], n[2]);
    if (!finite_n(&f->contact_point[3 * c], 3))
      return tsr_run_file_invalid(err, errlen, p, "/contacts/point", "contact %ld (frame %ld): not finite", k, i);
    if (!finite_n(&f->contact_depth[c], 1))
      return tsr_run_file_invalid(err, errlen, p, "/contacts/depth", "contact %ld (frame %ld): not finite", k, i);
    if (!finite_n(&f->contact_impulse[3 * c], 3))
      return tsr_run_file_invalid(err, errlen, p, "/contacts/impulse", "contact %ld (frame %ld): not finite", k, i);
  }
  return 0;
}

// Reads frame i into b and checks it (frame_check): 0, -1 when it cannot
// be read, TSR_RUN_FILE_INVALID (err) when its values break the contract.
static int frame_read(const RunSets *s, const int64_t *coff, const int64_t *koff, long i, FrameBuf *b, char *err,
                      int errlen) {
  int n = s->n;
  if (!b->pos) {
    if (!GROW(b->pos, 3 * n, 8) || !GROW(b->ori, 4 * n, 8) || !GROW(b->vel, 6 * n, 8) || !GROW(b->sub, n, 4)) return -1;
  }
  long r0 = coff[i], r1 = coff[i + 1], k0 = koff[i], k1 = koff[i + 1];
  if (r1 > s->rows) r1 = s->rows;
  if (r0 > r1) r0 = r1;
  if (k1 > s->contacts) k1 = s->contacts;
  if (k0 > k1) k0 = k1;
  long R = r1 - r0, C = k1 - k0;
  if (R > b->rcap) {
    if (!GROW(b->rtype, R, 1) || !GROW(b->ridx, R, 1) || !GROW(b->rsrc, R, 4) || !GROW(b->rsub, R, 4)) return -1;
    b->rcap = R;
  }
  if (C > b->kcap) {
    if (!GROW(b->kbody, 2 * C, 4) || !GROW(b->kpt, 3 * C, 8) || !GROW(b->kn, 3 * C, 8) || !GROW(b->kdepth, C, 8) ||
        !GROW(b->kimp, 3 * C, 8) || !GROW(b->ktan, 6 * C, 8))
      return -1;
    b->kcap = C;
  }
  double t = 0;
  int rc =
      ds_read(&s->d[D_TIME], H5T_NATIVE_DOUBLE, i, 1, &t) || ds_read(&s->d[D_POS], H5T_NATIVE_DOUBLE, i, 1, b->pos) ||
      ds_read(&s->d[D_ORI], H5T_NATIVE_DOUBLE, i, 1, b->ori) ||
      ds_read(&s->d[D_VEL], H5T_NATIVE_DOUBLE, i, 1, b->vel) || ds_read(&s->d[D_SUB], H5T_NATIVE_INT32, i, 1, b->sub) ||
      ds_read(&s->d[D_RTYPE], H5T_NATIVE_INT8, r0, R, b->rtype) ||
      ds_read(&s->d[D_RSRC], H5T_NATIVE_INT32, r0, R, b->rsrc) ||
      ds_read(&s->d[D_RIDX], H5T_NATIVE_INT8, r0, R, b->ridx) ||
      ds_read(&s->d[D_RSUB], H5T_NATIVE_INT32, r0, R, b->rsub) ||
      ds_read(&s->d[D_KBODY], H5T_NATIVE_INT32, k0, C, b->kbody) ||
      ds_read(&s->d[D_KPT], H5T_NATIVE_DOUBLE, k0, C, b->kpt) ||
      ds_read(&s->d[D_KN], H5T_NATIVE_DOUBLE, k0, C, b->kn) ||
      ds_read(&s->d[D_KDEPTH], H5T_NATIVE_DOUBLE, k0, C, b->kdepth) ||
      ds_read(&s->d[D_KIMP], H5T_NATIVE_DOUBLE, k0, C, b->kimp);
  if (!rc && s->tangents && C > 0) {
    // Stored as separate [C, 3] datasets; interleave to (t1, t2) per contact.
    double *tmp = malloc((size_t)C * 6 * sizeof *tmp);
    int two = s->d[D_KT2].id >= 0;
    rc = !tmp || ds_read(&s->d[D_KT1], H5T_NATIVE_DOUBLE, k0, C, tmp) ||
         (two && ds_read(&s->d[D_KT2], H5T_NATIVE_DOUBLE, k0, C, tmp + 3 * C));
    if (!rc) tsr_vtk_tangent_pairs(C, b->kn, tmp, two ? tmp + 3 * C : NULL, b->ktan);
    free(tmp);
  }
  b->f = (TsrFrame){.time = t,
                    .step = 0,
                    .n_bodies = n,
                    .position = b->pos,
                    .orientation = b->ori,
                    .velocity = b->vel,
                    .body_subsystem = b->sub,
                    .n_rows = (int)R,
                    .row_type = b->rtype,
                    .row_source = b->rsrc,
                    .row_index_set = b->ridx,
                    .row_subsystem = b->rsub,
                    .n_contacts = (int)C,
                    .contact_body = b->kbody,
                    .contact_point = b->kpt,
                    .contact_normal = b->kn,
                    .contact_depth = b->kdepth,
                    .contact_impulse = b->kimp};
  return rc ? -1 : frame_check(s, i, coff, koff, b, err, errlen);
}

static void frame_buf_free(FrameBuf *b) {
  free(b->pos), free(b->ori), free(b->vel), free(b->kpt), free(b->kn), free(b->kdepth), free(b->kimp);
  free(b->ktan), free(b->sub), free(b->rsrc), free(b->rsub), free(b->kbody), free(b->rtype), free(b->ridx);
  memset(b, 0, sizeof *b);
}

static void *read_all(const Ds *d, hid_t mtype, size_t elem) {
  long n = d->len > 0 ? d->len : 0;
  void *buf = malloc(((size_t)n * d->row + 1) * elem);
  if (buf && ds_read(d, mtype, 0, n, buf)) {
    free(buf);
    return NULL;
  }
  return buf;
}

// The scalar string /model/source, malloc'ed.
static char *read_source(hid_t f) {
  if (H5Lexists(f, "/model", H5P_DEFAULT) <= 0 || H5Lexists(f, "/model/source", H5P_DEFAULT) <= 0) return NULL;
  hid_t d = H5Dopen2(f, "/model/source", H5P_DEFAULT);
  if (d < 0) return NULL;
  char *out = NULL;
  hid_t ft = H5Dget_type(d);
  if (H5Tget_class(ft) == H5T_STRING && H5Tis_variable_str(ft) > 0) {
    hid_t mt = tsr_run_file_str_type();
    char *v = NULL;
    if (H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) >= 0 && v) {
      out = strdup(v);
      H5free_memory(v);
    }
    H5Tclose(mt);
  } else if (H5Tget_class(ft) == H5T_STRING) {
    size_t sz = H5Tget_size(ft);
    out = calloc(sz + 1, 1);
    hid_t mt = H5Tcopy(H5T_C_S1);
    H5Tset_size(mt, sz);
    if (out && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0) free(out), out = NULL;
    H5Tclose(mt);
  }
  H5Tclose(ft);
  H5Dclose(d);
  return out;
}

static void add_warning(TsrVtkExportResult *res, const char *msg) {
  size_t len = strlen(res->warning);
  snprintf(res->warning + len, sizeof res->warning - len, "%s%s", len ? "\n" : "", msg);
}

// Shapes from /model/shape_*; joints from the re-loaded model (or none, with a warning).
static int build_scene(hid_t f, const char *path, const RunSets *s, int segments, TsrVtkScene *scene,
                       TsrVtkExportResult *res, char *err, int errlen) {
  Ds st, sb, sp, so, jt, jb, jn;
  ds_open(f, "/model/shape_type", &st);
  ds_open(f, "/model/shape_body", &sb);
  ds_open(f, "/model/shape_params", &sp);
  ds_open(f, "/model/shape_pose", &so);
  ds_open(f, "/model/joint_names", &jn);
  ds_open(f, "/model/joint_type", &jt);
  ds_open(f, "/model/joint_body", &jb);
  int rc = -1;
  long G = st.len;
  int8_t *type = NULL;
  int32_t *body = NULL;
  double *params = NULL, *pose = NULL;
  TsrShapeDef *shapes = NULL;
  if (G < 0 || sb.len != G || sp.len != G || so.len != G || sp.row != 4 || so.row != 7) {
    snprintf(err, (size_t)errlen, "%s: run file lacks /model/shape_type, shape_body, shape_params or shape_pose", path);
    goto done;
  }
  type = read_all(&st, H5T_NATIVE_INT8, 1);
  body = read_all(&sb, H5T_NATIVE_INT32, 4);
  params = read_all(&sp, H5T_NATIVE_DOUBLE, 8);
  pose = read_all(&so, H5T_NATIVE_DOUBLE, 8);
  shapes = calloc((size_t)G + 1, sizeof *shapes);
  if (!type || !body || !params || !pose || !shapes) {
    snprintf(err, (size_t)errlen, "%s: cannot read the shapes in /model (damaged file?)", path);
    goto done;
  }
  for (long g = 0; g < G; g++) {
    // (a shape of an unknown type or body was skipped without a word, and a
    // model left without any exported bodies of no geometry, exit 0)
    const double *p = &pose[7 * g];
    if (type[g] < 0 || type[g] > TSR_SHAPE_PLANE) {
      rc =
          tsr_run_file_invalid(err, errlen, path, "/model/shape_type", "shape %ld: type %d, not 0..4", g, (int)type[g]);
      goto done;
    } else if (body[g] < 0 || body[g] >= s->n) {
      rc = tsr_run_file_invalid(err, errlen, path, "/model/shape_body", "shape %ld: body %d, not one of the %d bodies",
                                g, (int)body[g], s->n);
      goto done;
    } else if (!finite_n(&params[4 * g], 4)) {
      rc = tsr_run_file_invalid(err, errlen, path, "/model/shape_params", "shape %ld: not finite", g);
      goto done;
    } else if (type[g] != TSR_SHAPE_PLANE &&
               !(params[4 * g] > 0 && (type[g] != TSR_SHAPE_BOX || (params[4 * g + 1] > 0 && params[4 * g + 2] > 0)))) {
      // (the model's loader makes every radius and box edge positive)
      rc = tsr_run_file_invalid(err, errlen, path, "/model/shape_params", "shape %ld: a size not positive", g);
      goto done;
    } else if (!finite_n(p, 7) || !unit_n(p + 3, 4)) {
      rc = tsr_run_file_invalid(err, errlen, path, "/model/shape_pose",
                                "shape %ld: not finite, or its quaternion (columns 3..6) not unit", g);
      goto done;
    }
    TsrShapeDef *d = &shapes[g];
    d->body = body[g];
    d->type = (TsrShapeType)type[g];
    memcpy(d->params, &params[4 * g], sizeof d->params);
    d->position = tsr_v3(p[0], p[1], p[2]);
    d->orientation = tsr_q_normalize((TsrQuat){p[3], p[4], p[5], p[6]});
  }
  if (tsr_vtk_scene_init(scene, s->n, (int)G, shapes, segments)) {
    snprintf(err, (size_t)errlen, "%s: out of memory", path);
    goto done;
  }
  rc = 0;

  // Joints (optional: a problem here is a warning, the bodies still export).
  long J = jn.len > 0 ? jn.len : 0;
  res->joints_written = 0;
  if (J == 0) goto done;
  char *src = read_source(f);
  int8_t *jtype = jt.len == J ? read_all(&jt, H5T_NATIVE_INT8, 1) : NULL;
  int32_t *jbody = jb.len == J && jb.row == 2 ? read_all(&jb, H5T_NATIVE_INT32, 4) : NULL;
  double *x0 = malloc((size_t)s->n * 3 * 8 + 8), *q0 = malloc((size_t)s->n * 4 * 8 + 8);
  double *aa = malloc((size_t)J * 3 * 8), *ab = malloc((size_t)J * 3 * 8);
  TsrModel m;
  memset(&m, 0, sizeof m);
  TsrDiag diag;
  tsr_diag_init(&diag);
  char msg[768];
  msg[0] = '\0';
  char where[512];
  snprintf(where, sizeof where, "%s:/model/source", path);
  if (!src || !jtype || !jbody || !x0 || !q0 || !aa || !ab) {
    snprintf(msg, sizeof msg, "%s: cannot read /model/source, joint_type or joint_body: joints not exported", path);
  } else if (ds_read(&s->d[D_POS], H5T_NATIVE_DOUBLE, 0, 1, x0) || ds_read(&s->d[D_ORI], H5T_NATIVE_DOUBLE, 0, 1, q0)) {
    snprintf(msg, sizeof msg, "%s: cannot read frame 0: joints not exported", path);
  } else if (tsr_model_load_string(where, src, strlen(src), NULL, 0, &m, &diag)) {
    snprintf(msg, sizeof msg, "%s: joints not exported: the model in /model/source does not load (%s)", path,
             diag.count ? diag.messages[0] : "unknown error");
  } else if (m.n_joints != J || m.n_bodies != s->n) {
    snprintf(msg, sizeof msg, "%s: joints not exported: /model/source has %d joints and %d bodies, the file %ld and %d",
             path, m.n_joints, m.n_bodies, J, s->n);
  } else {
    int same = 1;
    for (long j = 0; j < J; j++) {
      const TsrJointDef *d = &m.joints[j];
      same &= d->body[0] == jbody[2 * j] && d->body[1] == jbody[2 * j + 1];
      TsrVec3 b = d->type == TSR_JOINT_DISTANCE ? d->anchor_b : d->anchor;
      aa[3 * j] = d->anchor.x, aa[3 * j + 1] = d->anchor.y, aa[3 * j + 2] = d->anchor.z;
      ab[3 * j] = b.x, ab[3 * j + 1] = b.y, ab[3 * j + 2] = b.z;
    }
    if (!same)
      snprintf(msg, sizeof msg, "%s: joints not exported: /model/source and /model/joint_body disagree", path);
    else if (tsr_vtk_scene_set_joints(scene, (int)J, jbody, jtype, aa, ab, x0, q0))
      snprintf(msg, sizeof msg, "%s: out of memory: joints not exported", path);
    else
      res->joints_written = 1;
  }
  if (msg[0]) add_warning(res, msg);
  tsr_model_free(&m);
  tsr_diag_free(&diag);
  free(src), free(jtype), free(jbody), free(x0), free(q0), free(aa), free(ab);
done:
  ds_close(&st), ds_close(&sb), ds_close(&sp), ds_close(&so), ds_close(&jt), ds_close(&jb), ds_close(&jn);
  free(type), free(body), free(params), free(pose), free(shapes);
  return rc;
}

static int export_open(hid_t f, const char *run_path, const char *dir, const TsrVtkExportOptions *o,
                       const TsrRunSummary *sum, TsrVtkExportResult *res, char *err, int errlen) {
  RunSets s;
  memset(&s, 0, sizeof s);
  for (int k = 0; k < D_COUNT; k++) ds_open(f, ds_paths[k], &s.d[k]);
  TsrVtkScene scene;
  memset(&scene, 0, sizeof scene);
  int64_t *coff = NULL, *koff = NULL;
  double *times = NULL, *plane_pts = NULL;
  long *sel = NULL;
  char *sub = NULL;
  int rc = -1, lock = -1;
  long T = sum->frames;
  for (int k = 0; k < D_KT1; k++)
    if (s.d[k].id < 0) {
      snprintf(err, (size_t)errlen, "%s: run file lacks %s", run_path, ds_paths[k]);
      goto done;
    }
  if (T < 1) {  // (exported empty .pvd files, exit 0, with a warning about frame 0's joints)
    snprintf(err, (size_t)errlen,
             "%s: the run file holds no frame yet (a run stopped before its first write, or one in its first second)",
             run_path);
    goto done;
  }
  s.n = sum->n_bodies;
  s.path = run_path;
  s.frames = T;
  s.complete = sum->complete == 1;
  {
    Ds jn;
    ds_open(f, "/model/joint_names", &jn);
    s.joints = jn.len > 0 ? jn.len : 0;
    ds_close(&jn);
    int32_t oc = 1;  // (added after format 1's first files: missing means written)
    if (H5Aexists(f, "output_contacts") > 0) {
      hid_t a = H5Aopen(f, "output_contacts", H5P_DEFAULT);
      if (a < 0 || H5Aread(a, H5T_NATIVE_INT32, &oc) < 0) oc = 1;
      if (a >= 0) H5Aclose(a);
    }
    s.contacts_written = oc != 0;
  }
  for (int k = D_POS; k <= D_SUB; k++) {
    hsize_t per = (hsize_t)(k == D_POS ? 3 : k == D_ORI ? 4 : k == D_VEL ? 6 : 1);
    if (s.d[k].row != per * (hsize_t)s.n) {
      rc = tsr_run_file_invalid(err, errlen, run_path, ds_paths[k],
                                "%llu values per frame, not %llu for the %d bodies of /model/body_names",
                                (unsigned long long)s.d[k].row, (unsigned long long)(per * (hsize_t)s.n), s.n);
      goto done;
    }
  }
  for (int k = 0; k < D_KT1; k++)
    if (ds_width[k] && s.d[k].row != ds_width[k]) {
      rc = tsr_run_file_invalid(err, errlen, run_path, ds_paths[k], "%llu values per %s, not %llu",
                                (unsigned long long)s.d[k].row, k == D_TIME ? "frame" : "entry",
                                (unsigned long long)ds_width[k]);
      goto done;
    }
  s.rows = s.d[D_RTYPE].len;
  for (int k = D_RSRC; k <= D_RSUB; k++) s.rows = s.d[k].len < s.rows ? s.d[k].len : s.rows;
  s.contacts = s.d[D_KBODY].len;
  for (int k = D_KPT; k <= D_KIMP; k++) s.contacts = s.d[k].len < s.contacts ? s.d[k].len : s.contacts;
  // Tangent directions are not in format 1; read them when a writer adds
  // /contacts/tangent1 (and optionally tangent2; else t2 = n x t1).
  s.tangents = s.d[D_KT1].id >= 0 && s.d[D_KT1].row == 3;
  if (s.d[D_KT2].id >= 0 && s.d[D_KT2].row != 3) ds_close(&s.d[D_KT2]);
  if (s.tangents) {
    s.contacts = s.d[D_KT1].len < s.contacts ? s.d[D_KT1].len : s.contacts;
    if (s.d[D_KT2].id >= 0) s.contacts = s.d[D_KT2].len < s.contacts ? s.d[D_KT2].len : s.contacts;
  }
  coff = malloc(((size_t)T + 1) * sizeof *coff);
  koff = malloc(((size_t)T + 1) * sizeof *koff);
  times = malloc(((size_t)T + 1) * sizeof *times);
  sel = malloc(((size_t)T + 1) * sizeof *sel);
  if (!coff || !koff || !times || !sel || ds_read(&s.d[D_COFF], H5T_NATIVE_INT64, 0, T + 1, coff) ||
      ds_read(&s.d[D_KOFF], H5T_NATIVE_INT64, 0, T + 1, koff) ||
      ds_read(&s.d[D_TIME], H5T_NATIVE_DOUBLE, 0, T, times)) {
    snprintf(err, (size_t)errlen, "%s: cannot read /frames/time or the offsets (damaged file?)", run_path);
    goto done;
  }
  // (the summary checked the offsets against the datasets it knows; the
  // tangents are the export's own)
  if (coff[T] > s.rows || koff[T] > s.contacts) {
    rc = tsr_run_file_invalid(err, errlen, run_path, coff[T] > s.rows ? "/constraints/offset" : "/contacts/offset",
                              "entry %ld (%lld) is past the %ld %s stored", T,
                              (long long)(coff[T] > s.rows ? coff[T] : koff[T]), coff[T] > s.rows ? s.rows : s.contacts,
                              coff[T] > s.rows ? "rows" : "contacts");
    goto done;
  }
  long every = o && o->every > 0 ? o->every : 1;
  double t0 = o ? o->t_from : -INFINITY, t1 = o ? o->t_to : INFINITY;
  long nsel = 0;
  for (long i = 0; i < T; i++)
    if (i % every == 0 && times[i] >= t0 && times[i] <= t1) sel[nsel++] = i;
  int sc = build_scene(f, run_path, &s, o ? o->segments : 0, &scene, res, err, errlen);
  if (sc) {
    rc = sc == TSR_RUN_FILE_INVALID ? sc : -1;
    goto done;
  }

  // Output directories.
  char name[256];
  { tsr_io_safe_name(sum->model_name, name, sizeof name); }
  size_t sublen = strlen(dir) + strlen(name) + 32;
  sub = malloc(sublen);
  if (!sub) goto done;
  snprintf(sub, sublen, "%s/%s", dir, name);
  if (tsr_io_make_dir(dir, err, errlen) || tsr_vtk_make_piece_dir(sub, &lock, err, errlen)) {
    rc = -2;
    goto done;
  }

  // Planes: sized to every exported frame.
  plane_pts = malloc(((size_t)scene.n_planes + 1) * 12 * sizeof *plane_pts);
  if (!plane_pts) goto done;
  TsrVtkBox box;
  tsr_vtk_box_init(&box);
  if (scene.n_planes > 0) {
    double *x = malloc(((size_t)s.n + 1) * 3 * sizeof *x);
    for (long k = 0; x && k < nsel; k++)
      if (!ds_read(&s.d[D_POS], H5T_NATIVE_DOUBLE, sel[k], 1, x)) tsr_vtk_box_add(&box, &scene, x);
    free(x);
  }
  tsr_vtk_plane_points(&scene, &box, plane_pts);

  int failed = 0;
  long done = 0;
  char ferr[1024] = "";
  int with_joints = scene.n_joints > 0;
#pragma omp parallel
  {
    TsrVtkWork work;
    FrameBuf fb;
    memset(&work, 0, sizeof work);
    memset(&fb, 0, sizeof fb);
    char path[4096];
#pragma omp for schedule(dynamic, 1)
    for (long k = 0; k < nsel; k++) {
      int stop;
#pragma omp atomic read
      stop = failed;
      if (stop) continue;
      if (o && o->stop && o->stop()) {  // (the flag is a plain store: any thread may see it first)
#pragma omp critical(tsr_vtk_err)
        if (!failed) {
          snprintf(ferr, sizeof ferr, "interrupted: the export in %s is incomplete and has no .pvd files", dir);
#pragma omp atomic write
          failed = -3;
        }
        continue;
      }
      int r;
      char rerr[1024] = "";
#pragma omp critical(tsr_vtk_hdf5)
      {
        H5E_BEGIN_TRY { r = frame_read(&s, coff, koff, sel[k], &fb, rerr, sizeof rerr); }
        H5E_END_TRY;
      }
      const char *what = "cannot read frame";
      int e = 0;
      path[0] = '\0';
      if (r) {
        e = -1;
      } else {
        what = "cannot write";
        tsr_vtk_piece_name(path, sizeof path, dir, name, "bodies", sel[k]);
        e = tsr_vtk_write_bodies(&scene, plane_pts, &fb.f, &work, path);
        if (!e) {
          tsr_vtk_piece_name(path, sizeof path, dir, name, "contacts", sel[k]);
          e = tsr_vtk_write_contacts(&fb.f, s.tangents ? fb.ktan : NULL, &work, path);
        }
        if (!e && with_joints) {
          tsr_vtk_piece_name(path, sizeof path, dir, name, "joints", sel[k]);
          e = tsr_vtk_write_joints(&scene, &fb.f, &work, path);
        }
      }
      if (!e && o && o->progress) {
#pragma omp critical(tsr_vtk_progress)
        o->progress(o->progress_ctx, ++done, nsel);
      }
      if (e) {
        int en = errno;
#pragma omp critical(tsr_vtk_err)
        if (!failed) {
          if (r == TSR_RUN_FILE_INVALID)
            snprintf(ferr, sizeof ferr, "%s", rerr);
          else if (r)
            snprintf(ferr, sizeof ferr, "%s: %s %ld (damaged file?)", run_path, what, sel[k]);
          else
            snprintf(ferr, sizeof ferr, "%s: %s: %s", path, what, strerror(en ? en : EIO));
#pragma omp atomic write
          failed = r == TSR_RUN_FILE_INVALID ? r : r ? -1 : -4;
        }
      }
    }
    tsr_vtk_work_free(&work);
    frame_buf_free(&fb);
  }
  if (failed) {
    snprintf(err, (size_t)errlen, "%s", ferr);
    rc = failed;
    goto done;
  }

  // Collections, once every piece they name is on disk.
  double *tsel = malloc(((size_t)nsel + 1) * sizeof *tsel);
  if (!tsel) goto done;
  for (long k = 0; k < nsel; k++) tsel[k] = times[sel[k]];
  rc = 0;
  for (int k = 0; k < (with_joints ? 3 : 2) && !rc; k++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s%s", dir, name, tsr_vtk_series_suffix[k]);
    if (k == 0) snprintf(res->pvd, sizeof res->pvd, "%.1000s", path);
    if (tsr_vtk_write_pvd(path, name, tsr_vtk_series_kind[k], tsel, sel, nsel)) {
      snprintf(err, (size_t)errlen, "%s: cannot write: %s", path, strerror(errno));
      rc = -4;
    }
  }
  free(tsel);
  res->frames_written = rc ? 0 : nsel;
done:
  for (int k = 0; k < D_COUNT; k++) ds_close(&s.d[k]);
  tsr_vtk_scene_free(&scene);
  free(coff), free(koff), free(times), free(sel), free(plane_pts), free(sub);
  if (lock >= 0) close(lock);
  return rc;
}

int tsr_vtk_export(const char *run_path, const char *dir, const TsrVtkExportOptions *o, TsrVtkExportResult *res,
                   char *err, int errlen) {
  memset(res, 0, sizeof *res);
  if (err && errlen > 0) err[0] = '\0';
  TsrRunSummary sum;
  int sr = tsr_run_file_summary(run_path, &sum, err, errlen);
  if (sr) return sr == TSR_RUN_FILE_INVALID ? sr : -1;
  res->frames_in_file = sum.frames;
  res->complete = sum.complete;
  int rc = -1;
  H5E_BEGIN_TRY {
    hid_t f = tsr_run_file_open_read(run_path);
    if (f < 0) {
      snprintf(err, (size_t)errlen, "%s: cannot open the HDF5 file", run_path);
    } else {
      rc = export_open(f, run_path, dir, o, &sum, res, err, errlen);
      H5Fclose(f);
    }
  }
  H5E_END_TRY;
  return rc;
}
