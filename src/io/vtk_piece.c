// SPDX-License-Identifier: MIT
// VTK XML PolyData pieces of one frame, and .pvd collections.
//
// File format (VTK "XML file formats", version 1.0 with header_type UInt64):
// the XML header lists each DataArray with format="appended" and an offset
// into the appended block; after `<AppendedData encoding="raw">` and a '_'
// come, for each array in the order of the header, an 8-byte little-endian
// byte count and the raw little-endian values. Cells are given by
// `connectivity` (point indices) and `offsets` (end of each cell in
// connectivity). We know every array's size before encoding, so the header
// is written first and each array is filled in place in one buffer, which
// goes to disk in one fwrite.
//
// World point of a shape vertex v (body frame, shape pose applied at scene
// build): p = x + R(q) v, with (x, q) the body's pose in the frame.
#include "io/out_files.h"
#include "io/vtk_internal.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/file.h>
#include <fcntl.h>
#include <sys/types.h>
#include <dirent.h>
#include <unistd.h>

#include "math/tsr_math.h"

// ---------------------------------------------------------------- scene

typedef struct {
  double *p;
  int np, cap_p;
  int32_t *t;
  int nt, cap_t;
  int32_t *pb, *tb;
} MeshBuild;

static int mb_point(MeshBuild *m, int body, TsrVec3 v) {
  if (m->np == m->cap_p) {
    int cap = m->cap_p ? 2 * m->cap_p : 1024;
    double *p = realloc(m->p, (size_t)cap * 3 * sizeof *p);
    int32_t *pb = realloc(m->pb, (size_t)cap * sizeof *pb);
    if (p) m->p = p;
    if (pb) m->pb = pb;
    if (!p || !pb) return -1;
    m->cap_p = cap;
  }
  m->p[3 * m->np] = v.x, m->p[3 * m->np + 1] = v.y, m->p[3 * m->np + 2] = v.z;
  m->pb[m->np] = body;
  return m->np++;
}

static int mb_tri(MeshBuild *m, int body, int a, int b, int c) {
  if (m->nt == m->cap_t) {
    int cap = m->cap_t ? 2 * m->cap_t : 2048;
    int32_t *t = realloc(m->t, (size_t)cap * 3 * sizeof *t);
    int32_t *tb = realloc(m->tb, (size_t)cap * sizeof *tb);
    if (t) m->t = t;
    if (tb) m->tb = tb;
    if (!t || !tb) return -1;
    m->cap_t = cap;
  }
  m->t[3 * m->nt] = a, m->t[3 * m->nt + 1] = b, m->t[3 * m->nt + 2] = c;
  m->tb[m->nt++] = body;
  return 0;
}

// Surface of revolution about z: profile entries (rho, z) from top to bottom;
// rho = 0 is a pole (one point). Triangles wind counter-clockwise seen from
// outside.
static int mb_lathe(MeshBuild *m, const TsrShapeDef *sh, const double (*prof)[2], int n, int seg) {
  int prev = -1, prev_pole = 0, rc = 0;
  for (int k = 0; k < n && !rc; k++) {
    int pole = prof[k][0] == 0.0, first = -1;
    for (int j = 0; j < (pole ? 1 : seg); j++) {
      double phi = 2.0 * M_PI * j / seg;
      TsrVec3 v = tsr_v3(prof[k][0] * cos(phi), prof[k][0] * sin(phi), prof[k][1]);
      int id = mb_point(m, sh->body, tsr_v3_add(sh->position, tsr_q_rotate(sh->orientation, v)));
      if (id < 0) return -1;
      if (j == 0) first = id;
    }
    if (prev >= 0) {
      for (int j = 0; j < seg && !rc; j++) {
        int j1 = (j + 1) % seg;
        if (prev_pole && pole) break;
        if (prev_pole)
          rc = mb_tri(m, sh->body, prev, first + j, first + j1);
        else if (pole)
          rc = mb_tri(m, sh->body, first, prev + j1, prev + j);
        else
          rc = mb_tri(m, sh->body, prev + j, first + j, first + j1) |
               mb_tri(m, sh->body, prev + j, first + j1, prev + j1);
      }
    }
    prev = first, prev_pole = pole;
  }
  return rc;
}

