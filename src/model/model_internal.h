// SPDX-License-Identifier: MIT
// Internals of the model loader, shared by the files of src/model/ only.
//
// Loading runs in three passes over one small tree:
//   1. yaml_tree.c  libyaml events -> TsrYNode tree; every node keeps its mark
//                   and the "file" it came from (the model path, or the text
//                   of a --set override), so any later pass can say where.
//   2. overrides.c  --set KEY=VALUE edits the tree, before any checking, so an
//                   override is validated exactly like the file.
//   3. load.c, bodies.c, joints.c, shapes.c  check the tree and build TsrModel,
//                   reporting every problem and carrying on where they can.
#ifndef TSR_MODEL_INTERNAL_H
#define TSR_MODEL_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>

#include "model/model.h"

// ---------------------------------------------------------------- YAML tree

typedef enum { TSR_YNODE_SCALAR, TSR_YNODE_SEQ, TSR_YNODE_MAP } TsrYNodeKind;

typedef struct TsrYNode {
  TsrYNodeKind kind;
  TsrMark mark;
  const char *file;  // not owned: the model path or an override label
  // Scalars. `plain` is 0 for quoted and block scalars: those are always
  // strings, never numbers, booleans or null. (Tags are refused.)
  char *value;
  int plain;
  // Sequences: items[0..n). Mappings: keys[i] (scalars) -> items[i].
  int n, cap;
  struct TsrYNode **items;
  struct TsrYNode **keys;
} TsrYNode;

// Parses one YAML document. Returns 0 and the root in *root (NULL for an
// empty document), or -1 after reporting the problem to diag with `file` as
// the name. `line0`/`col0` are added to every mark (0 for a whole file; the
// override code parses a value that starts in the middle of a line).
int tsr_ytree_parse(const char *file, const char *text, size_t len, int line0, int col0, TsrYNode **root,
                    TsrDiag *diag);
void tsr_ytree_free(TsrYNode *n);
TsrYNode *tsr_ytree_new(TsrYNodeKind kind, const char *file, TsrMark mark);
TsrYNode *tsr_ytree_new_scalar(const char *file, TsrMark mark, const char *value, int plain);
// Appends (mappings: key -> value; the key node is taken over).
void tsr_ytree_append(TsrYNode *seq, TsrYNode *item);
void tsr_ytree_map_put(TsrYNode *map, TsrYNode *key, TsrYNode *value);
// Index of `key` in a mapping, or -1.
int tsr_ytree_find(const TsrYNode *map, const char *key);
// The value of `key` in a mapping, or NULL (also when map is not a mapping).
const TsrYNode *tsr_ytree_get(const TsrYNode *map, const char *key);
// Removes entry i of a mapping and frees its key and value.
void tsr_ytree_map_remove(TsrYNode *map, int i);

// What a scalar means under the YAML 1.2 core schema.
typedef enum { TSR_YSCALAR_NULL, TSR_YSCALAR_BOOL, TSR_YSCALAR_NUMBER, TSR_YSCALAR_STRING } TsrYScalarType;
TsrYScalarType tsr_ytree_scalar_type(const TsrYNode *n, double *number, int *boolean);
// "a string", "a number", "a sequence", ... for "expected X, got Y".
const char *tsr_ytree_describe(const TsrYNode *n);

// ---------------------------------------------------------------- names

// Edit distance (optimal string alignment), capped: returns > cap early.
int tsr_model_edit_distance(const char *a, const char *b, int cap);
// The candidate closest to `word` when it is close enough to be a likely
// typo, else NULL.
const char *tsr_model_suggest(const char *word, const char *const *candidates, int n);
// Writes " (did you mean 'X'?)" or "" into buf.
const char *tsr_model_did_you_mean(char *buf, size_t size, const char *word, const char *const *candidates, int n);

// ---------------------------------------------------------------- checking

typedef struct {
  TsrDiag *diag;
  const char *path;
  char where[192];  // "body 'box'": prefixed to messages while checking an item
  int errors;
  int shape_cap, body_cap, joint_cap;  // allocated lengths of the model's arrays
  // Messages are held back and flushed in file order (line, column) so a
  // user reads them top to bottom, whichever pass found them.
  TsrDiag pending;
  long *order;  // per pending message: sort key
  int order_cap;
} TsrLoadCtx;

// Moves the pending messages into c->diag, sorted; frees the buffers.
void tsr_model_flush(TsrLoadCtx *c);

#define TSR_MODEL_MAX_ERRORS 200

