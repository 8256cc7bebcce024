// SPDX-License-Identifier: MIT
// Live VTK export (`tessera run ... --vtk DIR`): one set of .vtp pieces per
// written frame, and .pvd collections that are valid at every instant.
//
// A .pvd lists every frame so far, so rewriting it after each frame costs
// O(frames) and a long run O(frames^2). It is rewritten (temp file + rename,
// so a reader sees the old or the new file, never a torn one) after the
// first frame, then whenever 0.5 s have passed since the last rewrite and the
// rewrites have cost less than 5% of the wall time since; always at close. A
// .vtp is complete on disk before any .pvd names it.
#include "io/vtk.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "io/out_files.h"
#include "io/vtk_internal.h"
#include "util/clock.h"

struct TsrVtkWriter {
  char *dir;
  int lock;  // the pieces' folder's lock (tsr_vtk_make_piece_dir), -1 none
  char name[256];
  TsrVtkScene scene;
  TsrVtkBox box;
  double *plane_points;
  TsrVtkWork work;
  long n, cap;
  double *time;
  long *frame;
  double *tangents;  // [cap_tangents * 6]: the frame's (t1, t2) pairs
  long cap_tangents;
  long pvd_frames;            // frames listed in the .pvd files on disk
  double pvd_last, pvd_cost;  // when the last rewrite ended, how long it took
  int failed;
  char error[512];
};

static char *path_of(const TsrVtkWriter *w, const char *suffix) {
  size_t len = strlen(w->dir) + strlen(w->name) + strlen(suffix) + 2;
  char *p = malloc(len);
  if (p) snprintf(p, len, "%s/%s%s", w->dir, w->name, suffix);
  return p;
}

static int fail(TsrVtkWriter *w, const char *what, const char *path) {
  snprintf(w->error, sizeof w->error, "%.400s: %s: %s", path ? path : w->dir, what, strerror(errno ? errno : EIO));
  w->failed = 1;
  return -1;
}

static int write_pvds(TsrVtkWriter *w) {
  double t0 = tsr_now_seconds();
  int series = w->scene.n_joints > 0 ? 3 : 2;
  for (int k = 0; k < series; k++) {
    char *p = path_of(w, tsr_vtk_series_suffix[k]);
    if (!p) return fail(w, "out of memory", NULL);
    int rc = tsr_vtk_write_pvd(p, w->name, tsr_vtk_series_kind[k], w->time, w->frame, w->n);
    if (rc) {
      fail(w, "cannot write the collection", p);
      free(p);
      return -1;
    }
    free(p);
  }
  w->pvd_frames = w->n;
  w->pvd_last = tsr_now_seconds();
  w->pvd_cost = w->pvd_last - t0;
  return 0;
}

TsrVtkWriter *tsr_vtk_writer_open(const char *dir, const TsrModel *m, char *err, int errlen) {
  if (err && errlen > 0) err[0] = '\0';
  char msg[512];
  if (!*dir) {
    // "" + "/NAME.pvd" would be the file system's root.
    if (err) snprintf(err, (size_t)errlen, "'' is empty, not a folder name");
    return NULL;
  }
  if (tsr_io_make_dir(dir, msg, sizeof msg)) {
    if (err) snprintf(err, (size_t)errlen, "%s", msg);
    return NULL;
  }
  TsrVtkWriter *w = calloc(1, sizeof *w);
  if (w) w->lock = -1;
  if (!w || !(w->dir = strdup(dir))) {
    free(w);
    if (err) snprintf(err, (size_t)errlen, "%s: out of memory", dir);
    return NULL;
  }
  tsr_io_safe_name(m->name, w->name, sizeof w->name);
  char *sub = path_of(w, "");
  int n = m->n_bodies;
  double *x0 = malloc(((size_t)n + 1) * 3 * sizeof *x0), *q0 = malloc(((size_t)n + 1) * 4 * sizeof *q0);
  int J = m->n_joints;
  int32_t *jb = malloc(((size_t)J + 1) * 2 * sizeof *jb);
  int8_t *jt = malloc((size_t)J + 1);
  double *ja = malloc(((size_t)J + 1) * 3 * sizeof *ja), *jc = malloc(((size_t)J + 1) * 3 * sizeof *jc);
  int ok = sub && x0 && q0 && jb && jt && ja && jc;
  if (ok && tsr_vtk_lock_piece_dir(sub, &w->lock, msg, sizeof msg)) {
    if (err) snprintf(err, (size_t)errlen, "%s", msg);
    ok = -1;
  }
  if (ok == 1) {
    for (int i = 0; i < n; i++) {
      const TsrBodyDef *b = &m->bodies[i];
      x0[3 * i] = b->position.x, x0[3 * i + 1] = b->position.y, x0[3 * i + 2] = b->position.z;
      q0[4 * i] = b->orientation.w, q0[4 * i + 1] = b->orientation.x;
      q0[4 * i + 2] = b->orientation.y, q0[4 * i + 3] = b->orientation.z;
    }
    for (int j = 0; j < J; j++) {
      const TsrJointDef *d = &m->joints[j];
      jb[2 * j] = d->body[0], jb[2 * j + 1] = d->body[1];
      jt[j] = (int8_t)d->type;
      TsrVec3 b = d->type == TSR_JOINT_DISTANCE ? d->anchor_b : d->anchor;
      ja[3 * j] = d->anchor.x, ja[3 * j + 1] = d->anchor.y, ja[3 * j + 2] = d->anchor.z;
      jc[3 * j] = b.x, jc[3 * j + 1] = b.y, jc[3 * j + 2] = b.z;
    }
    ok = !tsr_vtk_scene_init(&w->scene, n, m->n_shapes, m->shapes, TSR_VTK_DEFAULT_SEGMENTS) &&
         !tsr_vtk_scene_set_joints(&w->scene, J, jb, jt, ja, jc, x0, q0);
    w->plane_points = malloc(((size_t)w->scene.n_planes + 1) * 12 * sizeof *w->plane_points);
    if (!w->plane_points) ok = 0;
    if (!ok && err) snprintf(err, (size_t)errlen, "%s: out of memory", dir);
    tsr_vtk_box_init(&w->box);
    if (ok) tsr_vtk_box_add(&w->box, &w->scene, x0);
  } else if (ok == 0 && err) {
    snprintf(err, (size_t)errlen, "%s: out of memory", dir);
  }
  free(sub), free(x0), free(q0), free(jb), free(jt), free(ja), free(jc);
  if (ok != 1) {
    tsr_vtk_writer_close(&w);
    return NULL;
  }
  return w;
}

