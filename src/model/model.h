// SPDX-License-Identifier: MIT
// The loaded model (MODEL.md, format 1): immutable after loading.
//
// Arrays (`count`) are expanded: link[0] .. link[99] are separate bodies, in
// model order. Compound shapes are flattened: each part is one TsrShapeDef
// with its pose in the body frame. Joint anchors and axes stay in world
// coordinates at the initial configuration, as the file gives them; the
// joints module turns them into body-frame data.
#ifndef TSR_MODEL_H
#define TSR_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "math/tsr_math.h"

// A position in the YAML source (1-based line and column).
typedef struct {
  int line, col;
} TsrMark;

typedef enum {
  TSR_SHAPE_SPHERE = 0,
  TSR_SHAPE_BOX = 1,
  TSR_SHAPE_CAPSULE = 2,
  TSR_SHAPE_CYLINDER = 3,
  TSR_SHAPE_PLANE = 4,
} TsrShapeType;

typedef struct {
  int body;  // owning body index
  TsrShapeType type;
  double params[4];  // sphere r; box full sizes x y z; capsule/cylinder r, length; plane nx ny nz offset
  TsrVec3 position;  // pose in the body frame (plane: identity, the plane is in world coordinates)
  TsrQuat orientation;
  TsrMark mark;
} TsrShapeDef;

typedef struct {
  char *name;  // "box", or "link[3]" for array elements
  int fixed;
  double mass;               // 0 for fixed bodies
  TsrMat3 inertia;           // body frame, about the centre of mass (= body origin)
  TsrVec3 position;          // centre of mass, world
  TsrQuat orientation;       // unit
  TsrVec3 velocity;          // world
  TsrVec3 angular_velocity;  // world
  int material;              // index into materials
  char *group;               // semantic partition group or NULL ("chain/3" with group_every)
  int first_shape, shape_count;
  TsrMark mark;
} TsrBodyDef;

typedef enum {
  TSR_JOINT_BALL = 0,
  TSR_JOINT_HINGE,
  TSR_JOINT_UNIVERSAL,
  TSR_JOINT_PRISMATIC,
  TSR_JOINT_FIXED,
  TSR_JOINT_CABLE,
  TSR_JOINT_DISTANCE,
} TsrJointType;

typedef struct {
  char *name;  // "u[7]" for array elements
  TsrJointType type;
  int body[2];       // body indices; -1 for `world`
  TsrVec3 anchor;    // world, initial configuration (distance: anchors[0])
  TsrVec3 anchor_b;  // distance: anchors[1]; others: = anchor
  TsrVec3 axis[2];   // hinge/prismatic: axis[0] (unit); universal: axes (unit, perpendicular)
  int has_limits;
  double limits[2];  // hinge: rad, prismatic: m (relative to the initial configuration)
  int has_motor;
  double motor_speed;          // rad/s or m/s
  double motor_max;            // max_torque or max_force
  double compliance;           // default 1e-10
  double damping;              // in time steps, default 2
  double cable_compliance[3];  // cable: stretch, bend, twist
  double length;               // distance: rest length (default: initial distance)
  int unilateral;              // distance: rope that can go slack
  int collide;                 // default 0
  TsrMark mark;
} TsrJointDef;

typedef struct {
  char *name;
  double friction;
  double compliance;
  double damping;
  TsrMark mark;
} TsrMaterial;

// Overrides for a pair of materials; a NaN field means "not given".
typedef struct {
  int material[2];
  double friction, compliance, damping;
  TsrMark mark;
} TsrMaterialPair;

typedef enum {
  TSR_SOLVER_DIRECT_BPP = 0,
  TSR_SOLVER_PGS,
  TSR_SOLVER_PGS_SM,
  TSR_SOLVER_SCHUR_BPP,
  TSR_SOLVER_SCHUR_PGS_SM,
  TSR_SOLVER_FBIC,
  TSR_SOLVER_COUNT,  // the solvers of model files, `run` and `compare`
  // Solvers of `tessera mlcp solve` only, after the count: a model file
  // cannot name them (solvers/lemke.h: LCPs, a dense tableau).
  TSR_SOLVER_LEMKE = TSR_SOLVER_COUNT,
} TsrSolverType;

// Partitioning methods (src/partition/partition.h describes each). The first
// three keep their values; the seed 003 strategies and METIS follow.
typedef enum {
  TSR_PARTITION_SEMANTIC = 0,
  TSR_PARTITION_MINDP,
  TSR_PARTITION_NONE,
  TSR_PARTITION_MAXDP,
  TSR_PARTITION_BFS,
  TSR_PARTITION_MASS_RATIO,
  TSR_PARTITION_MIX,
  TSR_PARTITION_METIS,
  TSR_PARTITION_COUNT
} TsrPartitionMethod;

