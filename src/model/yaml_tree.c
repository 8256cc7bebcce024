// SPDX-License-Identifier: MIT
// libyaml events -> a small tree of scalars, sequences and mappings.
//
// We build our own tree instead of using libyaml's document API because the
// checks that come later need, for every node, the mark (line, column) and
// the "file" the node came from: a --set override grafts nodes whose file is
// the override text. The tree also catches what libyaml lets through:
// duplicate keys, non-scalar keys, several documents, runaway aliases.
#include "model/model_internal.h"
#include "util/decimal.h"
#include "util/fnv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

// Bounds that keep hostile input from exhausting the stack or memory:
// nesting is recursive here, and aliases are expanded by copying.
#define MAX_DEPTH 128
#define MAX_NODES 4000000
// Aliases may copy, in all, ALIAS_RATIO nodes per node written in the file,
// or ALIAS_FLOOR, whichever is more. A model that reuses a shape or a block
// of settings copies a few nodes per body (ratio well under 1; 5,000 bodies
// with a 150-node compound each stay under 16); a "billion laughs" of 100
// nodes asks for 10^9. Each alias is measured before it is copied, so such a
// bomb is refused after at most ALIAS_FLOOR copies (a few ms, a few tens of
// MB), where MAX_NODES alone let it copy 4e6 nodes (0.6 to 3 s, 0.5 to 0.8 GB).
#define ALIAS_RATIO 16
#define ALIAS_FLOOR 200000

typedef struct {
  char *name;
  TsrYNode *node;
} Anchor;

typedef struct {
  yaml_parser_t parser;
  const char *file;
  TsrDiag *diag;
  int line0, col0;
  size_t len;
  long nodes;    // every node made, read or copied
  long aliased;  // of those, the nodes copied for aliases
  Anchor *anchors;
  int n_anchors, cap_anchors;
  int *slots;           // open addressing over the anchor names: index + 1 of the latest of each name, 0 empty
  int cap_slots;        // a power of two, more than twice the names
  TsrYNode *discarded;  // values of duplicate keys: anchors may still point into them
  int failed;
  int duplicates;
  int tags;
  const char *text;  // the input, to find a tag written after an anchor
} Parser;

static TsrMark mark_of(const Parser *p, yaml_mark_t m) {
  // libyaml counts from 0; a value parsed from an override sits on line 1
  // after the "KEY=" prefix, hence the offsets.
  TsrMark r = {(int)m.line + 1 + p->line0, (int)m.column + 1 + (m.line == 0 ? p->col0 : 0)};
  // An override value is one line; libyaml puts its end of input on the
  // next line, which the user never sees: point just past the text instead.
  if (p->col0 > 0 && m.line > 0) r = (TsrMark){1 + p->line0, p->col0 + (int)p->len + 1};
  return r;
}

static void fail(Parser *p, const TsrMark *mark, const char *fmt, const char *a, const char *b) {
  if (p->failed) return;
  p->failed = 1;
  tsr_diag_error(p->diag, p->file, mark, fmt, a, b);
}

static int next_event(Parser *p, yaml_event_t *ev) {
  if (yaml_parser_parse(&p->parser, ev)) return 1;
  yaml_parser_t *y = &p->parser;
  TsrMark mark = mark_of(p, y->problem_mark);
  const char *problem = y->problem ? y->problem : "malformed input";
  if (y->error == YAML_MEMORY_ERROR) {
    fail(p, NULL, "%s%s", "out of memory while reading YAML", "");
  } else if (y->context) {
    char ctx[256];
    TsrMark cm = mark_of(p, y->context_mark);
    snprintf(ctx, sizeof ctx, " (%s at line %d, column %d)", y->context, cm.line, cm.col);
    fail(p, &mark, "not valid YAML: %s%s", problem, ctx);
  } else {
    fail(p, &mark, "not valid YAML: %s%s", problem, "");
  }
  return 0;
}

TsrYNode *tsr_ytree_new(TsrYNodeKind kind, const char *file, TsrMark mark) {
  TsrYNode *n = calloc(1, sizeof *n);
  if (!n) return NULL;
  n->kind = kind;
  n->file = file;
  n->mark = mark;
  return n;
}

TsrYNode *tsr_ytree_new_scalar(const char *file, TsrMark mark, const char *value, int plain) {
  TsrYNode *n = tsr_ytree_new(TSR_YNODE_SCALAR, file, mark);
  if (!n) return NULL;
  n->value = tsr_model_strdup(value ? value : "");
  n->plain = plain;
  if (!n->value) {
    free(n);
    return NULL;
  }
  return n;
}

