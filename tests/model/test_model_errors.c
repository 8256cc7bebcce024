// SPDX-License-Identifier: MIT
// Loader, negative cases: one model per class of error, with the exact
// messages expected ("FILE:LINE:COL: error: WHAT", the mark pointing at the
// offending node), all problems of a model reported in one pass, in file
// order. Also: unreadable files, --set overrides that are wrong, the error
// cap, and robustness against mangled input.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "tsr_test.h"

typedef struct {
  const char *name;
  const char *yaml;
  const char *sets[4];
  const char *expect[8];
} Case;

// Each case's messages, in order. Regenerate with care: every line below
// was checked by hand to point at the right node.
// The model the --set cases override (bodies, an array, a joint).
#define SET_MODEL                                                             \
  "format: tessera-model/1\n"                                                 \
  "name: t\n"                                                                 \
  "bodies:\n"                                                                 \
  "  - {name: box, mass: 1, shape: {type: box, size: [1, 1, 1]}}\n"           \
  "  - {name: link, count: 5, mass: 1, shape: {type: sphere, radius: 0.1}}\n" \
  "joints:\n"                                                                 \
  "  - {name: top, type: ball, bodies: [world, box], anchor: [0, 0, 0]}\n"

#define TEN "nnnnnnnnnn"
#define HUNDRED TEN TEN TEN TEN TEN TEN TEN TEN TEN TEN
#define LONG_NAME HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED HUNDRED "n"