// Reports an error located at node `at` (its file and mark); `at` may be NULL.
void tsr_model_error(TsrLoadCtx *c, const TsrYNode *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void tsr_model_where(TsrLoadCtx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// Reports keys of `map` not in the NULL-terminated `allowed`. Returns 0 when
// `map` is not a mapping (reported as "expected a mapping").
int tsr_model_check_map(TsrLoadCtx *c, const TsrYNode *map, const char *what, const char *const *allowed);
// The value of a required key; reports it missing (at the mapping) otherwise.
const TsrYNode *tsr_model_require(TsrLoadCtx *c, const TsrYNode *map, const char *key);

// TSR_NUM_INVERTIBLE: positive and at least DBL_MIN, for a quantity the
// simulation divides by (a mass): 1 / 1e-320 is inf, and a subnormal has
// lost digits of its own.
typedef enum { TSR_NUM_ANY, TSR_NUM_POSITIVE, TSR_NUM_NONNEG, TSR_NUM_INVERTIBLE } TsrNumRange;

// The enumerated names of the model format, in the order of TsrSolverType,
// TsrPartitionMethod and TsrPartitionRefine (names.c).
extern const char *const tsr_solver_names[TSR_SOLVER_COUNT];
extern const char *const tsr_partition_names[TSR_PARTITION_COUNT];
extern const char *const tsr_refine_names[TSR_REFINE_COUNT];

// Value readers: `n` is the value node. They return 1 and set *out when the
// value is valid, 0 after reporting the problem (leaving *out unchanged).
int tsr_model_number(TsrLoadCtx *c, const TsrYNode *n, const char *key, TsrNumRange range, double *out);
// An integer in min..max; max at most TSR_MAX_INT (model.h: say so for no
// bound of the key's own).
int tsr_model_int(TsrLoadCtx *c, const TsrYNode *n, const char *key, long min, long max, long *out);
int tsr_model_bool(TsrLoadCtx *c, const TsrYNode *n, const char *key, int *out);
int tsr_model_string(TsrLoadCtx *c, const TsrYNode *n, const char *key, const char **out);
// A sequence of exactly 3 finite numbers; `nonzero` rejects the zero vector.
int tsr_model_vec3(TsrLoadCtx *c, const TsrYNode *n, const char *key, int nonzero, TsrVec3 *out);
// A quaternion [w, x, y, z] (normalised) or {axis, angle | angle_deg}.
int tsr_model_orientation(TsrLoadCtx *c, const TsrYNode *n, TsrQuat *out);
// One of names[0..count); the index in *out.
int tsr_model_enum(TsrLoadCtx *c, const TsrYNode *n, const char *what, const char *const *names, int count, int *out);

// The same for an optional key of `map`: return -1 when absent (out untouched).
int tsr_model_opt_number(TsrLoadCtx *c, const TsrYNode *map, const char *key, TsrNumRange range, double *out);
int tsr_model_opt_int(TsrLoadCtx *c, const TsrYNode *map, const char *key, long min, long max, long *out);
int tsr_model_opt_bool(TsrLoadCtx *c, const TsrYNode *map, const char *key, int *out);
int tsr_model_opt_vec3(TsrLoadCtx *c, const TsrYNode *map, const char *key, int nonzero, TsrVec3 *out);

char *tsr_model_strdup(const char *s);
char *tsr_model_sprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

// ---------------------------------------------------------------- shapes

// Appends the shapes of one body's `shape` node to m->shapes (compounds
// flattened into parts). Sets *volume to the total volume (INFINITY for a
// plane), *has_plane when any part is a plane. Returns 1 when valid.
int tsr_model_shapes(TsrLoadCtx *c, const TsrYNode *shape, int body, TsrModel *m, double *volume, int *has_plane);
// Volume and solid inertia (per unit mass, about the shape's own centre,
// in the shape frame) of one primitive.
// Largest `count` of a body or joint array (a typo beyond it: a million
// bodies already need tens of GB of rows).
#define TSR_MAX_COUNT 1000000

double tsr_model_shape_volume(const TsrShapeDef *s);
TsrMat3 tsr_model_shape_unit_inertia(const TsrShapeDef *s);
// Inertia about the body origin of shapes[0..n) holding `mass`, split by volume.
TsrMat3 tsr_model_shapes_inertia(const TsrShapeDef *shapes, int n, double mass);

// ---------------------------------------------------------------- passes

// Body declarations: one per item of `bodies`, arrays kept whole, so joints
// can resolve "link[i+1]" and overrides can find "link".
typedef struct {
  const char *name;
  int count;  // 0 for a single body
  int first;  // index of the first TsrBodyDef
  const TsrYNode *node;
} TsrBodyDecl;

int tsr_model_bodies(TsrLoadCtx *c, const TsrYNode *list, TsrModel *m, TsrBodyDecl **decls, int *n_decls);
int tsr_model_joints(TsrLoadCtx *c, const TsrYNode *list, const TsrBodyDecl *decls, int n_decls, TsrModel *m);
// A valid item name (no brackets or dots: they would clash with references
// and --set paths).
int tsr_model_check_name(TsrLoadCtx *c, const TsrYNode *n, const char *kind, const char **out);
// Reports names used twice (nodes: where each was declared).
void tsr_model_check_duplicates(TsrLoadCtx *c, const char *kind, const char *const *names, const TsrYNode *const *nodes,
                                int n);
int tsr_model_material_index(TsrLoadCtx *c, const TsrModel *m, const TsrYNode *n);

// Applies `--set` overrides to the tree. `labels[i]` receives a malloc'd
// "--set KEY=VALUE" that nodes created from override i point at; the caller
// frees them after loading. Returns the number of errors reported.
int tsr_model_apply_overrides(TsrYNode *root, const char *const *overrides, int n, char **labels, TsrDiag *diag);

// Growable arrays: p points at the array, n elements in use, cap allocated.
void *tsr_model_grow(void *p, int n, int *cap, size_t elem);

#endif