int tsr_vtk_writer_frame(TsrVtkWriter *w, const TsrFrame *f) {
  if (!w) return -1;
  w->error[0] = '\0';
  if (f->n_bodies != w->scene.n_bodies) {
    errno = EINVAL;
    return fail(w, "frame has a different number of bodies than the model", NULL);
  }
  if (w->n == 0) {
    // The earlier export's series goes at the first frame, not at open:
    // `run` opens the writer before it publishes its run file, and a run
    // that backs out then (a signal, a name taken) leaves the folder whole.
    char *sub = path_of(w, ""), msg[512];
    if (!sub) return fail(w, "out of memory", NULL);
    int rc = tsr_vtk_clear_piece_dir(sub, msg, sizeof msg);
    free(sub);
    if (rc) {
      snprintf(w->error, sizeof w->error, "%s", msg);
      w->failed = 1;
      return -1;
    }
  }
  if (w->n == w->cap) {
    long cap = w->cap ? 2 * w->cap : 256;
    double *t = realloc(w->time, (size_t)cap * sizeof *t);
    if (t) w->time = t;
    long *fr = realloc(w->frame, (size_t)cap * sizeof *fr);
    if (fr) w->frame = fr;
    if (!t || !fr) return fail(w, "out of memory", NULL);
    w->cap = cap;
  }
  long k = w->n;
  tsr_vtk_box_add(&w->box, &w->scene, f->position);
  tsr_vtk_plane_points(&w->scene, &w->box, w->plane_points);
  char path[4096];
  tsr_vtk_piece_name(path, sizeof path, w->dir, w->name, "bodies", k);
  if (tsr_vtk_write_bodies(&w->scene, w->plane_points, f, &w->work, path)) return fail(w, "cannot write", path);
  tsr_vtk_piece_name(path, sizeof path, w->dir, w->name, "contacts", k);
  // The full impulse n ln + t1 lt1 + t2 lt2, as export-vtk writes it from
  // the run file (README); this wrote the normal part only.
  const double *tangents = NULL;
  if (f->contact_tangent1 && f->n_contacts > 0) {
    if (f->n_contacts > w->cap_tangents) {
      double *t = realloc(w->tangents, (size_t)f->n_contacts * 6 * sizeof *t);
      if (!t) return fail(w, "out of memory", NULL);
      w->tangents = t, w->cap_tangents = f->n_contacts;
    }
    tsr_vtk_tangent_pairs(f->n_contacts, f->contact_normal, f->contact_tangent1, NULL, w->tangents);
    tangents = w->tangents;
  }
  if (tsr_vtk_write_contacts(f, tangents, &w->work, path)) return fail(w, "cannot write", path);
  if (w->scene.n_joints > 0) {
    tsr_vtk_piece_name(path, sizeof path, w->dir, w->name, "joints", k);
    if (tsr_vtk_write_joints(&w->scene, f, &w->work, path)) return fail(w, "cannot write", path);
  }
  w->time[k] = f->time;
  w->frame[k] = k;
  w->n++;
  double since = tsr_now_seconds() - w->pvd_last;
  if (w->pvd_frames == 0 || (since >= 0.5 && w->pvd_cost <= 0.05 * since)) return write_pvds(w);
  return 0;
}

int tsr_vtk_writer_close(TsrVtkWriter **wp) {
  if (!wp || !*wp) return 0;
  TsrVtkWriter *w = *wp;
  int rc = w->failed ? -1 : 0;
  if (w->n > w->pvd_frames && write_pvds(w)) rc = -1;
  tsr_vtk_scene_free(&w->scene);
  tsr_vtk_work_free(&w->work);
  free(w->plane_points), free(w->time), free(w->frame), free(w->dir), free(w->tangents);
  if (w->lock >= 0) close(w->lock);
  free(w);
  *wp = NULL;
  return rc;
}

const char *tsr_vtk_writer_error(const TsrVtkWriter *w) { return w ? w->error : "no writer"; }