static const Case cases[] = {
    {"unknown_key",
     "format: tessera-model/1\n"
     "name: t\n"
     "bodies:\n"
     "  - name: box\n"
     "    mas: 1\n"
     "    shape: {type: sphere, radius: 1}\n",
     {NULL},
     {"m.yaml:4:5: error: body 'box': missing required key 'mass' (or 'density'): a moving body needs one",
      "m.yaml:5:5: error: body 'box': unknown key 'mas' in a body (did you mean 'mass'?)"}},
    {"friction_refresh",
     "format: tessera-model/1\n"
     "name: t\n"
     "settings:\n"
     "  contact: {friction_refresh: 9}\n"
     "materials: [{name: m, friction: 0.5}]\n"
     "bodies:\n"
     "  - {name: b, mass: 1, shape: {type: sphere, radius: 1}}\n",
     {NULL},
     {"m.yaml:4:31: error: settings.contact: friction_refresh must be at most 8 re-solves per step, got 9"}},
    {"max_pivots",
     "format: tessera-model/1\n"
     "name: t\n"
     "settings:\n"
     "  solver: {max_pivots: 100000001}\n"
     "bodies:\n"
     "  - {name: b, mass: 1, shape: {type: sphere, radius: 1}}\n",
     {NULL},
     {"m.yaml:4:24: error: settings.solver: max_pivots: at most 100000000, got 100000001"}},
    {"distance_length_overflows",
     "format: tessera-model/1\n"
     "name: t\n"
     "bodies:\n"
     "  - {name: b, mass: 1, shape: {type: sphere, radius: 1}}\n"
     "joints:\n"
     "  - {name: rope, type: distance, bodies: [world, b], anchors: [[1.0e+200, 0, 0], [0, 0, 0]]}\n",
     {NULL},
     {"m.yaml:6:63: error: joint 'rope': the anchors' distance (the default length) overflows; give 'length', or "
      "nearer anchors"}},
    // A distance joint of length 0 (coincident anchors, or `length: 0`)
    // has no line for its one row to act along: it was accepted, and the
    // anchors drifted 7.8 cm apart under sideways gravity. 1e-9 of the
    // sphere's radius of 1 m is the least length here.
    {"distance_zero_length",
     "format: tessera-model/1\n"
     "name: t\n"
     "bodies:\n"
     "  - {name: b, mass: 1, shape: {type: sphere, radius: 1}}\n"
     "joints:\n"
     "  - {name: pin, type: distance, bodies: [world, b], anchors: [[0, 0, 1], [0, 0, 1]]}\n"
     "  - {name: rope, type: distance, bodies: [world, b], anchors: [[0, 0, 1], [0, 0, 0]], length: 0, unilateral: "
     "true}\n"
     "  - {name: r, count: 2, type: distance, bodies: [world, b], anchors: [[0, 0, 1], [0, 0, 0]], stride: {anchors: "
     "[[0, 0, 0], [0, 0, 1]]}}\n",
     {NULL},
     {"m.yaml:6:62: error: joint 'pin': the anchors are 0 m apart (the default length): a distance joint's one row "
      "acts along the line between its anchors, which needs a length of at least 1e-09 m here (1e-9 of the larger "
      "body's size, at least 1e-12 m); to hold two points together use a 'ball' joint",
      "m.yaml:7:95: error: joint 'rope': length 0 m: a distance joint's one row acts along the line between its "
      "anchors, which needs a length of at least 1e-09 m here (1e-9 of the larger body's size, at least 1e-12 m); to "
      "hold two points together use a 'ball' joint",
      "m.yaml:8:70: error: joint 'r': the anchors are 0 m apart (the default length) at i = 1: a distance joint's one "
      "row acts along the line between its anchors, which needs a length of at least 1e-09 m here (1e-9 of the "
      "larger body's size, at least 1e-12 m); to hold two points together use a 'ball' joint"}},
    {"shape_sizes",
     "format: tessera-model/1\n"
     "name: t\n"
     "bodies:\n"
     "  - {name: a, mass: 1, shape: {type: cylinder, radius: 0.1, length: 1.0e-20}}\n"
     "  - {name: b, mass: 1, shape: {type: box, size: [1, 1.0e+100, 0.1]}, position: [5, 0, 0]}\n"
     "  - {name: c, mass: 1, shape: {type: capsule, radius: 0.1, length: 0}, position: [9, 0, 0]}\n",
     {NULL},
     {"m.yaml:4:31: error: body 'a': length 1e-20 m: at least 1e-10 m for contact detection (1/1e+09 of the "
      "shape's largest length)",
      "m.yaml:5:31: error: body 'b': size y 1e+100 m: at most 1e+06 m"}},
    {"margin",
     "format: tessera-model/1\n"
     "name: t\n"
     "settings:\n"
     "  contact: {margin: 1.0e+150}\n"
     "bodies:\n"
     "  - {name: b, mass: 1, shape: {type: sphere, radius: 1}}\n",
     {NULL},
     {"m.yaml:4:21: error: settings.contact: margin must be at most 1e+06 m, as a shape's lengths, got 1e+150"}},
    {"friction_refresh_set",
     SET_MODEL,
     {"settings.contact.friction_refresh=-1"},
     {"--set settings.contact.friction_refresh=-1:1:35: error: settings.contact: friction_refresh must be at least 0, "
      "got -1"}},
    {"unknown_key_nosugg",
     "format: tessera-model/1\n"
     "name: t\n"
     "foo: 1\n",
     {NULL},
     {"m.yaml:3:1: error: unknown key 'foo' in the model"}},
    {"wrong_type",
     "format: tessera-model/1\n"
     "name: t\n"
     "settings:\n"
     "  steps: [1]\n"
     "  solver: {warm_start: 3}\n"
     "bodies:\n"
     "  - {name: b, mass: heavy, shape: {type: sphere, radius: \"1\"}}\n",
     {NULL},
     {"m.yaml:4:10: error: settings: steps: expected an integer, got a sequence",
      "m.yaml:5:24: error: settings.solver: warm_start: expected true or false, got a number",
      "m.yaml:7:21: error: body 'b': mass: expected a number, got a string 'heavy'",
      "m.yaml:7:58: error: body 'b': radius: expected a number, got a string '1'"}},
    {"missing",
     "format: tessera-model/1\n"
     "name: t\n"
     "bodies:\n"
     "  - {name: b}\n"
     "joints:\n"
     "  - {name: j}\n",
     {NULL},
     {"m.yaml:4:5: error: body 'b': missing required key 'shape'",
      "m.yaml:4:5: error: body 'b': missing required key 'mass' (or 'density'): a moving body needs one",
      "m.yaml:6:5: error: joint 'j': missing required key 'type'",
      "m.yaml:6:5: error: joint 'j': missing required key 'bodies'"}},
    {"missing_top",
     "settings: {step: 0.1}\n",
     {NULL},
     {"m.yaml:1:1: error: missing required key 'format'", "m.yaml:1:1: error: missing required key 'name'"}},
    {"format",
     "format: tessera-model/2\n"
     "name: x\n",
     {NULL},
     {"m.yaml:1:9: error: format: expected 'tessera-model/1', got 'tessera-model/2'"}},
    {"negative",
     "format: tessera-model/1\n"
     "name: t\n"
     "bodies:\n"
     "  - {name: a, mass: -1, shape: {type: sphere, radius: 1}}\n"
     "  - {name: b, density: 0, shape: {type: sphere, radius: 1}}\n"
     "  - {name: c, mass: 1, shape: {type: sphere, radius: -2}}\n",
     {NULL},
     {"m.yaml:4:21: error: body 'a': mass must be positive, got -1",
      "m.yaml:5:24: error: body 'b': density must be positive, got 0",
      "m.yaml:6:54: error: body 'c': radius must be positive, got -2"}},
    {"fixed_moving",  // a fixed body's velocity was dropped without a word
     "format: tessera-model/1\n"
     "name: t\n"
     "bodies:\n"
     "  - {name: belt, fixed: true, shape: {type: box, size: [4, 1, 1]}, velocity: [1, 0, 0]}\n"
     "  - {name: rest, fixed: true, shape: {type: box, size: [1, 1, 1]}, angular_velocity: [0, 0, 0]}\n"
     "  - {name: r, fixed: true, count: 2, stride: {velocity: [0, 1, 0]}, shape: {type: box, size: [1, 1, 1]}}\n"
     "  - {name: b, mass: 1, velocity: [1, 0, 0], shape: {type: sphere, radius: 1}}\n",
     {NULL},
     {"m.yaml:4:78: error: body 'belt': velocity: a fixed body does not move (remove it, or make the body move: "
      "fixed: false)",
      "m.yaml:6:57: error: body 'r': stride: velocity: a fixed body does not move (remove it, or make the body move: "
      "fixed: false)"}},
    {"nonfinite",
     "format: tessera-model/1\n"
     "name: t\n"
     "settings: {step: .nan, gravity: [0, .inf, -1e999]}\n",
     {NULL},
     {"m.yaml:3:18: error: settings: step: non-finite number .nan",
      "m.yaml:3:37: error: settings: gravity: non-finite number .inf",
      "m.yaml:3:43: error: settings: gravity: non-finite number -1e999"}},
    // Numbers are decimal only: YAML 1.2's 0x and 0o ints were read as
    // numbers (mass 0x10 was 16 kg), --set's too, though option values
    // are documented as plain decimals.
    {"non_decimal",
     "format: tessera-model/1\n"
     "name: t\n"
     "settings: {steps: 0o10, gravity: [0, 0x1F, -9.81]}\n"
     "bodies:\n"
     "  - {name: b, mass: 0x10, shape: {type: sphere, radius: 1}}\n",
     {NULL},
     {"m.yaml:3:19: error: settings: steps: '0o10' is written in octal; numbers in a model are decimal only (write 8)",
      "m.yaml:3:38: error: settings: gravity: '0x1F' is written in hexadecimal; numbers in a model are decimal only "
      "(write 31)",
      "m.yaml:5:21: error: body 'b': mass: '0x10' is written in hexadecimal; numbers in a model are decimal only "
      "(write 16)"}},
    {"non_decimal_set",
     SET_MODEL,
     {"bodies.box.mass=0x10"},
     {"--set bodies.box.mass=0x10:1:17: error: body 'box': mass: '0x10' is written in hexadecimal; numbers in a model "
      "are decimal only (write 16)"}},
    {"unknown_body",
     "format: tessera-model/1\n"
     "name: t\n"
     "bodies:\n"
     "  - {name: box, mass: 1, shape: {type: box, size: [1, 1, 1]}}\n"
     "  - {name: link, count: 5, mass: 1, shape: {type: sphere, radius: 0.1}}\n"
     "joints:\n"
     "  - {name: j, type: ball, bodies: [bx, \"lnk[0]\"], anchor: [0, 0, 0]}\n",
     {NULL},
     {"m.yaml:7:36: error: joint 'j': unknown body 'bx' (did you mean 'box'?)",
      "m.yaml:7:40: error: joint 'j': unknown body 'lnk' in 'lnk[0]' (did you mean 'link'?)"}},
    {"index_range",
     "format: tessera-model/1\n"
     "name: t\n"
     "bodies:\n"
     "  - {name: box, mass: 1, shape: {type: box, size: [1, 1, 1]}}\n"
     "  - {name: link, count: 5, mass: 1, shape: {type: sphere, radius: 0.1}}\n"
     "joints:\n"
     "  - {name: j, count: 5, type: ball, bodies: [\"link[i]\", \"link[i+1]\"], anchor: [0, 0, 0]}\n"
     "  - {name: k, count: 2, type: ball, bodies: [\"link[i-1]\", \"link[5]\"], anchor: [0, 0, 0]}\n",
     {NULL},
     {"m.yaml:7:57: error: joint 'j': index out of range in 'link[i+1]': at i = 4 it is 5, but link has elements 0..4",
      "m.yaml:8:46: error: joint 'k': index out of range in 'link[i-1]': at i = 0 it is -1, but link has elements 0..4",
      "m.yaml:8:59: error: joint 'k': index out of range in 'link[5]': link has 5 elements (0..4)"}},
    {"duplicates",
     "format: tessera-model/1\n"
     "name: t\n"
     "materials:\n"
     "  - {name: steel}\n"
     "  - {name: steel}\n"
     "bodies:\n"
     "  - {name: a, mass: 1, shape: {type: sphere, radius: 1}}\n"
     "  - {name: a, count: 2, mass: 1, shape: {type: sphere, radius: 1}}\n"
     "joints:\n"
     "  - {name: j, type: ball, bodies: [world, a], anchor: [0, 0, 0]}\n"
     "  - {name: j, type: ball, bodies: [world, a], anchor: [0, 0, 0]}\n",
     {NULL},
     {"m.yaml:5:12: error: duplicate material name 'steel' (first defined at line 4, column 12)",
      "m.yaml:8:12: error: duplicate body name 'a' (first defined at line 7, column 12)",
      "m.yaml:11:12: error: duplicate joint name 'j' (first defined at line 10, column 12)"}},
    // A pair is unordered: [rubber, steel] after [steel, rubber] was
    // accepted and silently replaced it.
    {"duplicate_material_pairs",
     "format: tessera-model/1\n"
     "name: t\n"
     "materials: [{name: steel}, {name: rubber}]\n"
     "material_pairs:\n"
     "  - {materials: [steel, rubber], friction: 0.9}\n"
     "  - {materials: [steel, steel], friction: 0.2}\n"
     "  - {materials: [rubber, steel], friction: 0.1}\n"
     "  - {materials: [steel, steel], compliance: 0}\n",
     {NULL},
     {"m.yaml:7:17: error: duplicate material pair [rubber, steel] (first given at line 5, column 17, as [steel, "
      "rubber]: the order does not matter)",
      "m.yaml:8:17: error: duplicate material pair [steel, steel] (first given at line 6, column 17)"}},
    {"quat_zero",
     "format: tessera-model/1\n"
     "name: t\n"
     "bodies:\n"
     "  - {name: a, mass: 1, shape: {type: sphere, radius: 1}, orientation: [0, 0, 0, 0]}\n",
     {NULL},
     {"m.yaml:4:71: error: body 'a': orientation: quaternion [0, 0, 0, 0] cannot be normalised"}},
    {"universal",
     "format: tessera-model/1\n"
     "name: t\n"
     "bodies:\n"
     "  - {name: box, mass: 1, shape: {type: box, size: [1, 1, 1]}}\n"
     "  - {name: link, count: 5, mass: 1, shape: {type: sphere, radius: 0.1}}\n"
     "joints:\n"
     "  - {name: u, type: universal, bodies: [box, \"link[0]\"], anchor: [0, 0, 0], axes: [[1, 0, 0], [1, 1, 0]]}\n",
     {NULL},
     {"m.yaml:7:83: error: joint 'u': axes: universal joint axes must be perpendicular (they are 45 degrees apart)"}},
    {"plane_moving",
     "format: tessera-model/1\n"
     "name: t\n"
     "bodies:\n"
     "  - {name: floor, mass: 1, shape: {type: plane, normal: [0, 0, 1]}}\n",
     {NULL},
     {"m.yaml:4:35: error: body 'floor': a plane is only allowed on a fixed body (add 'fixed: true')"}},
    {"zero_axis",
     "format: tessera-model/1\n"
     "name: t\n"
     "bodies:\n"
     "  - {name: box, mass: 1, shape: {type: box, size: [1, 1, 1]}}\n"
     "  - {name: link, count: 5, mass: 1, shape: {type: sphere, radius: 0.1}}\n"
     "  - {name: g, fixed: true, shape: {type: plane, normal: [0, 0, 0]}}\n"
     "joints:\n"
     "  - {name: h, type: hinge, bodies: [box, world], anchor: [0, 0, 0], axis: [0, 0, 0]}\n",
     {NULL},
     {"m.yaml:6:57: error: body 'g': normal: zero-length axis vector",
      "m.yaml:8:75: error: joint 'h': axis: zero-length axis vector"}},
    {"enums",
     "format: tessera-model/1\n"
     "name: t\n"
     "settings:\n"
     "  solver: {type: schur-bp}\n"
     "  partitioning: {method: kway}\n"
     "bodies:\n"
     "  - {name: a, mass: 1, shape: {type: sphere, radius: 1}}\n"
     "  - {name: b, mass: 1, shape: {type: cube, size: [1, 1, 1]}}\n"
     "joints:\n"
     "  - {name: j, type: balll, bodies: [a, b]}\n",
     {NULL},
     {"m.yaml:4:18: error: settings.solver: unknown solver type 'schur-bp' (did you mean 'schur-bpp'?); expected one "
      "of: direct-bpp, pgs, pgs-sm, schur-bpp, schur-pgs-sm, fbic",
      "m.yaml:5:26: error: settings.partitioning: unknown partition method 'kway'; expected one of: semantic, mindp, "
      "none, maxdp, bfs, mass-ratio, mix, metis",
      "m.yaml:8:38: error: body 'b': unknown shape type 'cube'; expected one of: sphere, box, capsule, cylinder, "
      "plane, compound",
      "m.yaml:10:21: error: joint 'j': unknown joint type 'balll' (did you mean 'ball'?); expected one of: ball, "
      "hinge, universal, prismatic, fixed, cable, distance"}},
    {"count",
     "format: tessera-model/1\n"
     "name: t\n"
     "bodies:\n"
     "  - {name: a, count: 0, mass: 1, shape: {type: sphere, radius: 1}}\n",
     {NULL},
     {"m.yaml:4:22: error: body 'a': count must be at least 1, got 0"}},
    {"limits",
     "format: tessera-model/1\n"
     "name: t\n"
     "bodies:\n"
     "  - {name: box, mass: 1, shape: {type: box, size: [1, 1, 1]}}\n"
     "  - {name: link, count: 5, mass: 1, shape: {type: sphere, radius: 0.1}}\n"
     "joints:\n"
     "  - {name: h, type: hinge, bodies: [box, world], anchor: [0, 0, 0], axis: [0, 0, 1], limits: [1, -1]}\n",
     {NULL},
     {"m.yaml:7:94: error: joint 'h': limits: lower limit 1 is greater than upper limit -1"}},
    {"material",
     "format: tessera-model/1\n"
     "name: t\n"
     "materials:\n"
     "  - {name: steel}\n"
     "bodies:\n"
     "  - {name: a, mass: 1, material: stel, shape: {type: sphere, radius: 1}}\n",
     {NULL},
     {"m.yaml:6:34: error: body 'a': unknown material 'stel' (did you mean 'steel'?)"}},
    {"empty", "", {NULL}, {"m.yaml:1:1: error: empty model file"}},
    {"comments",
     "# nothing here\n"
     "\n",
     {NULL},
     {"m.yaml:1:1: error: empty model file"}},
    {"notyaml",
     "format: tessera-model/1\n"
     "name: [unclosed\n"
     "bodies: 3\n",
     {NULL},
     {"m.yaml:3:7: error: not valid YAML: did not find expected ',' or ']' (while parsing a flow sequence at line 2, "
      "column 7)"}},
    {"root_seq",
     "- format: tessera-model/1\n",
     {NULL},
     {"m.yaml:1:1: error: a model must be a mapping of keys (format, name, settings, bodies, ...), got a sequence"}},
    {"dupkeys",
     "format: tessera-model/1\n"
     "name: t\n"
     "name: again\n"
     "settings: {step: 0.1, step: 0.2}\n",
     {NULL},
     {"m.yaml:3:1: error: duplicate key 'name' (first given at 2:1)",
      "m.yaml:4:23: error: duplicate key 'step' (first given at 4:12)"}},
    // Derived values that are not finite or not positive: a density giving
    // 0 kg or inf kg, a stride overflowing (each ran, with zero or infinite
    // masses and positions).
    {"derived_nonfinite",
     "format: tessera-model/1\n"
     "name: t\n"
     "bodies:\n"
     "  - {name: a, density: 1e-300, shape: {type: sphere, radius: 1e-10}}\n"
     "  - {name: b, density: 1e300, shape: {type: sphere, radius: 1e6}}\n"
     "  - {name: c, count: 2, mass: 1, shape: {type: sphere, radius: 1}, position: [1e308, 0, 0],\n"
     "     stride: {position: [1e308, 0, 0]}}\n",
     {NULL},
     {"m.yaml:4:24: error: body 'a': density 1e-300 kg/m^3 x volume 4.18879e-30 m^3 gives a mass of 0 kg: not a "
      "positive number",
      "m.yaml:5:24: error: body 'b': density 1e+300 kg/m^3 x volume 4.18879e+18 m^3 gives a mass of inf kg: not a "
      "positive number",
      "m.yaml:7:14: error: element 1's position is not finite (stride x index overflows)"}},
    // Quantities the simulation divides by, below DBL_MIN: a subnormal
    // mass passed `check` ("mass ratio: inf") and the run failed at step 1
    // with a non-finite state; so with a subnormal inertia (given, or a tiny
    // mass's default), and a step whose h^2 underflows.
    {"tiny_reciprocals",
     "format: tessera-model/1\n"
     "name: t\n"
     "settings: {step: 1e-200, steps: 5}\n"
     "bodies:\n"
     "  - {name: a, mass: 1e-320, shape: {type: sphere, radius: 1}}\n"
     "  - {name: b, mass: 1, inertia: [1, 1, 1e-310], shape: {type: sphere, radius: 1}, position: [3, 0, 0]}\n"
     "  - {name: c, mass: 1e-307, shape: {type: sphere, radius: 0.01}, position: [6, 0, 0]}\n"
     "  - {name: d, density: 1e-300, shape: {type: sphere, radius: 1e-3}, position: [9, 0, 0]}\n"
     "  - {name: e, mass: 1, inertia: [[1, 0, 0], [0, 1, 0], [0, 0, 1e-310]], shape: {type: sphere, radius: 1}, "
     "position: [12, 0, 0]}\n",
     {NULL},
     {"m.yaml:3:18: error: settings: step must be at least 1.49167e-154 s, got 1e-200: every constraint row divides "
      "by h^2, and below that h^2 is under 2.22507e-308 (DBL_MIN, the smallest normal double)",
      "m.yaml:5:21: error: body 'a': mass must be at least 2.22507e-308 (DBL_MIN, the smallest normal double): the "
      "simulation divides by it, got 1e-320",
      "m.yaml:6:33: error: body 'b': inertia: principal moments must be at least 2.22507e-308 (DBL_MIN, the smallest "
      "normal double): the simulation inverts them, got [1, 1, 1e-310]",
      "m.yaml:7:5: error: body 'c': its shapes' inertia (4e-312, 4e-312, 4e-312 kg m^2) is below 2.22507e-308 "
      "(DBL_MIN, the smallest normal double), and the simulation inverts it: give `inertia`, or a larger mass",
      "m.yaml:8:24: error: body 'd': density 1e-300 kg/m^3 x volume 4.18879e-09 m^3 gives a mass of 4.18879e-309 kg, "
      "below 2.22507e-308 (DBL_MIN, the smallest normal double): the simulation divides by it",
      "m.yaml:9:33: error: body 'e': inertia: the simulation inverts the 3x3 tensor, and its inverse is not finite "
      "(diagonal [1, 1, 1e-310]: each at least 2.22507e-308, DBL_MIN, the smallest normal double)"}},
    {"tiny_mass_set",
     SET_MODEL,
     {"bodies.box.mass=1e-320"},
     {"--set bodies.box.mass=1e-320:1:17: error: body 'box': mass must be at least 2.22507e-308 (DBL_MIN, the "
      "smallest normal double): the simulation divides by it, got 1e-320"}},
    // A model name the run file's summary holds whole (TSR_MODEL_NAME_MAX).
    {"long_name",
     "format: tessera-model/1\n"
     "name: " LONG_NAME "\n",
     {NULL},
     {"m.yaml:2:7: error: name: at most 1000 bytes, got 1001"}},
    // An anchor on a duplicate key, then an alias of it: the key was freed
    // while its anchor stayed registered, and the alias copied freed
    // memory (AddressSanitizer: heap-use-after-free in copy_node).
    {"dupkey_anchor",
     "format: tessera-model/1\n"
     "name: t\n"
     "&k name: again\n"
     "description: *k\n",
     {NULL},
     {"m.yaml:3:1: error: duplicate key 'name' (first given at 2:1)"}},
    // Tags are refused, each at the tag (after an anchor too): `!!int 1.5`
    // was read as 1.5, an unknown `!heavy` ignored, and `!!float "1.0"`
    // refused as a string. The load stops after parsing, as for duplicate
    // keys.
    {"tags",
     "format: tessera-model/1\n"
     "name: t\n"
     "bodies:\n"
     "  - {name: a, mass: !!int 1.5, shape: {type: sphere, radius: 1}}\n"
     "  - {name: b, mass: !heavy 2.0, shape: !!map {type: sphere, radius: 1}, position: [3, 0, 0]}\n"
     "  - {name: c, mass: &m !!float \"1.0\", shape: {type: sphere, radius: 1}, position: [6, 0, 0]}\n",
     {NULL},
     {"m.yaml:4:21: error: YAML tags are not supported: remove '!!int' (a value's type is what it looks like: 1.5 is "
      "a number, \"1.5\" a string)",
      "m.yaml:5:21: error: YAML tags are not supported: remove '!heavy' (a value's type is what it looks like: 1.5 is "
      "a number, \"1.5\" a string)",
      "m.yaml:5:40: error: YAML tags are not supported: remove '!!map' (a value's type is what it looks like: 1.5 is "
      "a number, \"1.5\" a string)",
      "m.yaml:6:24: error: YAML tags are not supported: remove '!!float' (a value's type is what it looks like: 1.5 is "
      "a number, \"1.5\" a string)"}},
    {"tags_set",
     SET_MODEL,
     {"bodies.box.mass=!!int 2"},
     {"--set bodies.box.mass=!!int 2:1:17: error: YAML tags are not supported: remove '!!int' (a value's type is what "
      "it looks like: 1.5 is a number, \"1.5\" a string)"}},
    {"multi_doc",
     "format: tessera-model/1\n"
     "name: t\n"
     "---\n"
     "format: tessera-model/1\n",
     {NULL},
     {"m.yaml:3:1: error: a model file holds one YAML document; found a second one here"}},
    {"nomoving",
     "format: tessera-model/1\n"
     "name: t\n"
     "bodies:\n"
     "  - {name: g, fixed: true, shape: {type: sphere, radius: 1}}\n"
     "  - {name: b, mass: 1, shape: {type: sphere, radius: 1}}\n"
     "joints:\n"
     "  - {name: j, type: ball, bodies: [world, g], anchor: [0, 0, 0]}\n"
     "  - {name: k, type: ball, bodies: [b, b], anchor: [0, 0, 0]}\n",
     {NULL},
     {"m.yaml:7:35: error: joint 'j': joint connects no moving body (world and body 'g' are fixed)",
      "m.yaml:8:35: error: joint 'k': joint connects body 'b' to itself"}},
    {"compound",
     "format: tessera-model/1\n"
     "name: t\n"
     "bodies:\n"
     "  - name: a\n"
     "    mass: 1\n"
     "    shape:\n"
     "      type: compound\n"
     "      parts:\n"
     "        - {type: compound, parts: []}\n"
     "        - {type: plane, normal: [0, 0, 1]}\n",
     {NULL},
     {"m.yaml:9:18: error: body 'a': a compound part cannot itself be a compound",
      "m.yaml:10:18: error: body 'a': a plane cannot be part of a compound"}},
    {"both",
     "format: tessera-model/1\n"
     "name: t\n"
     "settings: {duration: 1, steps: 5}\n"
     "bodies:\n"
     "  - {name: a, mass: 1, density: 2, shape: {type: sphere, radius: 1}}\n",
     {NULL},
     {"m.yaml:3:32: error: settings: give either 'duration' or 'steps', not both",
      "m.yaml:5:33: error: body 'a': give either 'mass' or 'density', not both"}},
    {"refs",
     "format: tessera-model/1\n"
     "name: t\n"
     "bodies:\n"
     "  - {name: box, mass: 1, shape: {type: box, size: [1, 1, 1]}}\n"
     "  - {name: link, count: 5, mass: 1, shape: {type: sphere, radius: 0.1}}\n"
     "joints:\n"
     "  - {name: a, type: ball, bodies: [link, box], anchor: [0, 0, 0]}\n"
     "  - {name: b, type: ball, bodies: [\"box[0]\", world], anchor: [0, 0, 0]}\n"
     "  - {name: c, type: ball, bodies: [\"link[i]\", world], anchor: [0, 0, 0]}\n"
     "  - {name: d, type: ball, bodies: [\"link[j]\", world], anchor: [0, 0, 0]}\n",
     {NULL},
     {"m.yaml:7:36: error: joint 'a': 'link' is an array of 5 bodies; name one element, e.g. 'link[0]' or 'link[i]'",
      "m.yaml:8:36: error: joint 'b': 'box' is a single body, not an array: write 'box' without an index",
      "m.yaml:9:36: error: joint 'c': 'link[i]' uses i, which needs 'count' on the joint",
      "m.yaml:10:36: error: joint 'd': bad body reference 'link[j]': expected NAME, NAME[K], NAME[i], NAME[i+K] or "
      "NAME[i-K]"}},
    {"nonscalar_key",
     "format: tessera-model/1\n"
     "name: t\n"
     "? [a, b]\n"
     ": 1\n",
     {NULL},
     {"m.yaml:3:3: error: mapping keys must be plain words, not a sequence or mapping"}},
    {"set_0",
     SET_MODEL,
     {"bodies.box.mas=1"},
     {"--set bodies.box.mas=1:1:12: error: body 'box': unknown key 'mas' in a body (did you mean 'mass'?)"}},
    {"set_1",
     SET_MODEL,
     {"bodies.bx.mass=2"},
     {"--set bodies.bx.mass=2:1:8: error: no body named 'bx' (did you mean 'box'?)"}},
    {"set_2",
     SET_MODEL,
     {"settings.solver.type=pg"},
     {"--set settings.solver.type=pg:1:22: error: settings.solver: unknown solver type 'pg' (did you mean 'pgs'?); "
      "expected one of: direct-bpp, pgs, pgs-sm, schur-bpp, schur-pgs-sm, fbic"}},
    {"set_3",
     SET_MODEL,
     {"bodies.link.mass=-1"},
     {"--set bodies.link.mass=-1:1:18: error: body 'link': mass must be positive, got -1"}},
    {"set_4", SET_MODEL, {"nokey"}, {"--set nokey:1:1: error: expected KEY=VALUE, e.g. settings.step=0.01"}},
    {"set_5",
     SET_MODEL,
     {"bodies.link[2].mass=1"},
     {"--set bodies.link[2].mass=1:1:8: error: cannot override one element of the array 'link'; bodies.link.FIELD "
      "changes every element"}},
    {"set_6",
     SET_MODEL,
     {"joints.tp.damping=1"},
     {"--set joints.tp.damping=1:1:8: error: no joint named 'tp' (did you mean 'top'?)"}},
    {"set_7",
     SET_MODEL,
     {"settings.gravity=[0, 0"},
     {"--set settings.gravity=[0, 0:1:23: error: not valid YAML: did not find expected ',' or ']' (while parsing a "
      "flow sequence at line 1, column 18)"}},
    {"set_8",
     SET_MODEL,
     {"bodies.box.shape.size=[1,1]"},
     {"--set bodies.box.shape.size=[1,1]:1:23: error: body 'box': size: expected a sequence of 3 numbers [x, y, z], "
      "got 2 items"}},
    {"set_9",
     SET_MODEL,
     {"bodies.box.mass.x=1"},
     {"--set bodies.box.mass.x=1:1:12: error: 'mass' is a number, not a mapping with keys"}},
    {"set_10",
     SET_MODEL,
     {"materials.steel.friction=1"},
     {"--set materials.steel.friction=1:1:11: error: no material named 'steel'"}},
    {"set_11",
     SET_MODEL,
     {"settings.step=.inf", "name="},
     {"--set name=:1:6: error: name: expected a string, got null (an empty value)",
      "--set settings.step=.inf:1:15: error: settings: step: non-finite number .inf"}},
    {"set_12",
     SET_MODEL,
     {"settings..step=1"},
     {"--set settings..step=1:1:10: error: bad key 'settings..step': expected a path like settings.solver.type"}},
    {"set_13", SET_MODEL, {"bodies.box=1"}, {"--set bodies.box=1:1:1: error: expected bodies.NAME.FIELD"}},
};