void tsr_ytree_free(TsrYNode *n) {
  if (!n) return;
  for (int i = 0; i < n->n; i++) {
    tsr_ytree_free(n->items[i]);
    if (n->keys) tsr_ytree_free(n->keys[i]);
  }
  free(n->items);
  free(n->keys);
  free(n->value);
  free(n);
}

void *tsr_model_grow(void *p, int n, int *cap, size_t elem) {
  if (n < *cap) return p;
  int c = *cap ? 2 * *cap : 8;
  void *q = realloc(p, (size_t)c * elem);
  if (!q) abort();  // out of memory while loading a model: nothing sensible to do
  *cap = c;
  return q;
}

void tsr_ytree_append(TsrYNode *seq, TsrYNode *item) {
  int cap = seq->cap;
  seq->items = tsr_model_grow(seq->items, seq->n, &cap, sizeof *seq->items);
  if (seq->kind == TSR_YNODE_MAP) {
    int kcap = seq->cap;
    seq->keys = tsr_model_grow(seq->keys, seq->n, &kcap, sizeof *seq->keys);
  }
  seq->cap = cap;
  seq->items[seq->n++] = item;
}

void tsr_ytree_map_put(TsrYNode *map, TsrYNode *key, TsrYNode *value) {
  tsr_ytree_append(map, value);
  map->keys[map->n - 1] = key;
}

int tsr_ytree_find(const TsrYNode *map, const char *key) {
  if (!map || map->kind != TSR_YNODE_MAP) return -1;
  for (int i = 0; i < map->n; i++)
    if (strcmp(map->keys[i]->value, key) == 0) return i;
  return -1;
}

const TsrYNode *tsr_ytree_get(const TsrYNode *map, const char *key) {
  int i = tsr_ytree_find(map, key);
  return i < 0 ? NULL : map->items[i];
}

void tsr_ytree_map_remove(TsrYNode *map, int i) {
  tsr_ytree_free(map->keys[i]);
  tsr_ytree_free(map->items[i]);
  memmove(map->keys + i, map->keys + i + 1, (size_t)(map->n - i - 1) * sizeof *map->keys);
  memmove(map->items + i, map->items + i + 1, (size_t)(map->n - i - 1) * sizeof *map->items);
  map->n--;
}

// The nodes of the tree at n (keys included), counting no further than
// limit + 1: measuring an alias costs no more than the copy it allows.
static long count_nodes(const TsrYNode *n, long limit) {
  long total = 1;
  for (int i = 0; i < n->n && total <= limit; i++) {
    total += count_nodes(n->items[i], limit - total);
    if (n->keys && total <= limit) total += count_nodes(n->keys[i], limit - total);
  }
  return total;
}

static TsrYNode *copy_node(Parser *p, const TsrYNode *src) {
  if (++p->nodes > MAX_NODES) return NULL;
  p->aliased++;
  TsrYNode *n = src->kind == TSR_YNODE_SCALAR ? tsr_ytree_new_scalar(src->file, src->mark, src->value, src->plain)
                                              : tsr_ytree_new(src->kind, src->file, src->mark);
  if (!n) return NULL;
  for (int i = 0; i < src->n; i++) {
    TsrYNode *v = copy_node(p, src->items[i]);
    TsrYNode *k = src->keys ? copy_node(p, src->keys[i]) : NULL;
    if (!v || (src->keys && !k)) {
      tsr_ytree_free(v);
      tsr_ytree_free(k);
      tsr_ytree_free(n);
      return NULL;
    }
    if (src->kind == TSR_YNODE_MAP)
      tsr_ytree_map_put(n, k, v);
    else
      tsr_ytree_append(n, v);
  }
  return n;
}

// The anchors are found by name through a hash table: a search of the list
// per alias made 100,000 anchors and aliases (1.8 MB) take 9 s to check.
static size_t name_hash(const char *s) { return (size_t)tsr_fnv1a_str(s); }

// The slot of name: where it is, or the empty slot where it would go.
static int *anchor_slot(Parser *p, const char *name) {
  size_t mask = (size_t)p->cap_slots - 1;
  for (size_t i = name_hash(name) & mask;; i = (i + 1) & mask) {
    int *q = &p->slots[i];
    if (!*q || !strcmp(p->anchors[*q - 1].name, name)) return q;
  }
}

// The latest anchor called name, or NULL.
static TsrYNode *find_anchor(Parser *p, const char *name) {
  if (!p->cap_slots) return NULL;
  int *q = anchor_slot(p, name);
  return *q ? p->anchors[*q - 1].node : NULL;
}