// Refinement of an automatic partition at the interface (seed 003 §2.2).
typedef enum {
  TSR_REFINE_NONE = 0,
  TSR_REFINE_KL,  // Kernighan-Lin pair swaps
  TSR_REFINE_FM,  // Fiduccia-Mattheyses single moves
  TSR_REFINE_COUNT
} TsrPartitionRefine;

// Most steps a run may have (settings.steps, or duration / step, or
// --steps / --duration): counts above a billion are typos, and the bound
// keeps every step index exact in int arithmetic and in a double.
#define TSR_MAX_STEPS 1000000000L

// The number of steps of `duration` s at `step` s, rounded to the nearest
// (settings.duration, --duration). Returns 0 with *steps set; -1 when that
// is no step, 1 when it is more than TSR_MAX_STEPS, each with the reason in
// why ("duration ... gives ...", for the caller to locate).
int tsr_model_steps_for(double duration, double step, double *steps, char *why, int whylen);

// Most OpenMP threads a run may ask for (settings.solver.threads, --threads):
// libgomp builds a team's bookkeeping on the stack, and --threads 99999
// crashed inside GOMP_parallel. More threads than cores is allowed (and
// gives the same results), far more is a typo.
#define TSR_MAX_THREADS 1024
// The largest integer a model key (or the option that sets it) takes:
// counts beyond a billion are typos, and the bound keeps int arithmetic safe.
#define TSR_MAX_INT 1000000000L
// settings.solver.max_pivots at most: the restarts of bpp_retry.c give a
// solve up to 8 times the pivot budget, in int.
#define TSR_MAX_PIVOTS 100000000L
// A shape's lengths (radius, length, box edges), m: at most TSR_SHAPE_SIZE_MAX,
// and none below 1 / TSR_SHAPE_ASPECT_MAX of the shape's largest (model/
// shapes.c: what the contact detection can collide).
#define TSR_SHAPE_SIZE_MAX 1e6
#define TSR_SHAPE_ASPECT_MAX 1e9
// A model's name, bytes (UTF-8): the run file's summary holds it whole, so
// export-vtk names its folder as run --vtk does.
#define TSR_MODEL_NAME_MAX 1000

// settings.contact.friction_refresh: its default, and the most re-solves a
// step may make (each is a whole MLCP solve; the bounds need not settle).
#define TSR_FRICTION_REFRESH_DEFAULT 0
#define TSR_FRICTION_REFRESH_MAX 8

typedef struct {
  double step;      // h, default 1/60
  double duration;  // s; steps = round(duration / step) when `steps` is absent
  long steps;       // number of steps to simulate (always filled by the loader)
  TsrVec3 gravity;  // default (0, 0, -9.81)
  struct {
    TsrSolverType type;           // default direct-bpp
    int max_coupling_iterations;  // 0: the solver's own (tsr_world_kmax)
    int max_pivots;               // 50
    double index_tolerance;       // 1e-5
    int iterations;               // 1000
    double tolerance;             // 1e-9
    int warm_start;               // 1
    int threads;                  // 0 = every core
    int geometric_stiffness;      // 1: joint tension stiffens rotation (sim/world.c)
  } solver;
  struct {
    TsrPartitionMethod method;  // default semantic
    TsrPartitionRefine refine;  // default none; applies to the automatic methods
    int max_bodies;             // 16
    int every;                  // 1
    double mass_ratio;          // tau_MR of mass-ratio (seed 003 Eq. 1), > 1; default 10
    double mix_ratio;           // tau_mix of mix (seed 003 Algorithm 1), in (0, 1); default 0.5
  } partitioning;
  struct {
    int max_per_pair;  // 4
    double margin;     // 0
    // Re-solves per step with friction bounds from this step's normal
    // impulses (contact/contact.h, tsr_contact_refresh_friction); 0: Eq. 11
    // as written, lambda_n of the previous step.
    int friction_refresh;  // TSR_FRICTION_REFRESH_DEFAULT
  } contact;
  struct {
    int every;        // 1
    int constraints;  // 1
    int contacts;     // 1
  } output;
} TsrSettings;

