// SPDX-License-Identifier: MIT
// Run file round trip: a hand-built model and 50 frames with varying row and
// contact counts are written with the writer API, then read back with the
// plain HDF5 C API (not our reader), so the layout of OUTPUT.md is checked
// independently of the code that wrote it.
#include "io/run_file.h"

#include <dirent.h>
#include <errno.h>
#include <hdf5.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "synth.h"
#include "tsr_test.h"

#define NB 3
#define NF 50

static char path_a[512], path_b[512], path_c[512];

// Opens `path`, checks its file type and dims, returns the data as mtype.
static void *read_ds(hid_t f, const char *path, hid_t ftype, hid_t mtype, int rank, const hsize_t *dims) {
  if (H5Lexists(f, path, H5P_DEFAULT) <= 0) {
    ENSURE_MSG(0, "%s missing", path);
    return NULL;
  }
  hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
  hid_t t = H5Dget_type(d);
  ENSURE_MSG(H5Tequal(t, ftype) > 0, "%s has the wrong file type", path);
  H5Tclose(t);
  hid_t sp = H5Dget_space(d);
  hsize_t got[3] = {0, 0, 0};
  int r = H5Sget_simple_extent_ndims(sp);
  ENSURE_MSG(r == rank, "%s: rank %d, expected %d", path, r, rank);
  H5Sget_simple_extent_dims(sp, got, NULL);
  size_t count = 1;
  for (int i = 0; i < rank; i++) {
    ENSURE_MSG(got[i] == dims[i], "%s: dim %d is %llu, expected %llu", path, i, (unsigned long long)got[i],
               (unsigned long long)dims[i]);
    count *= (size_t)dims[i];
  }
  H5Sclose(sp);
  void *buf = calloc(count ? count : 1, H5Tget_size(mtype));
  if (count) ENSURE(H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
  H5Dclose(d);
  return buf;
}

static void read_str_attr(hid_t f, const char *name, char *out, size_t len) {
  out[0] = 0;
  hid_t a = H5Aopen(f, name, H5P_DEFAULT);
  ENSURE_MSG(a >= 0, "attribute %s missing", name);
  if (a < 0) return;
  hid_t t = H5Aget_type(a);
  ENSURE_MSG(H5Tis_variable_str(t) > 0 && H5Tget_cset(t) == H5T_CSET_UTF8, "%s: not a vlen UTF-8 string", name);
  char *v = NULL;
  ENSURE(H5Aread(a, t, &v) >= 0);
  if (v) snprintf(out, len, "%s", v);
  H5free_memory(v);
  H5Tclose(t);
  H5Aclose(a);
}

static double read_num_attr(hid_t f, const char *name, hid_t expect_type) {
  double v = NAN;
  hid_t a = H5Aopen(f, name, H5P_DEFAULT);
  ENSURE_MSG(a >= 0, "attribute %s missing", name);
  if (a < 0) return v;
  hid_t t = H5Aget_type(a);
  ENSURE_MSG(H5Tequal(t, expect_type) > 0, "attribute %s has the wrong type", name);
  ENSURE(H5Aread(a, H5T_NATIVE_DOUBLE, &v) >= 0);
  H5Tclose(t);
  H5Aclose(a);
  return v;
}

// Writes the synthetic run; frames 0..NF-1, steps 1..NF-1.
static int write_run(const char *path, int overwrite, int complete) {
  TsrModel m;
  synth_model(&m, NB);
  TsrRunInfo info = synth_info();
  char err[256];
  TsrRunWriter *w = tsr_run_writer_open(path, overwrite, &m, &info, err, sizeof err);
  ENSURE_MSG(w, "open: %s", err);
  if (!w) {
    synth_model_free(&m);
    return -1;
  }
  SynthScratch s;
  synth_scratch_init(&s, NB, 64, 8);
  for (long f = 0; f < NF; f++) {
    if (f > 0) {
      TsrStepStats st = synth_stats(f);
      ENSURE(tsr_run_writer_step(w, &st) == 0);
    }
    TsrFrame fr;
    synth_frame(&fr, &s, NB, f, synth_rows(f), synth_contacts(f));
    ENSURE(tsr_run_writer_frame(w, &fr) == 0);
  }
  // A frame with the wrong body count is refused and says why.
  TsrFrame bad;
  synth_frame(&bad, &s, NB, 0, 0, 0);
  bad.n_bodies = NB + 1;
  ENSURE(tsr_run_writer_frame(w, &bad) == -1);
  ENSURE(strstr(tsr_run_writer_error(w), "bodies") != NULL);
  int rc = tsr_run_writer_close(&w, complete);
  ENSURE(rc == 0);
  ENSURE(w == NULL);
  synth_scratch_free(&s);
  synth_model_free(&m);
  return rc;
}

static void check_file(const char *path, int complete) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  ENSURE_MSG(f >= 0, "cannot open %s", path);
  if (f < 0) return;
  char buf[256];
  read_str_attr(f, "format", buf, sizeof buf);
  ENSURE(!strcmp(buf, "tessera-run/1"));
  read_str_attr(f, "model_name", buf, sizeof buf);
  ENSURE(!strcmp(buf, "synth"));
  read_str_attr(f, "solver", buf, sizeof buf);
  ENSURE(!strcmp(buf, "schur-bpp"));
  read_str_attr(f, "partitioning", buf, sizeof buf);
  ENSURE(!strcmp(buf, "semantic"));
  read_str_attr(f, "tessera_version", buf, sizeof buf);
  ENSURE(!strcmp(buf, "0.1.0-test"));
  read_str_attr(f, "created_utc", buf, sizeof buf);
  ENSURE_MSG(strlen(buf) == 20 && buf[4] == '-' && buf[10] == 'T' && buf[19] == 'Z', "created_utc = %s", buf);
  ENSURE(read_num_attr(f, "step", H5T_IEEE_F64LE) == 1.0 / 60.0);
  ENSURE(read_num_attr(f, "threads", H5T_STD_I32LE) == 2);
  ENSURE(read_num_attr(f, "max_coupling_iterations", H5T_STD_I32LE) == 10);
  ENSURE(read_num_attr(f, "complete", H5T_STD_I32LE) == complete);

  // /model
  TsrModel m;
  synth_model(&m, NB);
  hid_t st = H5Tcopy(H5T_C_S1);
  H5Tset_size(st, H5T_VARIABLE);
  H5Tset_cset(st, H5T_CSET_UTF8);
  char **src = read_ds(f, "/model/source", st, st, 0, NULL);
  ENSURE(src && src[0] && !strcmp(src[0], synth_source));
  if (src) H5free_memory(src[0]);
  free(src);
  hsize_t dn[1] = {NB}, dg[1] = {NB + 1}, dg4[2] = {NB + 1, 4}, dg7[2] = {NB + 1, 7}, dj[1] = {NB - 2};
  char **names = read_ds(f, "/model/body_names", st, st, 1, dn);
  for (int i = 0; names && i < NB; i++) {
    ENSURE(names[i] && !strcmp(names[i], m.bodies[i].name));
    H5free_memory(names[i]);
  }
  free(names);
  char **jn = read_ds(f, "/model/joint_names", st, st, 1, dj);
  ENSURE(jn && jn[0] && !strcmp(jn[0], "hinge"));
  if (jn) H5free_memory(jn[0]);
  free(jn);
  H5Tclose(st);
  double *mass = read_ds(f, "/model/body_mass", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, dn);
  uint8_t *fixed = read_ds(f, "/model/body_fixed", H5T_STD_U8LE, H5T_NATIVE_UINT8, 1, dn);
  int32_t *sb = read_ds(f, "/model/shape_body", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, dg);
  int8_t *stype = read_ds(f, "/model/shape_type", H5T_STD_I8LE, H5T_NATIVE_INT8, 1, dg);
  double *sp = read_ds(f, "/model/shape_params", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, dg4);
  double *pose = read_ds(f, "/model/shape_pose", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, dg7);
  for (int i = 0; i < NB; i++) {
    ENSURE(mass[i] == m.bodies[i].mass);
    ENSURE(fixed[i] == (i == 0));
  }
  ENSURE(sb[0] == 0 && sb[1] == 1 && sb[2] == 1 && sb[3] == 2);
  ENSURE(stype[0] == 4 && stype[1] == 1 && stype[2] == 0);
  for (int g = 0; g < NB + 1; g++) {
    for (int c = 0; c < 4; c++) ENSURE(sp[4 * g + c] == m.shapes[g].params[c]);
    const TsrShapeDef *s = &m.shapes[g];
    double want[7] = {s->position.x,    s->position.y,    s->position.z,   s->orientation.w,
                      s->orientation.x, s->orientation.y, s->orientation.z};
    for (int c = 0; c < 7; c++) ENSURE(pose[7 * g + c] == want[c]);
  }
  ENSURE(pose[7 * 2 + 2] == 1.0 && pose[7 * 1 + 3] == 0.5);
  free(mass), free(fixed), free(sb), free(stype), free(sp), free(pose);
  synth_model_free(&m);

  // Per frame
  long R = 0, C = 0;
  for (long t = 0; t < NF; t++) R += synth_rows(t), C += synth_contacts(t);
  ENSURE(R > 0 && C > 0);
  hsize_t dT[1] = {NF}, dT1[1] = {NF + 1}, dTn[2] = {NF, NB}, dTn3[3] = {NF, NB, 3}, dTn4[3] = {NF, NB, 4},
          dTn6[3] = {NF, NB, 6};
  double *time = read_ds(f, "/frames/time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, dT);
  int64_t *step = read_ds(f, "/frames/step", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, dT);
  double *pos = read_ds(f, "/bodies/position", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, dTn3);
  double *ori = read_ds(f, "/bodies/orientation", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, dTn4);
  double *vel = read_ds(f, "/bodies/velocity", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, dTn6);
  int32_t *bsub = read_ds(f, "/bodies/subsystem", H5T_STD_I32LE, H5T_NATIVE_INT32, 2, dTn);
  int64_t *coff = read_ds(f, "/constraints/offset", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, dT1);
  int64_t *koff = read_ds(f, "/contacts/offset", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, dT1);
  hsize_t dR[1] = {(hsize_t)R}, dR2[2] = {(hsize_t)R, 2}, dC[1] = {(hsize_t)C}, dC2[2] = {(hsize_t)C, 2},
          dC3[2] = {(hsize_t)C, 3};
  int8_t *rtype = read_ds(f, "/constraints/type", H5T_STD_I8LE, H5T_NATIVE_INT8, 1, dR);
  int32_t *rsrc = read_ds(f, "/constraints/source", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, dR);
  int32_t *rbody = read_ds(f, "/constraints/body", H5T_STD_I32LE, H5T_NATIVE_INT32, 2, dR2);
  double *rimp = read_ds(f, "/constraints/impulse", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, dR);
  int8_t *ridx = read_ds(f, "/constraints/index_set", H5T_STD_I8LE, H5T_NATIVE_INT8, 1, dR);
  int32_t *rsub = read_ds(f, "/constraints/subsystem", H5T_STD_I32LE, H5T_NATIVE_INT32, 1, dR);
  int32_t *cbody = read_ds(f, "/contacts/body", H5T_STD_I32LE, H5T_NATIVE_INT32, 2, dC2);
  double *cpt = read_ds(f, "/contacts/point", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, dC3);
  double *cn = read_ds(f, "/contacts/normal", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, dC3);
  double *cd = read_ds(f, "/contacts/depth", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, dC);
  double *cimp = read_ds(f, "/contacts/impulse", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2, dC3);
  SynthScratch s;
  synth_scratch_init(&s, NB, 64, 8);
  int bad = 0;
  ENSURE(coff[0] == 0 && koff[0] == 0);
  for (long t = 0; t < NF; t++) {
    int nr = synth_rows(t), nc = synth_contacts(t);
    TsrFrame fr;
    synth_frame(&fr, &s, NB, t, nr, nc);
    bad += time[t] != fr.time || step[t] != t;
    bad += memcmp(&pos[t * NB * 3], s.pos, NB * 3 * 8) != 0;
    bad += memcmp(&ori[t * NB * 4], s.ori, NB * 4 * 8) != 0;
    bad += memcmp(&vel[t * NB * 6], s.vel, NB * 6 * 8) != 0;
    bad += memcmp(&bsub[t * NB], s.bsub, NB * 4) != 0;
    bad += coff[t + 1] - coff[t] != nr || koff[t + 1] - koff[t] != nc;
    int64_t r0 = coff[t], k0 = koff[t];
    if (coff[t + 1] > R || koff[t + 1] > C) {
      bad++;
      break;
    }
    bad += memcmp(&rtype[r0], s.rtype, (size_t)nr) != 0 || memcmp(&rsrc[r0], s.rsrc, 4 * (size_t)nr) != 0;
    bad += memcmp(&rbody[2 * r0], s.rbody, 8 * (size_t)nr) != 0 || memcmp(&rimp[r0], s.rimp, 8 * (size_t)nr) != 0;
    bad += memcmp(&ridx[r0], s.ridx, (size_t)nr) != 0 || memcmp(&rsub[r0], s.rsub, 4 * (size_t)nr) != 0;
    bad += memcmp(&cbody[2 * k0], s.cbody, 8 * (size_t)nc) != 0 || memcmp(&cpt[3 * k0], s.cpt, 24 * (size_t)nc) != 0;
    bad += memcmp(&cn[3 * k0], s.cn, 24 * (size_t)nc) != 0 || memcmp(&cd[k0], s.cd, 8 * (size_t)nc) != 0;
    bad += memcmp(&cimp[3 * k0], s.cimp, 24 * (size_t)nc) != 0;
  }
  ENSURE_MSG(bad == 0, "%d per-frame mismatches", bad);
  ENSURE(coff[NF] == R && koff[NF] == C);
  synth_scratch_free(&s);
  free(time), free(step), free(pos), free(ori), free(vel), free(bsub), free(coff), free(koff);
  free(rtype), free(rsrc), free(rbody), free(rimp), free(ridx), free(rsub);
  free(cbody), free(cpt), free(cn), free(cd), free(cimp);

  // Per step
  hsize_t dS[1] = {NF - 1};
  static const char *f64[] = {"step_seconds", "collide_seconds", "partition_seconds", "solve_seconds",
                              "mlcp_error",   "joint_error",     "penetration"};
  static const char *i32[] = {"coupling_iterations", "solver_iterations", "constraint_rows", "contacts",
                              "subsystems",          "interface_rows"};
  double *sv[7];
  int32_t *iv[6];
  char p[64];
  for (int i = 0; i < 7; i++) {
    snprintf(p, sizeof p, "/stats/%s", f64[i]);
    sv[i] = read_ds(f, p, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1, dS);
  }
  for (int i = 0; i < 6; i++) {
    snprintf(p, sizeof p, "/stats/%s", i32[i]);
    iv[i] = read_ds(f, p, H5T_STD_I32LE, H5T_NATIVE_INT32, 1, dS);
  }
  uint8_t *conv = read_ds(f, "/stats/converged", H5T_STD_U8LE, H5T_NATIVE_UINT8, 1, dS);
  bad = 0;
  for (long k = 1; k < NF; k++) {
    TsrStepStats e = synth_stats(k);
    long i = k - 1;
    bad += sv[0][i] != e.step_seconds || sv[1][i] != e.collide_seconds || sv[2][i] != e.partition_seconds;
    bad += sv[3][i] != e.solve_seconds || sv[4][i] != e.mlcp_error || sv[5][i] != e.joint_error;
    bad += sv[6][i] != e.penetration || iv[0][i] != e.coupling_iterations || iv[1][i] != e.solver_iterations;
    bad += iv[2][i] != e.constraint_rows || iv[3][i] != e.contacts || iv[4][i] != e.subsystems;
    bad += iv[5][i] != e.interface_rows || conv[i] != e.converged;
  }
  ENSURE_MSG(bad == 0, "%d per-step mismatches", bad);
  for (int i = 0; i < 7; i++) free(sv[i]);
  for (int i = 0; i < 6; i++) free(iv[i]);
  free(conv);
  H5Fclose(f);
}

static void test_round_trip(void) {
  ENSURE(write_run(path_a, 0, 1) == 0);
  check_file(path_a, 1);
}

static void test_incomplete(void) {
  ENSURE(write_run(path_b, 0, 0) == 0);
  check_file(path_b, 0);
}

static void test_overwrite(void) {
  TsrModel m;
  synth_model(&m, NB);
  TsrRunInfo info = synth_info();
  char err[256] = "";
  TsrRunWriter *w = tsr_run_writer_open(path_a, 0, &m, &info, err, sizeof err);
  ENSURE(w == NULL);
  char want[600];
  snprintf(want, sizeof want, "%s exists (use --overwrite)", path_a);
  ENSURE_MSG(!strcmp(err, want), "err = '%s'", err);
  // The refused file is untouched.
  check_file(path_a, 1);
  w = tsr_run_writer_open(path_a, 1, &m, &info, err, sizeof err);
  ENSURE_MSG(w != NULL, "%s", err);
  ENSURE(tsr_run_writer_close(&w, 1) == 0);
  TsrRunSummary s;
  ENSURE(tsr_run_file_summary(path_a, &s, err, sizeof err) == 0);
  ENSURE(s.frames == 0 && s.steps == 0 && s.complete == 1);
  synth_model_free(&m);
}

// Frames of /frames/time through an open file handle.
static long frames_of(hid_t f) {
  hid_t d = H5Dopen2(f, "/frames/time", H5P_DEFAULT);
  if (d < 0) return -1;
  hid_t sp = H5Dget_space(d);
  hsize_t n = 0;
  H5Sget_simple_extent_dims(sp, &n, NULL);
  H5Sclose(sp), H5Dclose(d);
  return (long)n;
}

// Entries of dir whose name holds "tessera-" (a staging file left behind).
static int staging_files(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));) n += strstr(e->d_name, ".tessera-") != NULL;
  if (d) closedir(d);
  return n;
}