static void add_anchor(Parser *p, const yaml_char_t *name, TsrYNode *n) {
  if (!name) return;
  p->anchors = tsr_model_grow(p->anchors, p->n_anchors, &p->cap_anchors, sizeof *p->anchors);
  p->anchors[p->n_anchors].name = tsr_model_strdup((const char *)name);
  p->anchors[p->n_anchors].node = n;
  p->n_anchors++;
  if (2 * p->n_anchors >= p->cap_slots) {  // rebuilt from the list, later anchors last
    free(p->slots);
    p->cap_slots = p->cap_slots ? 2 * p->cap_slots : 64;
    p->slots = calloc((size_t)p->cap_slots, sizeof *p->slots);
    if (!p->slots) abort();  // (as tsr_model_grow does)
    for (int i = 0; i < p->n_anchors - 1; i++) *anchor_slot(p, p->anchors[i].name) = i + 1;
  }
  // A later anchor of the same name shadows the earlier one (YAML 1.2).
  *anchor_slot(p, p->anchors[p->n_anchors - 1].name) = p->n_anchors;
}

// Where a node's tag is written. libyaml marks a node at its first property:
// the tag itself, or an anchor before it ("&a !!int 1"); then the tag is
// the first '!' after the mark (an anchor's name has none), past blanks,
// line breaks and comments.
static TsrMark tag_mark(const Parser *p, yaml_mark_t m, int has_anchor) {
  const char *s = p->text, *end = p->text + p->len;
  if (!has_anchor || !s) return mark_of(p, m);
  if (end - s >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3)) s += 3;  // a byte order mark takes no column
  for (size_t line = 0; s < end && line < m.line; s++)
    if (*s == '\n' || (*s == '\r' && (s + 1 == end || s[1] != '\n'))) line++;
  for (size_t col = 0; s < end && col < m.column; col++) {  // columns count characters, not bytes
    s++;
    while (s < end && ((unsigned char)*s & 0xC0) == 0x80) s++;  // the rest of a UTF-8 character
  }
  yaml_mark_t t = m;
  for (; s < end && *s != '!'; s++) {
    if (*s == '#') {
      while (s + 1 < end && s[1] != '\n' && s[1] != '\r') s++;
    } else if (*s == '\n' || (*s == '\r' && (s + 1 == end || s[1] != '\n'))) {
      t.line++;
      t.column = 0;
    } else if (*s != '\r') {
      t.column++;
    }
  }
  return mark_of(p, s < end ? t : m);
}

// Tags are refused: `!!int 1.5` was read as 1.5, an unknown `!heavy 2.0`
// as 2.0, and `!!float "1.0"` refused as a string. Honouring some (which
// ones, and what does !!int 1.5 mean?) would make a value's type depend on
// more than how it is written, for no gain in a model file. Not fatal to
// parsing, so every tag is reported; the load fails after it.
static void refuse_tag(Parser *p, const yaml_event_t *ev, const yaml_char_t *tag, const yaml_char_t *anchor) {
  if (!tag) return;
  static const char core[] = "tag:yaml.org,2002:";
  const char *t = (const char *)tag;
  // As written: !!int for the core schema's, !name for a local tag,
  // !<...> for any other.
  char shown[80];
  if (strncmp(t, core, sizeof core - 1) == 0)
    snprintf(shown, sizeof shown, "!!%.60s", t + sizeof core - 1);
  else if (t[0] == '!')
    snprintf(shown, sizeof shown, "%.60s", t);
  else
    snprintf(shown, sizeof shown, "!<%.60s>", t);
  TsrMark mark = tag_mark(p, ev->start_mark, anchor != NULL);
  tsr_diag_error(p->diag, p->file, &mark,
                 "YAML tags are not supported: remove '%s' (a value's type is what it looks like: 1.5 is a number, "
                 "\"1.5\" a string)",
                 shown);
  p->tags++;
}

static TsrYNode *parse_node(Parser *p, yaml_event_t *ev, int depth);