static void print_diag(const TsrDiag *d) {
  for (int i = 0; i < d->count; i++) fprintf(stderr, "    got: %s\n", d->messages[i]);
}

static void test_cases(void) {
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    const Case *c = &cases[k];
    int n_sets = 0, n_expect = 0;
    while (n_sets < 4 && c->sets[n_sets]) n_sets++;
    while (n_expect < 8 && c->expect[n_expect]) n_expect++;
    TsrModel m;
    TsrDiag d;
    tsr_diag_init(&d);
    int r = tsr_model_load_string("m.yaml", c->yaml, strlen(c->yaml), c->sets, n_sets, &m, &d);
    int before = tsr_test_failures;
    ENSURE_MSG(r != 0, "case %s loaded", c->name);
    ENSURE_MSG(m.bodies == NULL && m.name == NULL && m.n_bodies == 0, "case %s: model not zeroed", c->name);
    ENSURE_MSG(d.count == n_expect, "case %s: %d messages, expected %d", c->name, d.count, n_expect);
    for (int i = 0; i < n_expect && i < d.count; i++)
      ENSURE_MSG(strcmp(d.messages[i], c->expect[i]) == 0, "case %s:\n    want: %s\n    got:  %s", c->name,
                 c->expect[i], d.messages[i]);
    if (tsr_test_failures != before) print_diag(&d);
    tsr_diag_free(&d);
  }
}