typedef struct {
  char *path;    // file as given on the command line
  char *source;  // the YAML text as read
  char *name;
  char *description;  // may be NULL
  TsrSettings settings;
  int n_bodies;
  TsrBodyDef *bodies;
  TsrMark bodies_mark;  // the `bodies` list, or the document's start without one
  int n_shapes;
  TsrShapeDef *shapes;
  int n_joints;
  TsrJointDef *joints;
  int n_materials;  // at least 1: a default material is made when none is given
  TsrMaterial *materials;
  int n_material_pairs;
  TsrMaterialPair *material_pairs;
} TsrModel;

// Diagnostics about user input, each already formatted as
// "FILE:LINE:COL: error: WHAT" (or "FILE: error: WHAT" without a position).
typedef struct {
  int count;
  int cap;
  char **messages;
} TsrDiag;

void tsr_diag_init(TsrDiag *d);
// printf-style; adds one formatted message. mark may be NULL.
void tsr_diag_error(TsrDiag *d, const char *file, const TsrMark *mark, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void tsr_diag_free(TsrDiag *d);

// Loads and validates a model. `overrides` are "KEY=VALUE" strings from
// `--set` (settings.step=0.01, settings.solver.type=pgs, bodies.box.mass=1000,
// joints.top.compliance=1e-8, bodies.link.mass=0.3 for an array), applied to
// the YAML tree before validation, so an override is checked like the file.
// Returns 0 on success; otherwise every problem found is in `diag`, `out` is
// zeroed and nothing needs freeing.
int tsr_model_load(const char *path, const char *const *overrides, int n_overrides, TsrModel *out, TsrDiag *diag);
// Same, from a string in memory (`path` is used in messages only).
int tsr_model_load_string(const char *path, const char *text, size_t len, const char *const *overrides, int n_overrides,
                          TsrModel *out, TsrDiag *diag);
void tsr_model_free(TsrModel *m);

// Index of the body named `name`, or -1.
// Distance from a shape's centre to its farthest point, for the shape grown
// by `grow` on every side (sphere and capsule radius, box half sizes,
// cylinder radius and half length); 0 for a plane.
static inline double tsr_model_shape_bounding_radius(const TsrShapeDef *s, double grow) {
  const double *p = s->params;
  switch (s->type) {
    case TSR_SHAPE_SPHERE:
      return p[0] + grow;
    case TSR_SHAPE_CAPSULE:
      return (p[0] + grow) + 0.5 * p[1];
    case TSR_SHAPE_BOX:
      return 0.5 * sqrt((p[0] + 2 * grow) * (p[0] + 2 * grow) + (p[1] + 2 * grow) * (p[1] + 2 * grow) +
                        (p[2] + 2 * grow) * (p[2] + 2 * grow));
    case TSR_SHAPE_CYLINDER:
      return sqrt((p[0] + grow) * (p[0] + grow) + 0.25 * (p[1] + 2 * grow) * (p[1] + 2 * grow));
    case TSR_SHAPE_PLANE:
      return 0.0;
  }
  return 0.0;
}

int tsr_model_find_body(const TsrModel *m, const char *name);

// The centroid of body b's shapes, weighted by volume (mass split by
// volume, as the default inertia does), in the body frame: where its mass
// is if the parts are uniform. The body origin is taken as the centre of
// mass (the inertia is about it), so a compound whose parts are not
// balanced about its origin moves as if its mass were elsewhere. *size
// receives the largest distance of a part's centre from the origin plus
// its bounding radius (a scale for the offset). Returns 0, or -1 for a body
// without shapes of volume (planes, none).
int tsr_model_body_centroid(const TsrModel *m, int b, TsrVec3 *centroid, double *size);

// The inertia body b would have by default: its solid shapes holding its
// mass, split by volume, about its origin (MODEL.md). Returns 0, or -1 for a
// body without mass or with no shapes or a plane.
int tsr_model_body_shapes_inertia(const TsrModel *m, int b, TsrMat3 *out);

const char *tsr_solver_type_name(TsrSolverType t);
const char *tsr_partition_method_name(TsrPartitionMethod m);
const char *tsr_partition_refine_name(TsrPartitionRefine r);
// -1 when unknown.
int tsr_solver_type_from_name(const char *name);
int tsr_partition_method_from_name(const char *name);
int tsr_partition_refine_from_name(const char *name);
// "mindp", or "mindp+kl" when a refinement applies (automatic methods only):
// the run file's `partitioning` attribute. Writes at most `size` bytes.
const char *tsr_partition_label(const TsrSettings *s, char *buf, size_t size);
// 1 for the methods that compute a partition from the constraint graph
// (everything but semantic and none); refinement applies to these only.
int tsr_partition_method_is_automatic(TsrPartitionMethod m);

#endif
