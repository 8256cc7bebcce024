// SPDX-License-Identifier: MIT
// --set KEY=VALUE: edits of the YAML tree made before any checking, so an
// override is validated exactly like the file it changes.
//
// KEY is a dotted path: settings.solver.type, name, bodies.box.mass,
// bodies.box.shape.size, joints.u.compliance, materials.steel.friction.
// Under bodies/joints/materials the second part names an item (a whole
// array for arrays). VALUE is YAML in flow style: 0.01, pgs, [0, 0, -1.62],
// {type: sphere, radius: 0.1}. Nodes made from an override carry the text
// "--set KEY=VALUE" as their file and the column in KEY=VALUE as their mark,
// so a bad value or a misspelt key is reported at the override; so is a
// path that names nothing (`--set bodies.bx.mass=2:1:8: error: no body
// named 'bx'`).
#include "model/model_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SEGMENTS 16

static const char *const named_lists[] = {"bodies", "joints", "materials"};
static const char *const item_kind[] = {"body", "joint", "material"};

static int named_list(const char *seg) {
  for (int i = 0; i < 3; i++)
    if (strcmp(seg, named_lists[i]) == 0) return i;
  return -1;
}

static const char *item_name(const TsrYNode *item) {
  const TsrYNode *n = tsr_ytree_get(item, "name");
  return n && n->kind == TSR_YNODE_SCALAR ? n->value : NULL;
}

// An error in the override's own text, at column col of KEY=VALUE.
#define SET_ERROR(col, ...) tsr_diag_error(diag, label, &(TsrMark){1, (col)}, __VA_ARGS__)

// The item of `list` named `name` (at column col of the override labelled
// `label`), or NULL after reporting why not.
static TsrYNode *find_item(const TsrYNode *list, int kind, const char *name, const char *label, int col,
                           TsrDiag *diag) {
  int n = list && list->kind == TSR_YNODE_SEQ ? list->n : 0;
  const char *br = strchr(name, '[');
  size_t len = br ? (size_t)(br - name) : strlen(name);
  for (int i = 0; i < n; i++) {
    const char *s = item_name(list->items[i]);
    if (!s || strlen(s) != len || strncmp(s, name, len) != 0) continue;
    if (br) {
      SET_ERROR(col, "cannot override one element of the array '%s'; %s.%s.FIELD changes every element", s,
                named_lists[kind], s);
      return NULL;
    }
    return list->items[i];
  }
  const char **names = calloc((size_t)n + 1, sizeof *names);
  if (!names) abort();
  for (int i = 0; i < n; i++) names[i] = item_name(list->items[i]);
  char dym[160];
  tsr_model_did_you_mean(dym, sizeof dym, name, names, n);
  free(names);
  SET_ERROR(col, "no %s named '%s'%s", item_kind[kind], name, dym);
  return NULL;
}

// Sets map[key] = value, replacing an old value; takes value over. A new
// key is made with its mark at column `col` of the override.
static void put(TsrYNode *map, const char *key, TsrYNode *value, const char *label, int col) {
  int i = tsr_ytree_find(map, key);
  if (i >= 0) {
    tsr_ytree_free(map->items[i]);
    map->items[i] = value;
    return;
  }
  TsrYNode *k = tsr_ytree_new_scalar(label, (TsrMark){1, col}, key, 1);
  if (!k) abort();
  tsr_ytree_map_put(map, k, value);
}

static int apply_one(TsrYNode *root, const char *o, const char *label, TsrDiag *diag) {
  const char *eq = strchr(o, '=');
  if (!eq || eq == o) {
    SET_ERROR(1, "expected KEY=VALUE, e.g. settings.step=0.01");
    return 1;
  }
  // Split KEY into segments, remembering each one's column for marks.
  char key[512];
  size_t klen = (size_t)(eq - o);
  if (klen >= sizeof key) {
    SET_ERROR(1, "key too long (at most %d characters)", (int)sizeof key - 1);
    return 1;
  }
  memcpy(key, o, klen);
  key[klen] = '\0';
  char *seg[MAX_SEGMENTS];
  int col[MAX_SEGMENTS], n = 0;
  for (char *p = key;;) {
    char *dot = strchr(p, '.');
    if (dot) *dot = '\0';
    if (!*p || n == MAX_SEGMENTS) {
      SET_ERROR((int)(p - key) + 1, "bad key '%.*s': expected a path like settings.solver.type", (int)klen, o);
      return 1;
    }
    col[n] = (int)(p - key) + 1;
    seg[n++] = p;
    if (!dot) break;
    p = dot + 1;
  }

  TsrYNode *value = NULL;
  const char *text = eq + 1;
  if (tsr_ytree_parse(label, text, strlen(text), 0, (int)(text - o), &value, diag) != 0) return 1;
  if (!value) value = tsr_ytree_new_scalar(label, (TsrMark){1, (int)(text - o) + 1}, "", 1);

  TsrYNode *cur = root;
  for (int i = 0; i < n - 1; i++) {
    int list = cur == root ? named_list(seg[i]) : -1;
    if (list >= 0) {
      if (i + 2 >= n) {
        SET_ERROR(col[i], "expected %s.NAME.FIELD", seg[i]);
        tsr_ytree_free(value);
        return 1;
      }
      cur = find_item(tsr_ytree_get(root, seg[i]), list, seg[i + 1], label, col[i + 1], diag);
      if (!cur) {
        tsr_ytree_free(value);
        return 1;
      }
      if (cur->kind != TSR_YNODE_MAP) {
        SET_ERROR(col[i + 1], "%s '%s' is not a mapping", item_kind[list], seg[i + 1]);
        tsr_ytree_free(value);
        return 1;
      }
      i++;
      continue;
    }
    const TsrYNode *child = tsr_ytree_get(cur, seg[i]);
    if (!child) {
      // A section the file left out (settings.solver.type=pgs with no
      // `solver:`); validation reports it if the key itself is wrong.
      TsrYNode *map = tsr_ytree_new(TSR_YNODE_MAP, label, (TsrMark){1, col[i]});
      if (!map) abort();
      put(cur, seg[i], map, label, col[i]);
      cur = map;
    } else if (child->kind == TSR_YNODE_MAP) {
      cur = (TsrYNode *)child;
    } else {
      SET_ERROR(col[i], "'%s' is %s, not a mapping with keys", seg[i], tsr_ytree_describe(child));
      tsr_ytree_free(value);
      return 1;
    }
  }
  const char *last = seg[n - 1];
  // `steps` and `duration` say the same thing; an override of one replaces
  // whichever the file gave.
  if (n == 2 && strcmp(seg[0], "settings") == 0) {
    const char *other = strcmp(last, "steps") == 0 ? "duration" : strcmp(last, "duration") == 0 ? "steps" : NULL;
    int k = other ? tsr_ytree_find(cur, other) : -1;
    if (k >= 0) tsr_ytree_map_remove(cur, k);
  }
  put(cur, last, value, label, col[n - 1]);
  return 0;
}

int tsr_model_apply_overrides(TsrYNode *root, const char *const *overrides, int n, char **labels, TsrDiag *diag) {
  int errors = 0;
  for (int i = 0; i < n; i++) {
    if (!overrides[i]) continue;
    labels[i] = tsr_model_sprintf("--set %s", overrides[i]);
    if (!labels[i]) abort();
    errors += apply_one(root, overrides[i], labels[i], diag);
  }
  return errors;
}