static void test_cannot_open(void) {
  TsrModel m;
  TsrDiag d;
  tsr_diag_init(&d);
  ENSURE(tsr_model_load("/nonexistent/model.yaml", NULL, 0, &m, &d) != 0);
  ENSURE(d.count == 1);
  if (d.count == 1)
    ENSURE_MSG(strcmp(d.messages[0], "/nonexistent/model.yaml: error: cannot open: No such file or directory") == 0,
               "%s", d.messages[0]);
  tsr_diag_free(&d);
  ENSURE(d.count == 0 && d.messages == NULL);
}

static void test_diag_format(void) {
  TsrDiag d;
  tsr_diag_init(&d);
  TsrMark mk = {42, 7};
  tsr_diag_error(&d, "model.yaml", &mk, "negative mass %g", -1.0);
  tsr_diag_error(&d, "model.yaml", NULL, "cannot open: %s", "denied");
  ENSURE(d.count == 2);
  ENSURE(strcmp(d.messages[0], "model.yaml:42:7: error: negative mass -1") == 0);
  ENSURE(strcmp(d.messages[1], "model.yaml: error: cannot open: denied") == 0);
  tsr_diag_free(&d);
}

// A model with a thousand bad bodies stops at a bounded number of messages.
static void test_error_cap(void) {
  size_t cap = 1 << 20, len = 0;
  char *text = malloc(cap);
  len += (size_t)snprintf(text, cap, "format: tessera-model/1\nname: t\nbodies:\n");
  for (int i = 0; i < 1000; i++)
    len += (size_t)snprintf(text + len, cap - len, "  - {name: b%d, mass: -1, shape: {type: sphere, radius: 1}}\n", i);
  TsrModel m;
  TsrDiag d;
  tsr_diag_init(&d);
  ENSURE(tsr_model_load_string("big.yaml", text, len, NULL, 0, &m, &d) != 0);
  ENSURE(d.count > 100 && d.count <= 200);
  if (d.count > 0) ENSURE(strstr(d.messages[d.count - 1], "too many errors") != NULL);
  if (d.count > 0)
    ENSURE_MSG(strcmp(d.messages[0], "big.yaml:4:22: error: body 'b0': mass must be positive, got -1") == 0, "%s",
               d.messages[0]);
  tsr_diag_free(&d);
  free(text);
}

