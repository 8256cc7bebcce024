// SPDX-License-Identifier: MIT
// Pieces shared by the live VTK writer (vtk_writer.c) and `export-vtk`
// (vtk_export.c): the scene (triangulated shapes in body frames, plane
// patches, joint anchors in body frames), the encoders of one frame's .vtp
// pieces, the .pvd writer and directory helpers. Not a public interface.
#ifndef TSR_VTK_INTERNAL_H
#define TSR_VTK_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "io/run_file.h"
#include "model/model.h"

#define TSR_VTK_DEFAULT_SEGMENTS 12

// What a frame needs besides the frame itself; immutable once built, so any
// number of threads may encode frames from it at once.
typedef struct {
  int n_bodies;
  // Surfaces of the non-plane shapes: points in their body's frame.
  int n_points;
  double *local;        // [n_points*3]
  int32_t *point_body;  // [n_points]
  // Planes: one quad each, in world coordinates; their 4 points follow the
  // n_points body points, their 2 triangles follow the body triangles.
  int n_planes;
  double *plane;        // [n_planes*4]: unit normal, offset (n.x = offset)
  int32_t *plane_body;  // [n_planes]
  // Frame-invariant cell arrays, planes included (n_tris = body + 2*planes).
  int n_tris;
  int32_t *conn;        // [n_tris*3]
  int32_t *offsets;     // [n_tris]: 3, 6, 9, ...
  int32_t *tri_body;    // [n_tris]
  double *body_radius;  // [n_bodies]: bounding radius about the body origin, -1 for no (non-plane) shape
  // Joints: anchors on body 0 and body 1, each in its body's frame (world
  // coordinates when the body is -1, the world).
  int n_joints;
  int32_t *joint_body;  // [J*2]
  int8_t *joint_type;   // [J]
  double *joint_local;  // [J*6]
} TsrVtkScene;

// Axis-aligned box that bounds the bodies seen so far (planes are sized to it).
typedef struct {
  double lo[3], hi[3];
  int empty;
} TsrVtkBox;

// Growable bytes plus per-thread scratch: one per thread.
typedef struct {
  char *data;
  size_t len, cap;
  int8_t *count;  // per-contact friction row counter
  size_t count_cap;
} TsrVtkWork;

// shapes[i].body < n_bodies. segments: facets around a round shape (>= 3).
int tsr_vtk_scene_init(TsrVtkScene *s, int n_bodies, int n_shapes, const TsrShapeDef *shapes, int segments);
// anchor_a, anchor_b: [J*3] world at the initial poses x0 [n*3], q0 [n*4] (wxyz).
int tsr_vtk_scene_set_joints(TsrVtkScene *s, int n_joints, const int32_t *body, const int8_t *type,
                             const double *anchor_a, const double *anchor_b, const double *x0, const double *q0);
void tsr_vtk_scene_free(TsrVtkScene *s);

void tsr_vtk_box_init(TsrVtkBox *b);
// Grows b by every body of a frame (centre +- bounding radius); non-finite positions are skipped.
void tsr_vtk_box_add(TsrVtkBox *b, const TsrVtkScene *s, const double *position);
// World points of the plane patches [n_planes*4*3] for the box b.
void tsr_vtk_plane_points(const TsrVtkScene *s, const TsrVtkBox *b, double *out);

// Encode one piece of frame f and write it to path. 0 OK, -1 (errno set) on failure.
// The (t1, t2) pairs tsr_vtk_write_contacts takes, out [C*6], from the
// normals and tangent 1 [C*3] and tangent 2 [C*3] (NULL: normal x tangent 1,
// as the writer defines it: run_file.h).
void tsr_vtk_tangent_pairs(long C, const double *normal, const double *t1, const double *t2, double *out);
// tangents: NULL, or [C*6] (t1, t2) per contact.
int tsr_vtk_write_bodies(const TsrVtkScene *s, const double *plane_points, const TsrFrame *f, TsrVtkWork *w,
                         const char *path);
int tsr_vtk_write_contacts(const TsrFrame *f, const double *tangents, TsrVtkWork *w, const char *path);
int tsr_vtk_write_joints(const TsrVtkScene *s, const TsrFrame *f, TsrVtkWork *w, const char *path);
void tsr_vtk_work_free(TsrVtkWork *w);

// Collection file: entry k is file "<subdir>/<kind>_<frame[k] as %06ld>.vtp" at time[k].
// Written to path.tmp, then renamed over path. 0 OK, -1 (errno set).
int tsr_vtk_write_pvd(const char *path, const char *subdir, const char *kind, const double *time, const long *frame,
                      long n);
void tsr_vtk_piece_name(char *out, size_t len, const char *dir, const char *subdir, const char *kind, long frame);

// tsr_io_make_dir (out_files.h) for DIR/NAME, the pieces' folder, then the pieces an
// earlier export left there removed (KIND_NNNNNN.vtp, KIND bodies, contacts
// or joints; nothing else is touched): the .pvd about to be written will not
// name them, and a folder holding frames of two runs misleads whoever opens
// its pieces by hand. First it takes the folder's lock (an flock on
// DIR/NAME/.lock, its descriptor in *lock; close it when done): a second
// writer into the same DIR/NAME (a run --vtk and an export-vtk at once, two
// exports) is refused with a message; they removed each other's pieces and
// both exited 0 with series naming missing or foreign pieces.
int tsr_vtk_make_piece_dir(const char *sub, int *lock, char *err, int errlen);
// The two halves of it: the folder made and locked, then (once the export
// cannot back out any more: run --vtk at its first frame, after its run file
// is published) the earlier export's series and pieces removed.
int tsr_vtk_lock_piece_dir(const char *sub, int *lock, char *err, int errlen);
int tsr_vtk_clear_piece_dir(const char *sub, char *err, int errlen);

// The three series of an export, DIR/NAME + suffix, and their pieces' kind.
extern const char *const tsr_vtk_series_suffix[3];
extern const char *const tsr_vtk_series_kind[3];

#endif
