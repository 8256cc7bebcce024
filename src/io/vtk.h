// SPDX-License-Identifier: MIT
// VTK export for ParaView: Tessera's own writer of XML PolyData (.vtp, raw
// binary appended data, header_type UInt64) and .pvd collections; no libvtk.
//
// Layout of DIR (NAME = the model name with characters other than
// [A-Za-z0-9_.-] replaced by '_'):
//   DIR/NAME.pvd            bodies: one DataSet per frame, timestep = simulated time
//   DIR/NAME_contacts.pvd   contacts (vertices)
//   DIR/NAME_joints.pvd     joints (polylines); only when the model has joints
//   DIR/NAME/bodies_FFFFFF.vtp, contacts_FFFFFF.vtp, joints_FFFFFF.vtp
//                           FFFFFF = index of the frame in the run file
// Each .pvd is a plain ParaView "PVD" file series; open the ones you want
// (File > Open) and show or hide each as a separate pipeline source.
//
// Bodies piece: every shape triangulated in world coordinates (spheres,
// boxes, capsules and cylinders, compound parts separately; planes as a
// square patch sized to the scene). Points Float32. Cell data: `body`
// (Int32, model index), `subsystem` (Int32, /bodies/subsystem), `speed`
// (Float32, |linear velocity| of the body).
//
// Contacts piece: one vertex per contact at /contacts/point. Point data:
// `normal` (3), `impulse_normal` (lambda_n), `impulse_tangent` (2: lambda_t1,
// lambda_t2 as stored), `friction` (|(lambda_t1, lambda_t2)|, independent of
// the tangent basis), `impulse` (3), `depth`, `bodies` (Int32, 2),
// `index_set` (Int8, 3: normal row, then the two friction rows), `interface`
// (Int8: 1 when the normal row's subsystem is -1, 0 otherwise, -1 when the
// file holds no rows for the contact).
// `impulse` is normal*lambda_n + t1*lambda_t1 + t2*lambda_t2 only when the
// tangent directions are known: format 1 does not store them (the contact
// module picks t1 along the sliding velocity, so no rule rebuilds them), so
// from a format-1 file or a TsrFrame `impulse` is the normal part
// normal*lambda_n alone. A run file that adds /contacts/tangent1 [C, 3] (and
// optionally tangent2, else t2 = normal x t1) gets the full vector.
//
// Joints piece: one polyline per joint through 4 points: centre of body 0,
// anchor on body 0, anchor on body 1, centre of body 1 (the world side uses
// its anchor as its "centre"). The middle segment joins the two anchor points
// (zero length when the joint holds). Cell data: `joint` (Int32), `type`
// (Int8, /model/joint_type), `anchor_distance` (Float64, |a1 - a0|),
// `interface` (Int8: 1 when a row of the joint is an interface row, 0 when
// none is, -1 when the file holds no rows for it).
#ifndef TSR_VTK_H
#define TSR_VTK_H

#include "io/run_file.h"
#include "model/model.h"

typedef struct TsrVtkWriter TsrVtkWriter;

// Live export while a run goes on (`tessera run ... --vtk DIR`). Creates DIR
// (and its parents) if missing; fails when DIR is not a directory. NULL on
// failure, message in err. What the writer needs from the model is copied:
// joint anchors are turned into body-frame data from the model's initial poses.
TsrVtkWriter *tsr_vtk_writer_open(const char *dir, const TsrModel *m, char *err, int errlen);
// Writes the pieces of one frame, then (at most every ~0.5 s, and never more
// than ~5% of the wall time) rewrites the .pvd files atomically (temp file +
// rename), so they are valid at every instant. 0 OK, -1 on failure (see
// tsr_vtk_writer_error). Planes are sized to the bodies seen so far.
int tsr_vtk_writer_frame(TsrVtkWriter *w, const TsrFrame *f);
// Rewrites the .pvd files with every frame and frees w (sets *w = NULL).
// 0 OK, -1 when a write failed (now or earlier). NULL or *w == NULL: 0.
int tsr_vtk_writer_close(TsrVtkWriter **w);
// Why the last call returned -1 ("" when none did).
const char *tsr_vtk_writer_error(const TsrVtkWriter *w);

// `tessera export-vtk`: exports the frames of a run file.
typedef struct {
  long every;           // frames whose index in the file is a multiple of every (>= 1)
  double t_from, t_to;  // simulated time window, inclusive (-inf, +inf for all)
  int segments;         // facets around a round shape (0: default 12)
  int (*stop)(void);    // NULL, or asked between frames: nonzero ends the export (-3, no .pvd written)
  // NULL, or told after each frame written: done of total frames, one call at
  // a time (the frames are written by several threads, in no fixed order)
  void (*progress)(void *ctx, long done, long total);
  void *progress_ctx;
} TsrVtkExportOptions;

typedef struct {
  long frames_in_file;
  long frames_written;
  int complete;        // the run file's `complete` attribute
  int joints_written;  // 0 when joints could not be reconstructed (see warning)
  char warning[512];   // non-fatal problems ("" when none), one per line
  char pvd[1024];      // path of the bodies .pvd
} TsrVtkExportResult;

// 0 OK; -1 when the run file cannot be read (err says why; `tessera` exits 2);
// -2 when DIR cannot be made (`tessera` exits 2); -3 when o->stop asked to
// stop; -4 when a piece or .pvd could not be written (exit 1);
// TSR_VTK_RUN_FILE_INVALID when what it reads breaks OUTPUT.md's contract
// (run_file.h, TSR_RUN_FILE_INVALID: err is a whole line, "RUNFILE: error:
// DATASET: WHAT"; exit 2), found before any piece is written, or, for the
// values of a frame, when that frame is read: no .pvd is written then. The
// .pvd files of an earlier export of the same name are removed with its
// pieces before any is written, and the new ones written last: a folder
// left by an export that failed or was stopped has no .pvd naming pieces
// it lacks.
#define TSR_VTK_RUN_FILE_INVALID TSR_RUN_FILE_INVALID
int tsr_vtk_export(const char *run_path, const char *dir, const TsrVtkExportOptions *o, TsrVtkExportResult *res,
                   char *err, int errlen);

#endif