// --overwrite replaces the file whole: a reader holding the old file keeps
// reading all of it (it was truncated in place under the reader), and a
// writer staged but closed unpublished leaves the old file and no other.
static void test_overwrite_replaces(void) {
  ENSURE(write_run(path_c, 1, 1) == 0);
  hid_t old = H5Fopen(path_c, H5F_ACC_RDONLY, H5P_DEFAULT);
  ENSURE(old >= 0 && frames_of(old) == NF);
  TsrModel m;
  synth_model(&m, NB);
  TsrRunInfo info = synth_info();
  char err[256] = "";
  TsrRunWriter *w = tsr_run_writer_open(path_c, 1, &m, &info, err, sizeof err);
  ENSURE_MSG(w != NULL, "%s", err);
  ENSURE(tsr_run_writer_close(&w, 1) == 0);
  ENSURE_MSG(frames_of(old) == NF, "the old file's reader sees %ld frames", frames_of(old));
  H5Fclose(old);
  TsrRunSummary s;
  ENSURE(tsr_run_file_summary(path_c, &s, err, sizeof err) == 0 && s.frames == 0 && s.complete == 1);
  // Staged, never published: path_c is the file just written, untouched.
  ENSURE(write_run(path_c, 1, 1) == 0);
  w = tsr_run_writer_stage(path_c, 1, &m, &info, err, sizeof err);
  ENSURE_MSG(w != NULL, "%s", err);
  ENSURE(tsr_run_writer_close(&w, 1) == 0);
  ENSURE(tsr_run_file_summary(path_c, &s, err, sizeof err) == 0 && s.frames == NF && s.complete == 1);
  char dir[512];
  snprintf(dir, sizeof dir, "%s", path_c);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = '\0';
  ENSURE_MSG(staging_files(slash ? dir : ".") == 0, "a staging file was left in %s", slash ? dir : ".");
  // Published without overwrite over a file that appeared since it was
  // staged: refused, and that file kept.
  unlink(path_c);
  w = tsr_run_writer_stage(path_c, 0, &m, &info, err, sizeof err);
  ENSURE_MSG(w != NULL, "%s", err);
  ENSURE(write_run(path_c, 0, 1) == 0);
  ENSURE(tsr_run_writer_publish(w, err, sizeof err) == -1 && strstr(err, "exists") != NULL);
  tsr_run_writer_close(&w, 1);
  ENSURE(tsr_run_file_summary(path_c, &s, err, sizeof err) == 0 && s.frames == NF && s.complete == 1);
  ENSURE(staging_files(slash ? dir : ".") == 0);
  synth_model_free(&m);
  unlink(path_c);
}