// Parses the children of a sequence or mapping whose start event was read.
static int parse_children(Parser *p, TsrYNode *n, int depth) {
  for (;;) {
    yaml_event_t ev;
    if (!next_event(p, &ev)) return 0;
    if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT) {
      yaml_event_delete(&ev);
      return 1;
    }
    TsrYNode *child = parse_node(p, &ev, depth + 1);
    yaml_event_delete(&ev);
    if (!child) return 0;
    if (n->kind == TSR_YNODE_SEQ) {
      tsr_ytree_append(n, child);
      continue;
    }
    // Mapping: child is the key; the value follows.
    if (!next_event(p, &ev)) {
      tsr_ytree_free(child);
      return 0;
    }
    TsrYNode *value = parse_node(p, &ev, depth + 1);
    yaml_event_delete(&ev);
    if (!value) {
      tsr_ytree_free(child);
      return 0;
    }
    if (child->kind != TSR_YNODE_SCALAR) {
      fail(p, &child->mark, "%s%s", "mapping keys must be plain words, not a sequence or mapping", "");
    } else {
      int prev = tsr_ytree_find(n, child->value);
      if (prev >= 0) {
        char where[64];
        snprintf(where, sizeof where, "%d:%d", n->keys[prev]->mark.line, n->keys[prev]->mark.col);
        // Not fatal to parsing, but the tree would be ambiguous: report and
        // keep the first value so the other checks still run.
        tsr_diag_error(p->diag, p->file, &child->mark, "duplicate key '%s' (first given at %s)", child->value, where);
        p->duplicates++;
        // Kept, not freed: an anchor on the key ("&k a: 2") is registered
        // and a later alias (*k) copies it (freed, it was read after free).
        tsr_ytree_append(p->discarded, child);
        tsr_ytree_append(p->discarded, value);
        continue;
      }
    }
    if (p->failed) {
      tsr_ytree_free(child);
      tsr_ytree_free(value);
      return 0;
    }
    tsr_ytree_map_put(n, child, value);
  }
}

static TsrYNode *parse_node(Parser *p, yaml_event_t *ev, int depth) {
  TsrMark mark = mark_of(p, ev->start_mark);
  if (depth > MAX_DEPTH) {
    fail(p, &mark, "%s%s", "nesting too deep", "");
    return NULL;
  }
  if (++p->nodes > MAX_NODES) {
    fail(p, &mark, "%s%s", "too many YAML nodes (runaway aliases?)", "");
    return NULL;
  }
  TsrYNode *n = NULL;
  switch (ev->type) {
    case YAML_SCALAR_EVENT: {
      refuse_tag(p, ev, ev->data.scalar.tag, ev->data.scalar.anchor);
      int plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
      n = tsr_ytree_new_scalar(p->file, mark, (const char *)ev->data.scalar.value, plain);
      if (n) add_anchor(p, ev->data.scalar.anchor, n);
      return n;
    }
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
      int seq = ev->type == YAML_SEQUENCE_START_EVENT;
      n = tsr_ytree_new(seq ? TSR_YNODE_SEQ : TSR_YNODE_MAP, p->file, mark);
      if (!n) return NULL;
      const yaml_char_t *anchor = seq ? ev->data.sequence_start.anchor : ev->data.mapping_start.anchor;
      refuse_tag(p, ev, seq ? ev->data.sequence_start.tag : ev->data.mapping_start.tag, anchor);
      if (!parse_children(p, n, depth)) {
        tsr_ytree_free(n);
        return NULL;
      }
      // Registered after the children so that the anchor cannot refer to
      // itself (libyaml would accept "&a [*a]").
      add_anchor(p, anchor, n);
      return n;
    }
    case YAML_ALIAS_EVENT: {
      const char *name = (const char *)ev->data.alias.anchor;
      TsrYNode *target = find_anchor(p, name);
      if (target) {
        long written = p->nodes - p->aliased;
        long allowed = written > ALIAS_FLOOR / ALIAS_RATIO ? ALIAS_RATIO * written : ALIAS_FLOOR;
        long room = allowed - p->aliased;
        long size = count_nodes(target, room);
        if (size > room) {
          char what[320];
          snprintf(what, sizeof what,
                   "alias '*%.100s' would copy more than the %ld YAML nodes left to aliases (a file's aliases may copy "
                   "%d nodes per node written in it, at least %d in all; runaway aliases?)",
                   name, room, ALIAS_RATIO, ALIAS_FLOOR);
          fail(p, &mark, "%s%s", what, "");
          return NULL;
        }
        n = copy_node(p, target);
        if (!n) fail(p, &mark, "%s%s", "too many YAML nodes (runaway aliases?)", "");
        return n;
      }
      fail(p, &mark, "unknown alias '*%s'%s", name, "");
      return NULL;
    }
    default:
      fail(p, &mark, "%s%s", "unexpected YAML event", "");
      return NULL;
  }
}