// Anchors and aliases are plain YAML and work; a self-multiplying alias
// bomb is refused instead of eating memory.
static void test_aliases(void) {
  // A later anchor of one name shadows the earlier one (YAML 1.2): c is
  // the 0.25 sphere, d the 0.5 one.
  const char *ok =
      "format: tessera-model/1\nname: t\n"
      "bodies:\n"
      "  - {name: a, mass: 1, shape: &ball {type: sphere, radius: 0.5}}\n"
      "  - {name: b, mass: 2, shape: *ball}\n"
      "  - {name: c, mass: 2, shape: &ball {type: sphere, radius: 0.25}, position: [2, 0, 0]}\n"
      "  - {name: d, mass: 2, shape: *ball, position: [4, 0, 0]}\n";
  TsrModel m;
  TsrDiag d;
  tsr_diag_init(&d);
  ENSURE(tsr_model_load_string("a.yaml", ok, strlen(ok), NULL, 0, &m, &d) == 0);
  print_diag(&d);
  if (d.count == 0) {
    ENSURE(m.n_shapes == 4 && m.shapes[1].params[0] == 0.5 && m.shapes[1].body == 1);
    ENSURE(m.shapes[3].params[0] == 0.25 && m.shapes[3].body == 3);
    tsr_model_free(&m);
  }
  tsr_diag_free(&d);
  // 5,000 bodies, each shape anchored and each next one an alias of the one
  // before, through the anchor table's regrowths: every radius as anchored.
  size_t cap = 5000 * 256 + 256, len = 0;
  char *many = malloc(cap);
  len += (size_t)snprintf(many + len, cap - len, "format: tessera-model/1\nname: t\nbodies:\n");
  for (int i = 0; i < 5000; i++)
    len +=
        (size_t)snprintf(many + len, cap - len,
                         "  - {name: s%d, mass: 1, shape: &s%d {type: sphere, radius: 0.%04d}, position: [%d, 0, 0]}\n"
                         "  - {name: t%d, mass: 1, shape: *s%d, position: [%d, 5, 0]}\n",
                         i, i, i + 1, 2 * i, i, i, 2 * i);
  tsr_diag_init(&d);
  ENSURE(tsr_model_load_string("many.yaml", many, len, NULL, 0, &m, &d) == 0);
  print_diag(&d);
  if (d.count == 0) {
    int right = m.n_shapes == 10000;
    for (int i = 0; right && i < 5000; i++)
      right = fabs(m.shapes[2 * i + 1].params[0] - (double)(i + 1) * 1e-4) < 1e-15;
    ENSURE_MSG(right, "an alias of 5,000 resolved to another anchor");
    tsr_model_free(&m);
  }
  tsr_diag_free(&d);
  free(many);
  char bomb[2048];
  int n = snprintf(bomb, sizeof bomb, "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
  for (int i = 1; i < 12; i++)
    n += snprintf(bomb + n, sizeof bomb - (size_t)n, "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i,
                  i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
  tsr_diag_init(&d);
  ENSURE(tsr_model_load_string("bomb.yaml", bomb, (size_t)n, NULL, 0, &m, &d) != 0);
  // Refused at the alias that would pass the budget, measured before it is
  // copied: a0..a4 copy 8 x (11 + 89 + 713 + 5705) = 52144 nodes, each *a4
  // 45641 more; the fourth *a4 of a5 has 200000 - 52144 - 3 x 45641 = 10933
  // left (the line and column point at it). Before, the bomb copied 4e6
  // nodes (0.5 GB) to be refused as "too many YAML nodes".
  ENSURE(d.count == 1);
  if (d.count == 1)
    ENSURE_MSG(strcmp(d.messages[0],
                      "bomb.yaml:6:25: error: alias '*a4' would copy more than the 10933 YAML nodes left to aliases (a "
                      "file's aliases may copy 16 nodes per node written in it, at least 200000 in all; runaway "
                      "aliases?)") == 0,
               "%s", d.messages[0]);
  print_diag(&d);
  tsr_diag_free(&d);
  // The budget grows with the file: 3,000 bodies, the shape of each after the
  // first an alias of the first one's 20 parts (181 nodes, 543,000 copied in
  // all, past the floor).
  cap = 3000 * 128 + 8192, len = 0;
  char *reuse = malloc(cap);
  len += (size_t)snprintf(reuse + len, cap - len,
                          "format: tessera-model/1\nname: t\nbodies:\n"
                          "  - name: c\n    mass: 1\n    shape:\n      type: compound\n      parts: &parts\n");
  for (int i = 0; i < 20; i++)
    len += (size_t)snprintf(reuse + len, cap - len, "        - {type: sphere, radius: 0.1, position: [%d, 0, 0]}\n", i);
  for (int i = 1; i < 3000; i++)
    len += (size_t)snprintf(reuse + len, cap - len,
                            "  - {name: c%d, mass: 1, shape: {type: compound, parts: *parts}, position: [0, %d, 0]}\n",
                            i, 3 * i);
  tsr_diag_init(&d);
  ENSURE(tsr_model_load_string("reuse.yaml", reuse, len, NULL, 0, &m, &d) == 0);
  print_diag(&d);
  if (d.count == 0) {
    ENSURE(m.n_bodies == 3000 && m.n_shapes == 60000);
    tsr_model_free(&m);
  }
  tsr_diag_free(&d);
  free(reuse);
}

// Mangled variants of a valid model (bytes changed, dropped, truncated) must
// never crash or leak; each either loads or reports at least one error.
static void test_mangled(void) {
  static const char rich[] =
      "format: tessera-model/1\nname: r\n"
      "settings: {step: 0.01, steps: 10, solver: {type: pgs}, partitioning: {method: none}}\n"
      "materials: [{name: steel, friction: 0.3}]\n"
      "material_pairs: [{materials: [steel, steel], friction: 0.2}]\n"
      "bodies:\n"
      "  - {name: g, fixed: true, shape: {type: plane, normal: [0, 0, 1]}}\n"
      "  - name: l\n    count: 4\n    mass: 1\n    shape: {type: capsule, radius: 0.1, length: 0.3}\n"
      "    stride: {position: [0, 0, -0.5]}\n    group_every: 2\n"
      "  - {name: c, density: 2, shape: {type: compound, parts: [{type: box, size: [1, 1, 1]},"
      " {type: sphere, radius: 1, position: [1, 0, 0], orientation: {axis: [0, 1, 0], angle_deg: 30}}]}}\n"
      "joints:\n"
      "  - {name: u, count: 3, type: universal, bodies: [\"l[i]\", \"l[i+1]\"], anchor: [0, 0, 0],"
      " stride: {anchor: [0, 0, -0.5]}, axes: [[1, 0, 0], [0, 1, 0]]}\n"
      "  - {name: h, type: hinge, bodies: [world, c], anchor: [0, 0, 0], axis: [0, 0, 1], limits: [-1, 1],"
      " motor: {speed: 1, max_torque: 2}}\n"
      "  - {name: d, type: distance, bodies: [c, \"l[0]\"], anchors: [[0, 0, 0], [0, 0, 1]], unilateral: true}\n"
      "  - {name: k, type: cable, bodies: [c, \"l[3]\"], anchor: [0, 0, 0], compliance: {bend: 1.0e-3}}\n";
  size_t len = sizeof rich - 1;
  TsrModel m;
  TsrDiag d;
  tsr_diag_init(&d);
  ENSURE(tsr_model_load_string("rich.yaml", rich, len, NULL, 0, &m, &d) == 0);
  print_diag(&d);
  tsr_model_free(&m);
  tsr_diag_free(&d);
  static const char alphabet[] = " :-[]{},\n\"'&*#!|>0123456789.eixyz";
  char *buf = malloc(len + 1);
  uint32_t seed = 12345;
  int loaded = 0, rejected = 0;
  for (int trial = 0; trial < 3000; trial++) {
    memcpy(buf, rich, len);
    size_t n = len;
    int edits = 1 + trial % 4;
    for (int e = 0; e < edits; e++) {
      seed = seed * 1664525u + 1013904223u;
      size_t pos = (seed >> 8) % n;
      seed = seed * 1664525u + 1013904223u;
      switch (trial % 3) {
        case 0:
          buf[pos] = alphabet[(seed >> 8) % (sizeof alphabet - 1)];
          break;
        case 1:
          memmove(buf + pos, buf + pos + 1, n - pos - 1);
          n--;
          break;
        default:
          n = pos + 1;  // truncate
          break;
      }
    }
    tsr_diag_init(&d);
    int r = tsr_model_load_string("x.yaml", buf, n, NULL, 0, &m, &d);
    if (r == 0) {
      loaded++;
      ENSURE(d.count == 0);
      tsr_model_free(&m);
    } else {
      rejected++;
      ENSURE(d.count > 0);
      for (int i = 0; i < d.count; i++) ENSURE(strncmp(d.messages[i], "x.yaml", 6) == 0);
    }
    tsr_diag_free(&d);
  }
  free(buf);
  fprintf(stderr, "  mangled models: %d loaded, %d rejected\n", loaded, rejected);
  ENSURE(rejected > 1000);
}

int main(void) {
  RUN_TEST(test_cases);
  RUN_TEST(test_cannot_open);
  RUN_TEST(test_diag_format);
  RUN_TEST(test_error_cap);
  RUN_TEST(test_aliases);
  RUN_TEST(test_mangled);
  return TSR_TEST_RESULT();
}