static void test_summary(void) {
  TsrRunSummary s;
  char err[256];
  ENSURE_MSG(tsr_run_file_summary(path_b, &s, err, sizeof err) == 0, "%s", err);
  ENSURE(s.frames == NF && s.steps == NF - 1 && s.complete == 0);
  ENSURE(!strcmp(s.model_name, "synth") && !strcmp(s.solver, "schur-bpp"));
  ENSURE(s.max_coupling_iterations == 10 && s.n_bodies == NB);
  double sum = 0, mx = 0, pmax = 0, ksum = 0;
  long at_k = 0, conv = 0, R = 0;
  for (long k = 1; k < NF; k++) {
    TsrStepStats e = synth_stats(k);
    sum += e.solve_seconds * 1e3;
    if (e.solve_seconds * 1e3 > mx) mx = e.solve_seconds * 1e3;
    if (e.penetration > pmax) pmax = e.penetration;
    ksum += e.coupling_iterations;
    at_k += e.coupling_iterations >= 10;
    conv += e.converged;
  }
  for (long t = 0; t < NF; t++) R += synth_rows(t);
  ENSURE_NEAR(s.solve_ms_mean, sum / (NF - 1), 1e-12);
  ENSURE_NEAR(s.solve_ms_max, mx, 1e-12);
  ENSURE_NEAR(s.solve_ms_median, 3.0, 1e-12);  // k % 10 + 1 over k = 1..49: 25th of 49 is 6 -> 3 ms
  ENSURE_NEAR(s.coupling_mean, ksum / (NF - 1), 1e-12);
  ENSURE_NEAR(s.pct_at_kmax, 100.0 * (double)at_k / (NF - 1), 1e-12);
  ENSURE_NEAR(s.penetration_max, pmax, 0);
  ENSURE_NEAR(s.converged_fraction, (double)conv / (NF - 1), 1e-12);
  ENSURE(s.constraint_rows == R);
}