static int mb_shape(MeshBuild *m, const TsrShapeDef *sh, int seg, double *radius) {
  const double *p = sh->params;
  double prof[64][2];
  int n = 0;
  // Rings from pole to equator: 2 at the default 12 segments (a sphere is 72
  // triangles, a capsule 96), so 1000 bodies make ~3 MB a frame.
  int half_rings = seg / 6 > 1 ? seg / 6 : 1;
  if (half_rings > 15) half_rings = 15;
  switch (sh->type) {
    case TSR_SHAPE_SPHERE:
    case TSR_SHAPE_CAPSULE: {
      double r = p[0], h = sh->type == TSR_SHAPE_CAPSULE ? 0.5 * p[1] : 0.0;
      prof[n][0] = 0, prof[n++][1] = h + r;
      for (int i = 1; i <= half_rings; i++) {
        double th = 0.5 * M_PI * i / half_rings;
        prof[n][0] = r * sin(th), prof[n++][1] = h + r * cos(th);
      }
      for (int i = h > 0 ? 0 : 1; i < half_rings; i++) {
        double th = 0.5 * M_PI * (1.0 + (double)i / half_rings);
        prof[n][0] = r * sin(th), prof[n++][1] = -h + r * cos(th);
      }
      prof[n][0] = 0, prof[n++][1] = -h - r;
      *radius = h + r;
      break;
    }
    case TSR_SHAPE_CYLINDER: {
      double r = p[0], h = 0.5 * p[1];
      double pr[4][2] = {{0, h}, {r, h}, {r, -h}, {0, -h}};
      memcpy(prof, pr, sizeof pr);
      n = 4;
      *radius = sqrt(r * r + h * h);
      break;
    }
    case TSR_SHAPE_BOX: {
      static const int quads[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4},
                                      {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
      int base = -1;
      for (int i = 0; i < 8; i++) {
        TsrVec3 v = tsr_v3((i & 1 ? 0.5 : -0.5) * p[0], (i & 2 ? 0.5 : -0.5) * p[1], (i & 4 ? 0.5 : -0.5) * p[2]);
        int id = mb_point(m, sh->body, tsr_v3_add(sh->position, tsr_q_rotate(sh->orientation, v)));
        if (id < 0) return -1;
        if (i == 0) base = id;
      }
      for (int f = 0; f < 6; f++) {
        const int *q = quads[f];
        if (mb_tri(m, sh->body, base + q[0], base + q[1], base + q[2]) ||
            mb_tri(m, sh->body, base + q[0], base + q[2], base + q[3]))
          return -1;
      }
      *radius = 0.5 * sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
      *radius += tsr_v3_norm(sh->position);
      return 0;
    }
    default:
      return 0;
  }
  *radius += tsr_v3_norm(sh->position);
  return mb_lathe(m, sh, (const double(*)[2])prof, n, seg);
}

int tsr_vtk_scene_init(TsrVtkScene *s, int n_bodies, int n_shapes, const TsrShapeDef *shapes, int segments) {
  memset(s, 0, sizeof *s);
  s->n_bodies = n_bodies;
  if (segments < 3) segments = TSR_VTK_DEFAULT_SEGMENTS;
  if (segments > 128) segments = 128;
  MeshBuild m = {0};
  s->body_radius = malloc(((size_t)n_bodies + 1) * sizeof *s->body_radius);
  s->plane = malloc(((size_t)n_shapes + 1) * 4 * sizeof *s->plane);
  s->plane_body = malloc(((size_t)n_shapes + 1) * sizeof *s->plane_body);
  if (!s->body_radius || !s->plane || !s->plane_body) goto fail;
  for (int b = 0; b < n_bodies; b++) s->body_radius[b] = -1;
  for (int g = 0; g < n_shapes; g++) {
    const TsrShapeDef *sh = &shapes[g];
    if (sh->body < 0 || sh->body >= n_bodies) continue;
    if (sh->type == TSR_SHAPE_PLANE) {
      TsrVec3 nrm = tsr_v3(sh->params[0], sh->params[1], sh->params[2]);
      double len = tsr_v3_norm(nrm);
      if (!(len > 0)) continue;
      double *pl = &s->plane[4 * s->n_planes];
      pl[0] = nrm.x / len, pl[1] = nrm.y / len, pl[2] = nrm.z / len, pl[3] = sh->params[3] / len;
      s->plane_body[s->n_planes++] = sh->body;
      continue;
    }
    double r = 0;
    if (mb_shape(&m, sh, segments, &r)) goto fail;
    if (r > s->body_radius[sh->body]) s->body_radius[sh->body] = r;
  }
  for (int k = 0; k < s->n_planes; k++) {
    int base = m.np;
    for (int c = 0; c < 4; c++)
      if (mb_point(&m, s->plane_body[k], tsr_v3(0, 0, 0)) < 0) goto fail;
    if (mb_tri(&m, s->plane_body[k], base, base + 1, base + 2) ||
        mb_tri(&m, s->plane_body[k], base, base + 2, base + 3))
      goto fail;
  }
  s->n_points = m.np - 4 * s->n_planes;
  s->local = m.p, s->point_body = m.pb;
  s->n_tris = m.nt;
  s->conn = m.t, s->tri_body = m.tb;
  m.p = NULL, m.pb = NULL, m.t = NULL, m.tb = NULL;
  s->offsets = malloc(((size_t)s->n_tris + 1) * sizeof *s->offsets);
  if (!s->offsets) goto fail;
  for (int i = 0; i < s->n_tris; i++) s->offsets[i] = 3 * (i + 1);
  return 0;
fail:
  free(m.p), free(m.pb), free(m.t), free(m.tb);
  tsr_vtk_scene_free(s);
  return -1;
}

int tsr_vtk_scene_set_joints(TsrVtkScene *s, int n_joints, const int32_t *body, const int8_t *type,
                             const double *anchor_a, const double *anchor_b, const double *x0, const double *q0) {
  free(s->joint_body), free(s->joint_type), free(s->joint_local);
  s->n_joints = 0;
  s->joint_body = malloc(((size_t)n_joints + 1) * 2 * sizeof *s->joint_body);
  s->joint_type = malloc((size_t)n_joints + 1);
  s->joint_local = malloc(((size_t)n_joints + 1) * 6 * sizeof *s->joint_local);
  if (!s->joint_body || !s->joint_type || !s->joint_local) return -1;
  for (int j = 0; j < n_joints; j++) {
    s->joint_type[j] = type[j];
    for (int k = 0; k < 2; k++) {
      int b = body[2 * j + k];
      if (b >= s->n_bodies) b = -1;
      s->joint_body[2 * j + k] = b;
      const double *a = k ? &anchor_b[3 * j] : &anchor_a[3 * j];
      TsrVec3 v = tsr_v3(a[0], a[1], a[2]);
      if (b >= 0) {
        TsrQuat q = tsr_q_normalize((TsrQuat){q0[4 * b], q0[4 * b + 1], q0[4 * b + 2], q0[4 * b + 3]});
        v = tsr_q_rotate_inv(q, tsr_v3_sub(v, tsr_v3(x0[3 * b], x0[3 * b + 1], x0[3 * b + 2])));
      }
      double *l = &s->joint_local[6 * j + 3 * k];
      l[0] = v.x, l[1] = v.y, l[2] = v.z;
    }
  }
  s->n_joints = n_joints;
  return 0;
}

void tsr_vtk_scene_free(TsrVtkScene *s) {
  free(s->local), free(s->point_body), free(s->plane), free(s->plane_body), free(s->conn), free(s->offsets);
  free(s->tri_body), free(s->body_radius), free(s->joint_body), free(s->joint_type), free(s->joint_local);
  memset(s, 0, sizeof *s);
}

void tsr_vtk_box_init(TsrVtkBox *b) {
  memset(b, 0, sizeof *b);
  b->empty = 1;
}

void tsr_vtk_box_add(TsrVtkBox *b, const TsrVtkScene *s, const double *position) {
  for (int i = 0; i < s->n_bodies; i++) {
    double r = s->body_radius[i];
    const double *x = &position[3 * i];
    if (r < 0 || !isfinite(x[0]) || !isfinite(x[1]) || !isfinite(x[2])) continue;
    for (int c = 0; c < 3; c++) {
      if (b->empty || x[c] - r < b->lo[c]) b->lo[c] = x[c] - r;
      if (b->empty || x[c] + r > b->hi[c]) b->hi[c] = x[c] + r;
    }
    b->empty = 0;
  }
}

// The patch is the box's shadow on the plane, padded by 10% of its size + 0.5 m
// (a 1 m square about the plane's origin when there is nothing to bound).
void tsr_vtk_plane_points(const TsrVtkScene *s, const TsrVtkBox *b, double *out) {
  for (int k = 0; k < s->n_planes; k++) {
    const double *pl = &s->plane[4 * k];
    TsrVec3 n = tsr_v3(pl[0], pl[1], pl[2]), t1, t2;
    tsr_v3_basis(n, &t1, &t2);
    TsrVec3 o = tsr_v3_scale(n, pl[3]);
    double u0 = 0, u1 = 0, v0 = 0, v1 = 0;
    if (!b->empty) {
      u0 = v0 = INFINITY, u1 = v1 = -INFINITY;
      for (int c = 0; c < 8; c++) {
        TsrVec3 p = tsr_v3(c & 1 ? b->hi[0] : b->lo[0], c & 2 ? b->hi[1] : b->lo[1], c & 4 ? b->hi[2] : b->lo[2]);
        double u = tsr_v3_dot(p, t1), v = tsr_v3_dot(p, t2);
        u0 = fmin(u0, u), u1 = fmax(u1, u), v0 = fmin(v0, v), v1 = fmax(v1, v);
      }
    }
    double pad = 0.1 * fmax(u1 - u0, v1 - v0) + 0.5;
    u0 -= pad, u1 += pad, v0 -= pad, v1 += pad;
    const double uv[4][2] = {{u0, v0}, {u1, v0}, {u1, v1}, {u0, v1}};
    for (int c = 0; c < 4; c++) {
      TsrVec3 p = tsr_v3_add(tsr_v3_add(o, tsr_v3_scale(t1, uv[c][0])), tsr_v3_scale(t2, uv[c][1]));
      out[12 * k + 3 * c] = p.x, out[12 * k + 3 * c + 1] = p.y, out[12 * k + 3 * c + 2] = p.z;
    }
  }
}

// ---------------------------------------------------------------- pieces

typedef struct {
  const char *name;  // NULL for Points
  const char *type;  // Int8, Int32, Float32, Float64
  int ncomp;
  size_t tuples;
  char *dst;  // set by piece_begin: where the values go
} Arr;

typedef struct {
  size_t n_points, n_cells;
  const char *cells;  // "Verts", "Lines", "Polys"
  int n_pd, n_cd;
  Arr pd[10], cd[6];
  Arr points, conn, offs;
} Piece;

static size_t type_size(const char *t) {
  return !strcmp(t, "Int8") || !strcmp(t, "UInt8") ? 1 : !strcmp(t, "Float64") || !strcmp(t, "Int64") ? 8 : 4;
}

static size_t arr_bytes(const Arr *a) { return a->tuples * (size_t)a->ncomp * type_size(a->type); }

static int work_reserve(TsrVtkWork *w, size_t extra) {
  if (w->len + extra <= w->cap) return 0;
  size_t cap = w->cap ? w->cap : 1 << 16;
  while (cap < w->len + extra) cap *= 2;
  char *d = realloc(w->data, cap);
  if (!d) return -1;
  w->data = d, w->cap = cap;
  return 0;
}

static void work_printf(TsrVtkWork *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void work_printf(TsrVtkWork *w, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(w->data + w->len, w->cap - w->len, fmt, ap);
  va_end(ap);
  if (n > 0) w->len += (size_t)n < w->cap - w->len ? (size_t)n : w->cap - w->len - 1;
}

static void xml_array(TsrVtkWork *w, const Arr *a, uint64_t *off) {
  work_printf(w, "        <DataArray type=\"%s\"", a->type);
  if (a->name) work_printf(w, " Name=\"%s\"", a->name);
  if (a->ncomp > 1) work_printf(w, " NumberOfComponents=\"%d\"", a->ncomp);
  work_printf(w, " format=\"appended\" offset=\"%llu\"/>\n", (unsigned long long)*off);
  *off += 8 + arr_bytes(a);
}

// Writes the XML header into w and reserves every array's block; sets each
// Arr.dst. Arrays are laid out in header order: point data, cell data,
// points, connectivity, offsets.
static int piece_begin(TsrVtkWork *w, Piece *p) {
  Arr *all[20];
  int n = 0;
  for (int i = 0; i < p->n_pd; i++) all[n++] = &p->pd[i];
  for (int i = 0; i < p->n_cd; i++) all[n++] = &p->cd[i];
  all[n++] = &p->points, all[n++] = &p->conn, all[n++] = &p->offs;
  size_t data = 0;
  for (int i = 0; i < n; i++) data += 8 + arr_bytes(all[i]);
  w->len = 0;
  if (work_reserve(w, 4096 + 256 * (size_t)n + data + 64)) return -1;
  uint64_t off = 0;
  work_printf(w,
              "<?xml version=\"1.0\"?>\n"
              "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
              "  <PolyData>\n"
              "    <Piece NumberOfPoints=\"%zu\" NumberOfVerts=\"%zu\" NumberOfLines=\"%zu\" NumberOfStrips=\"0\" "
              "NumberOfPolys=\"%zu\">\n",
              p->n_points, !strcmp(p->cells, "Verts") ? p->n_cells : 0, !strcmp(p->cells, "Lines") ? p->n_cells : 0,
              !strcmp(p->cells, "Polys") ? p->n_cells : 0);
  work_printf(w, "      <PointData>\n");
  for (int i = 0; i < p->n_pd; i++) xml_array(w, &p->pd[i], &off);
  work_printf(w, "      </PointData>\n      <CellData>\n");
  for (int i = 0; i < p->n_cd; i++) xml_array(w, &p->cd[i], &off);
  work_printf(w, "      </CellData>\n      <Points>\n");
  xml_array(w, &p->points, &off);
  work_printf(w, "      </Points>\n      <%s>\n", p->cells);
  xml_array(w, &p->conn, &off);
  xml_array(w, &p->offs, &off);
  work_printf(w, "      </%s>\n    </Piece>\n  </PolyData>\n  <AppendedData encoding=\"raw\">\n   _", p->cells);
  for (int i = 0; i < n; i++) {
    uint64_t bytes = arr_bytes(all[i]);
    memcpy(w->data + w->len, &bytes, 8);  // little-endian hosts only (x86-64, aarch64)
    all[i]->dst = w->data + w->len + 8;
    w->len += 8 + bytes;
  }
  return 0;
}

static int piece_finish(TsrVtkWork *w, const char *path) {
  static const char tail[] = "\n  </AppendedData>\n</VTKFile>\n";
  memcpy(w->data + w->len, tail, sizeof tail - 1);
  w->len += sizeof tail - 1;
  FILE *fp = fopen(path, "wb");
  if (!fp) return -1;
  size_t put = fwrite(w->data, 1, w->len, fp);
  int bad = put != w->len || ferror(fp);
  if (fclose(fp) || bad) {
    if (!errno) errno = EIO;
    return -1;
  }
  return 0;
}

// Stores through memcpy: array blocks follow 8-byte headers at arbitrary offsets.
static inline void put_f32(char *d, size_t i, double v) {
  float x = (float)v;
  memcpy(d + 4 * i, &x, 4);
}
static inline void put_f64(char *d, size_t i, double v) { memcpy(d + 8 * i, &v, 8); }
static inline void put_i32(char *d, size_t i, int32_t v) { memcpy(d + 4 * i, &v, 4); }

#define ARR(n, t, c, k) ((Arr){.name = (n), .type = (t), .ncomp = (c), .tuples = (k)})

int tsr_vtk_write_bodies(const TsrVtkScene *s, const double *plane_points, const TsrFrame *f, TsrVtkWork *w,
                         const char *path) {
  size_t np = (size_t)s->n_points + 4 * (size_t)s->n_planes, nt = (size_t)s->n_tris;
  Piece p = {.n_points = np, .n_cells = nt, .cells = "Polys", .n_cd = 3};
  p.cd[0] = ARR("body", "Int32", 1, nt);
  p.cd[1] = ARR("subsystem", "Int32", 1, nt);
  p.cd[2] = ARR("speed", "Float32", 1, nt);
  p.points = ARR(NULL, "Float32", 3, np);
  p.conn = ARR("connectivity", "Int32", 1, 3 * nt);
  p.offs = ARR("offsets", "Int32", 1, nt);
  if (f->n_bodies != s->n_bodies) {
    errno = EINVAL;
    return -1;
  }
  if (piece_begin(w, &p)) return -1;
  if (nt) {  // (no triangles: shapes of size 0 in a damaged file; memcpy of NULL is undefined)
    memcpy(p.cd[0].dst, s->tri_body, nt * 4);
    memcpy(p.conn.dst, s->conn, 3 * nt * 4);
    memcpy(p.offs.dst, s->offsets, nt * 4);
  }
  for (size_t t = 0; t < nt; t++) {
    int b = s->tri_body[t];
    const double *v = &f->velocity[6 * b];
    put_i32(p.cd[1].dst, t, f->body_subsystem[b]);
    put_f32(p.cd[2].dst, t, sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
  }
  // Body points: one rotation matrix per run of points of the same body.
  int cur = -1;
  TsrMat3 R = tsr_m3_zero();
  TsrVec3 x = tsr_v3(0, 0, 0);
  for (int i = 0; i < s->n_points; i++) {
    int b = s->point_body[i];
    if (b != cur) {
      const double *q = &f->orientation[4 * b];
      R = tsr_m3_from_quat((TsrQuat){q[0], q[1], q[2], q[3]});
      x = tsr_v3(f->position[3 * b], f->position[3 * b + 1], f->position[3 * b + 2]);
      cur = b;
    }
    TsrVec3 pw = tsr_v3_add(x, tsr_m3_mulv(R, tsr_v3(s->local[3 * i], s->local[3 * i + 1], s->local[3 * i + 2])));
    put_f32(p.points.dst, 3 * (size_t)i, pw.x);
    put_f32(p.points.dst, 3 * (size_t)i + 1, pw.y);
    put_f32(p.points.dst, 3 * (size_t)i + 2, pw.z);
  }
  for (int i = 0; i < 12 * s->n_planes; i++)
    put_f32(p.points.dst, 3 * (size_t)s->n_points + (size_t)i, plane_points[i]);
  return piece_finish(w, path);
}

int tsr_vtk_write_contacts(const TsrFrame *f, const double *tangents, TsrVtkWork *w, const char *path) {
  size_t C = f->n_contacts > 0 ? (size_t)f->n_contacts : 0;
  Piece p = {.n_points = C, .n_cells = C, .cells = "Verts", .n_pd = 9};
  p.pd[0] = ARR("normal", "Float64", 3, C);
  p.pd[1] = ARR("impulse", "Float64", 3, C);
  p.pd[2] = ARR("impulse_normal", "Float64", 1, C);
  p.pd[3] = ARR("impulse_tangent", "Float64", 2, C);
  p.pd[4] = ARR("depth", "Float64", 1, C);
  p.pd[5] = ARR("bodies", "Int32", 2, C);
  p.pd[6] = ARR("index_set", "Int8", 3, C);
  p.pd[7] = ARR("interface", "Int8", 1, C);
  p.pd[8] = ARR("friction", "Float64", 1, C);
  p.points = ARR(NULL, "Float64", 3, C);
  p.conn = ARR("connectivity", "Int32", 1, C);
  p.offs = ARR("offsets", "Int32", 1, C);
  if (C > w->count_cap) {
    int8_t *c = realloc(w->count, C);
    if (!c) return -1;
    w->count = c, w->count_cap = C;
  }
  if (piece_begin(w, &p)) return -1;
  if (C) {
    memcpy(p.pd[0].dst, f->contact_normal, C * 24);
    memcpy(p.pd[4].dst, f->contact_depth, C * 8);
    memcpy(p.pd[5].dst, f->contact_body, C * 8);
    memcpy(p.points.dst, f->contact_point, C * 24);
    memset(p.pd[6].dst, 0, 3 * C);
    memset(p.pd[7].dst, -1, C);
    memset(w->count, 0, C);
  }
  for (size_t c = 0; c < C; c++) {
    const double *n = &f->contact_normal[3 * c], *lam = &f->contact_impulse[3 * c];
    // Without the tangent directions the friction part cannot be placed:
    // the vector is then the normal part alone (impulse_tangent keeps the rest).
    TsrVec3 J = tsr_v3_scale(tsr_v3(n[0], n[1], n[2]), lam[0]);
    if (tangents) {
      TsrVec3 t1 = tsr_v3(tangents[6 * c], tangents[6 * c + 1], tangents[6 * c + 2]);
      TsrVec3 t2 = tsr_v3(tangents[6 * c + 3], tangents[6 * c + 4], tangents[6 * c + 5]);
      J = tsr_v3_add(J, tsr_v3_add(tsr_v3_scale(t1, lam[1]), tsr_v3_scale(t2, lam[2])));
    }
    put_f64(p.pd[1].dst, 3 * c, J.x), put_f64(p.pd[1].dst, 3 * c + 1, J.y), put_f64(p.pd[1].dst, 3 * c + 2, J.z);
    put_f64(p.pd[2].dst, c, lam[0]);
    put_f64(p.pd[3].dst, 2 * c, lam[1]), put_f64(p.pd[3].dst, 2 * c + 1, lam[2]);
    put_f64(p.pd[8].dst, c, hypot(lam[1], lam[2]));
    put_i32(p.conn.dst, c, (int32_t)c);
    put_i32(p.offs.dst, c, (int32_t)c + 1);
  }
  for (int r = 0; r < f->n_rows; r++) {
    int type = f->row_type[r], c = f->row_source[r];
    if ((type != 1 && type != 2) || c < 0 || (size_t)c >= C) continue;
    if (type == 1) {
      p.pd[6].dst[3 * (size_t)c] = (char)f->row_index_set[r];
      p.pd[7].dst[c] = f->row_subsystem[r] == -1;
    } else if (w->count[c] < 2) {
      p.pd[6].dst[3 * (size_t)c + 1 + w->count[c]++] = (char)f->row_index_set[r];
    }
  }
  return piece_finish(w, path);
}

int tsr_vtk_write_joints(const TsrVtkScene *s, const TsrFrame *f, TsrVtkWork *w, const char *path) {
  size_t J = (size_t)s->n_joints;
  Piece p = {.n_points = 4 * J, .n_cells = J, .cells = "Lines", .n_cd = 4};
  p.cd[0] = ARR("joint", "Int32", 1, J);
  p.cd[1] = ARR("type", "Int8", 1, J);
  p.cd[2] = ARR("anchor_distance", "Float64", 1, J);
  p.cd[3] = ARR("interface", "Int8", 1, J);
  p.points = ARR(NULL, "Float64", 3, 4 * J);
  p.conn = ARR("connectivity", "Int32", 1, 4 * J);
  p.offs = ARR("offsets", "Int32", 1, J);
  if (piece_begin(w, &p)) return -1;
  if (J) {
    memcpy(p.cd[1].dst, s->joint_type, J);
    memset(p.cd[3].dst, -1, J);
  }
  for (size_t j = 0; j < J; j++) {
    TsrVec3 pt[4];
    for (int k = 0; k < 2; k++) {
      int b = s->joint_body[2 * j + k];
      const double *l = &s->joint_local[6 * j + 3 * k];
      TsrVec3 a = tsr_v3(l[0], l[1], l[2]), c = a;
      if (b >= 0 && b < f->n_bodies) {
        const double *q = &f->orientation[4 * b];
        c = tsr_v3(f->position[3 * b], f->position[3 * b + 1], f->position[3 * b + 2]);
        a = tsr_v3_add(c, tsr_q_rotate((TsrQuat){q[0], q[1], q[2], q[3]}, a));
      }
      pt[k ? 3 : 0] = c, pt[k ? 2 : 1] = a;
    }
    for (int k = 0; k < 4; k++) {
      put_f64(p.points.dst, 12 * j + 3 * (size_t)k, pt[k].x);
      put_f64(p.points.dst, 12 * j + 3 * (size_t)k + 1, pt[k].y);
      put_f64(p.points.dst, 12 * j + 3 * (size_t)k + 2, pt[k].z);
      put_i32(p.conn.dst, 4 * j + (size_t)k, (int32_t)(4 * j + (size_t)k));
    }
    put_i32(p.cd[0].dst, j, (int32_t)j);
    put_f64(p.cd[2].dst, j, tsr_v3_norm(tsr_v3_sub(pt[2], pt[1])));
    put_i32(p.offs.dst, j, (int32_t)(4 * j + 4));
  }
  for (int r = 0; r < f->n_rows; r++) {
    int type = f->row_type[r], j = f->row_source[r];
    if ((type != 0 && type != 3 && type != 4) || j < 0 || (size_t)j >= J) continue;
    if (f->row_subsystem[r] == -1)
      p.cd[3].dst[j] = 1;
    else if (p.cd[3].dst[j] == -1)
      p.cd[3].dst[j] = 0;
  }
  return piece_finish(w, path);
}

void tsr_vtk_work_free(TsrVtkWork *w) {
  free(w->data), free(w->count);
  memset(w, 0, sizeof *w);
}

// ---------------------------------------------------------------- collections, names, directories

void tsr_vtk_piece_name(char *out, size_t len, const char *dir, const char *subdir, const char *kind, long frame) {
  if (dir)
    snprintf(out, len, "%s/%s/%s_%06ld.vtp", dir, subdir, kind, frame);
  else
    snprintf(out, len, "%s/%s_%06ld.vtp", subdir, kind, frame);
}

int tsr_vtk_write_pvd(const char *path, const char *subdir, const char *kind, const double *time, const long *frame,
                      long n) {
  size_t len = strlen(path) + 8;
  char *tmp = malloc(len);
  if (!tmp) return -1;
  snprintf(tmp, len, "%s.tmp", path);
  FILE *fp = fopen(tmp, "w");
  if (!fp) {
    free(tmp);
    return -1;
  }
  fputs(
      "<?xml version=\"1.0\"?>\n"
      "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
      "  <Collection>\n",
      fp);
  char name[512];
  for (long k = 0; k < n; k++) {
    tsr_vtk_piece_name(name, sizeof name, NULL, subdir, kind, frame[k]);
    fprintf(fp, "    <DataSet timestep=\"%.17g\" part=\"0\" file=\"%s\"/>\n", time[k], name);
  }
  fputs("  </Collection>\n</VTKFile>\n", fp);
  int bad = ferror(fp);
  if (fclose(fp) || bad || rename(tmp, path)) {
    int e = errno ? errno : EIO;
    remove(tmp);
    free(tmp);
    errno = e;
    return -1;
  }
  free(tmp);
  return 0;
}

void tsr_vtk_tangent_pairs(long C, const double *normal, const double *t1, const double *t2, double *out) {
  for (long c = 0; c < C; c++) {
    TsrVec3 n = tsr_v3(normal[3 * c], normal[3 * c + 1], normal[3 * c + 2]);
    TsrVec3 a = tsr_v3(t1[3 * c], t1[3 * c + 1], t1[3 * c + 2]);
    TsrVec3 b = t2 ? tsr_v3(t2[3 * c], t2[3 * c + 1], t2[3 * c + 2]) : tsr_v3_cross(n, a);
    double *o = &out[6 * c];
    o[0] = a.x, o[1] = a.y, o[2] = a.z, o[3] = b.x, o[4] = b.y, o[5] = b.z;
  }
}

// KIND_NNNNNN.vtp with KIND one of ours and at least 6 digits (tsr_vtk_piece_name).
static int is_piece(const char *f) {
  static const char *const kinds[] = {"bodies_", "contacts_", "joints_", NULL};
  for (int k = 0; kinds[k]; k++) {
    size_t n = strlen(kinds[k]);
    if (strncmp(f, kinds[k], n)) continue;
    const char *d = f + n;
    size_t digits = strspn(d, "0123456789");
    return digits >= 6 && !strcmp(d + digits, ".vtp");
  }
  return 0;
}

const char *const tsr_vtk_series_suffix[3] = {".pvd", "_contacts.pvd", "_joints.pvd"};
const char *const tsr_vtk_series_kind[3] = {"bodies", "contacts", "joints"};

int tsr_vtk_make_piece_dir(const char *sub, int *lock, char *err, int errlen) {
  if (tsr_vtk_lock_piece_dir(sub, lock, err, errlen)) return -1;
  if (tsr_vtk_clear_piece_dir(sub, err, errlen)) {
    close(*lock);
    *lock = -1;
    return -1;
  }
  return 0;
}

int tsr_vtk_lock_piece_dir(const char *sub, int *lock, char *err, int errlen) {
  *lock = -1;
  if (tsr_io_make_dir(sub, err, errlen)) return -1;
  char lp[4096];
  snprintf(lp, sizeof lp, "%s/.lock", sub);
  int fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    snprintf(err, (size_t)errlen, "%s: cannot create: %s", lp, strerror(errno));
    return -1;
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    close(fd);
    snprintf(err, (size_t)errlen, "%s: %s", sub,
             e == EWOULDBLOCK ? "another export (run --vtk or export-vtk) is writing into this folder" : strerror(e));
    return -1;
  }
  *lock = fd;
  return 0;
}

int tsr_vtk_clear_piece_dir(const char *sub, char *err, int errlen) {
  // The earlier export's .pvd files first (sub is DIR/NAME: DIR/NAME.pvd,
  // ...): a new export that stops part way leaves none naming the pieces
  // removed below (they named 1,765 missing pieces after an interrupted
  // re-export).
  for (int k = 0; k < 3; k++) {
    char pvd[4096];
    snprintf(pvd, sizeof pvd, "%s%s", sub, tsr_vtk_series_suffix[k]);
    if (unlink(pvd) != 0 && errno != ENOENT) {
      snprintf(err, (size_t)errlen, "%s: cannot remove an earlier export's series: %s", pvd, strerror(errno));
      return -1;
    }
  }
  DIR *d = opendir(sub);
  if (!d) {
    snprintf(err, (size_t)errlen, "%s: cannot read directory: %s", sub, strerror(errno));
    return -1;
  }
  size_t len = strlen(sub);
  int rc = 0;
  for (struct dirent *e; (e = readdir(d)) && !rc;) {
    if (!is_piece(e->d_name)) continue;
    size_t n = len + strlen(e->d_name) + 2;
    char *path = malloc(n);
    if (!path) {
      snprintf(err, (size_t)errlen, "%s: out of memory", sub);
      rc = -1;
      break;
    }
    snprintf(path, n, "%s/%s", sub, e->d_name);
    if (unlink(path) != 0 && errno != ENOENT) {
      snprintf(err, (size_t)errlen, "%s: cannot remove an earlier export's piece: %s", path, strerror(errno));
      rc = -1;
    }
    free(path);
  }
  closedir(d);
  return rc;
}