int tsr_ytree_parse(const char *file, const char *text, size_t len, int line0, int col0, TsrYNode **root,
                    TsrDiag *diag) {
  *root = NULL;
  Parser p = {.file = file, .diag = diag, .line0 = line0, .col0 = col0, .len = len, .text = text};
  if (!yaml_parser_initialize(&p.parser)) {
    tsr_diag_error(diag, file, NULL, "out of memory");
    return -1;
  }
  yaml_parser_set_input_string(&p.parser, (const unsigned char *)text, len);
  p.discarded = tsr_ytree_new(TSR_YNODE_SEQ, file, (TsrMark){0, 0});
  if (!p.discarded) abort();
  TsrYNode *doc = NULL;
  int done = 0;
  while (!done && !p.failed) {
    yaml_event_t ev;
    if (!next_event(&p, &ev)) break;
    switch (ev.type) {
      case YAML_STREAM_END_EVENT:
        done = 1;
        break;
      case YAML_STREAM_START_EVENT:
      case YAML_DOCUMENT_END_EVENT:
        break;
      case YAML_DOCUMENT_START_EVENT:
        if (doc) {
          TsrMark m = mark_of(&p, ev.start_mark);
          fail(&p, &m, "%s%s", "a model file holds one YAML document; found a second one here", "");
        }
        break;
      default:
        doc = parse_node(&p, &ev, 0);
        if (!doc) p.failed = 1;
        break;
    }
    yaml_event_delete(&ev);
  }
  // Duplicate keys and tags do not stop parsing, so later syntax errors
  // are found too, but the load fails.
  if (p.duplicates || p.tags) p.failed = 1;
  tsr_ytree_free(p.discarded);
  for (int i = 0; i < p.n_anchors; i++) free(p.anchors[i].name);
  free(p.anchors);
  free(p.slots);
  yaml_parser_delete(&p.parser);
  if (p.failed) {
    tsr_ytree_free(doc);
    return -1;
  }
  *root = doc;
  return 0;
}

// ---------------------------------------------------------------- scalars

// YAML 1.2 core schema numbers, decimal only: ints and floats, [-+].inf and
// .nan. The core schema's 0x and 0o ints are not numbers here (values.c
// refuses them by name): read as such, `mass: 0x10` was 16 kg and `steps:
// 0o10` 8 steps, a surprise in an engineering input, and option values
// (`--set` too) are plain decimals (README). Anything else (including
// strtod's "nan", "1e", "0x1p3") is a string.
static int parse_number(const char *s, double *out) {
  const char *p = s;
  if (*p == '+' || *p == '-') p++;
  if (!strcmp(p, ".inf") || !strcmp(p, ".Inf") || !strcmp(p, ".INF")) {
    *out = s[0] == '-' ? -INFINITY : INFINITY;
    return 1;
  }
  if (!strcmp(s, ".nan") || !strcmp(s, ".NaN") || !strcmp(s, ".NAN")) {
    *out = NAN;
    return 1;
  }
  return tsr_parse_decimal(s, out);  // may overflow to inf: caught as non-finite later
}

TsrYScalarType tsr_ytree_scalar_type(const TsrYNode *n, double *number, int *boolean) {
  if (!n->plain) return TSR_YSCALAR_STRING;
  const char *v = n->value;
  if (!v[0] || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") || !strcmp(v, "NULL"))
    return TSR_YSCALAR_NULL;
  if (!strcmp(v, "true") || !strcmp(v, "True") || !strcmp(v, "TRUE")) {
    if (boolean) *boolean = 1;
    return TSR_YSCALAR_BOOL;
  }
  if (!strcmp(v, "false") || !strcmp(v, "False") || !strcmp(v, "FALSE")) {
    if (boolean) *boolean = 0;
    return TSR_YSCALAR_BOOL;
  }
  double d;
  if (parse_number(v, &d)) {
    if (number) *number = d;
    return TSR_YSCALAR_NUMBER;
  }
  return TSR_YSCALAR_STRING;
}

const char *tsr_ytree_describe(const TsrYNode *n) {
  if (!n) return "nothing";
  switch (n->kind) {
    case TSR_YNODE_SEQ:
      return "a sequence";
    case TSR_YNODE_MAP:
      return "a mapping";
    default:
      break;
  }
  switch (tsr_ytree_scalar_type(n, NULL, NULL)) {
    case TSR_YSCALAR_NULL:
      return "null (an empty value)";
    case TSR_YSCALAR_BOOL:
      return "a boolean";
    case TSR_YSCALAR_NUMBER:
      return "a number";
    default:
      return "a string";
  }
}