static void test_bad_inputs(void) {
  TsrRunSummary s;
  char err[256];
  ENSURE(tsr_run_file_summary(path_c, &s, err, sizeof err) == -1);  // missing
  ENSURE(strstr(err, "No such file") != NULL);
  FILE *fp = fopen(path_c, "w");
  fputs("this is not HDF5\n", fp);
  fclose(fp);
  ENSURE(tsr_run_file_summary(path_c, &s, err, sizeof err) == -1);
  ENSURE_MSG(strstr(err, "not an HDF5 file") != NULL, "%s", err);
  // An HDF5 file that is not a run file.
  hid_t f = H5Fcreate(path_c, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  H5Fclose(f);
  ENSURE(tsr_run_file_summary(path_c, &s, err, sizeof err) == -1);
  ENSURE_MSG(strstr(err, "not a Tessera run file") != NULL, "%s", err);
  unlink(path_c);
}

int main(void) {
  const char *tmp = getenv("TSR_TEST_TMP") ? getenv("TSR_TEST_TMP") : ".";
  pid_t pid = getpid();
  // A folder of its own: the other io tests run tessera in TSR_TEST_TMP at
  // the same time, and their staging files are not this test's leftovers
  // (test_overwrite_replaces counted one once under parallel tests).
  char dir[400];  // (the paths below have 512)
  snprintf(dir, sizeof dir, "%s/test_run_file_%d.d", tmp, (int)pid);
  ENSURE_MSG(mkdir(dir, 0777) == 0 || errno == EEXIST, "cannot make %s: %s", dir, strerror(errno));
  snprintf(path_a, sizeof path_a, "%s/a.h5", dir);
  snprintf(path_b, sizeof path_b, "%s/b.h5", dir);
  snprintf(path_c, sizeof path_c, "%s/c.h5", dir);
  unlink(path_a), unlink(path_b), unlink(path_c);
  RUN_TEST(test_round_trip);
  RUN_TEST(test_incomplete);
  RUN_TEST(test_overwrite);
  RUN_TEST(test_overwrite_replaces);
  RUN_TEST(test_summary);
  RUN_TEST(test_bad_inputs);
  if (!tsr_test_failures) unlink(path_a), unlink(path_b), unlink(path_c), rmdir(dir);
  return TSR_TEST_RESULT();
}
