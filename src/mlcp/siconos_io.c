// SPDX-License-Identifier: MIT
// Reader for the Siconos numerics text problem files (LCP, MLCP, Relay), the
// external test problems in shared/external/siconos (README there, §1-4).
//
// What is read (files are whitespace-separated tokens, C fscanf style):
//   Matrix block ("NumericsMatrix"): <storage> <rows> <cols> then
//     storage 0 (dense):  <rows> <cols> again, rows*cols values COLUMN-MAJOR;
//     storage 1 (SBM):    <nbblocks>; if > 0: <nbr> <nbc>, cumulative row ends
//                         [nbr], cumulative column ends [nbc], <filled1> <filled2>,
//                         block-row pointer [filled1], block-column index [filled2],
//                         then per stored block its number and its values COLUMN-MAJOR;
//     storage 2 (CSparse text dump, line-oriented): <origin> (1 triplet, 2 CSC),
//                         a banner line, a header line "R-by-C, nzmax: .." (CSC) or
//                         "triplet: R-by-C, ..", then "col j : locations a to b" +
//                         "i : v" lines (CSC) or "i j : v" lines (triplet).
//   LCP   (0 <= z ⊥ M z + q >= 0): <n> <M> <q>              -> lo = 0, hi = +inf
//   MLCP: <st1> <st2> <n> <m> <blocksRows...> <blocksIsComp[nb]>, then when st1
//         <M> <q>, else A (n x n), B (m x m), C (n x m), D (m x n) ROW-major and
//         a, b; M = [A C; D B], q = (a; b). The first n variables are the
//         equalities (lo = -inf, hi = +inf), the last m are complementarity
//         variables (lo = 0, hi = +inf). Siconos' n and m are not ours: our m
//         is the total size n + m.
//   Relay (box LCP): <n> <M> <q> <lb> <ub>                 -> lo = lb, hi = ub
// Trailing tokens (comments, stale solutions) are ignored; an LCP followed by
// 2n numbers that read as bounds lb <= ub gets a warning in err (a relay file
// read with --format lcp), and is still returned. Mapping to TsrMlcp:
// lambda = z, A = M, b = q, w = A lambda + b; symmetric = 1 only when M == M^T
// exactly. Inconsistent files (a non-square M, M not n x n, lb > ub, a short
// file, a non-number) are rejected with "path:line: error: cause".
#include "mlcp/mlcp.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *path;
  char *s;
  size_t len, pos;
  int line;
  char *err;
  size_t errlen;
} Tok;

typedef struct {
  int rows, cols;
  int n, cap;
  int *ti, *tj;
  double *tx;
} Triplets;

static int fail(Tok *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(Tok *t, const char *fmt, ...) {
  if (t->err && t->errlen) {
    int k = snprintf(t->err, t->errlen, "%s:%d: error: ", t->path, t->line);
    if (k < 0) k = 0;
    if ((size_t)k < t->errlen) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(t->err + k, t->errlen - (size_t)k, fmt, ap);
      va_end(ap);
    }
  }
  return -1;
}

// Next token in [*start, *start + *n); 0 at end of file.
static int next_token(Tok *t, const char **start, size_t *n) {
  int line0 = t->line;
  while (t->pos < t->len && (t->s[t->pos] == ' ' || t->s[t->pos] == '\t' || t->s[t->pos] == '\n' ||
                             t->s[t->pos] == '\r' || t->s[t->pos] == '\f' || t->s[t->pos] == '\v')) {
    if (t->s[t->pos] == '\n') t->line++;
    t->pos++;
  }
  if (t->pos >= t->len) {
    t->line = line0;  // report end of file on the last line read
    return 0;
  }
  size_t b = t->pos;
  while (t->pos < t->len && !strchr(" \t\n\r\f\v", t->s[t->pos])) t->pos++;
  *start = t->s + b;
  *n = t->pos - b;
  return 1;
}

static void skip_line(Tok *t) {
  while (t->pos < t->len && t->s[t->pos] != '\n') t->pos++;
  if (t->pos < t->len) {
    t->pos++;
    t->line++;
  }
}

static int read_double(Tok *t, double *v, const char *what, long idx) {
  const char *s;
  size_t n;
  char name[96];
  if (idx >= 0)
    snprintf(name, sizeof name, "%s[%ld]", what, idx);
  else
    snprintf(name, sizeof name, "%s", what);
  if (!next_token(t, &s, &n)) return fail(t, "unexpected end of file while reading %s", name);
  char buf[128];
  if (n >= sizeof buf) return fail(t, "expected a number for %s, got a %zu-character token", name, n);
  memcpy(buf, s, n);
  buf[n] = 0;
  char *end;
  errno = 0;
  double x = strtod(buf, &end);
  if (end == buf || *end) return fail(t, "expected a number for %s, got '%s'", name, buf);
  // NaN has no meaning in a problem's data, and an infinite entry of M or q
  // none either (the solvers would report it solved at residual 0); only a
  // relay's bounds lb, ub may be infinite.
  int bound = !strcmp(what, "lb") || !strcmp(what, "ub");
  if (isnan(x) || (isinf(x) && !bound)) return fail(t, "%s is %s; the problem's data must be finite", name, buf);
  *v = x;
  return 0;
}

static int read_int(Tok *t, int *v, const char *what, long lo, long hi) {
  const char *s;
  size_t n;
  if (!next_token(t, &s, &n)) return fail(t, "unexpected end of file while reading %s", what);
  char buf[64];
  if (n >= sizeof buf) return fail(t, "expected an integer for %s", what);
  memcpy(buf, s, n);
  buf[n] = 0;
  if (n > 1 && buf[n - 1] == ',') buf[n - 1] = 0;  // "nnz: 3822," in CSparse headers
  char *end;
  errno = 0;
  long x = strtol(buf, &end, 10);
  if (end == buf || *end || errno) return fail(t, "expected an integer for %s, got '%s'", what, buf);
  if (x < lo || x > hi) return fail(t, "%s = %ld is out of range [%ld, %ld]", what, x, lo, hi);
  *v = (int)x;
  return 0;
}

static int expect_word(Tok *t, const char *word) {
  const char *s;
  size_t n;
  if (!next_token(t, &s, &n)) return fail(t, "unexpected end of file, expected '%s'", word);
  if (n != strlen(word) || memcmp(s, word, n))
    return fail(t, "expected '%s', got '%.*s'", word, (int)(n > 40 ? 40 : n), s);
  return 0;
}

static int trip_push(Triplets *T, int i, int j, double v) {
  if (v == 0.0) return 0;
  if (T->n == T->cap) {
    if (T->cap > INT_MAX / 2 - 1) return -1;  // (2 cap would overflow: "out of memory" for 1e9 entries)
    int c = T->cap ? 2 * T->cap : 256;
    int *a = realloc(T->ti, (size_t)c * sizeof *a);
    if (!a) return -1;
    T->ti = a;
    a = realloc(T->tj, (size_t)c * sizeof *a);
    if (!a) return -1;
    T->tj = a;
    double *x = realloc(T->tx, (size_t)c * sizeof *x);
    if (!x) return -1;
    T->tx = x;
    T->cap = c;
  }
  T->ti[T->n] = i;
  T->tj[T->n] = j;
  T->tx[T->n++] = v;
  return 0;
}

static void trip_free(Triplets *T) {
  free(T->ti);
  free(T->tj);
  free(T->tx);
  memset(T, 0, sizeof *T);
}

#define TSR_SICONOS_MAX_DIM 10000000

// One NumericsMatrix (§1 of the README) into triplets.
static int read_matrix(Tok *t, const char *name, Triplets *T) {
  int storage, rows, cols;
  char what[64];
  snprintf(what, sizeof what, "the storage type of %s", name);
  if (read_int(t, &storage, what, 0, 2)) return -1;
  snprintf(what, sizeof what, "the row count of %s", name);
  if (read_int(t, &rows, what, 0, TSR_SICONOS_MAX_DIM)) return -1;
  snprintf(what, sizeof what, "the column count of %s", name);
  if (read_int(t, &cols, what, 0, TSR_SICONOS_MAX_DIM)) return -1;
  T->rows = rows;
  T->cols = cols;
  if (storage == 0) {
    int r2, c2;
    if (read_int(t, &r2, "the repeated row count", 0, TSR_SICONOS_MAX_DIM) ||
        read_int(t, &c2, "the repeated column count", 0, TSR_SICONOS_MAX_DIM))
      return -1;
    if (r2 != rows || c2 != cols) return fail(t, "%s is declared %dx%d, then %dx%d", name, rows, cols, r2, c2);
    if ((long long)rows * cols > 100000000LL)
      return fail(t, "%s (%dx%d) is too large for dense storage", name, rows, cols);
    for (long k = 0; k < (long)rows * cols; k++) {
      double v;
      if (read_double(t, &v, name, k)) return -1;
      if (trip_push(T, (int)(k % rows), (int)(k / rows), v)) return fail(t, "out of memory");
    }
    return 0;
  }
  if (storage == 1) {
    int nb, nbr, nbc, f1, f2;
    if (read_int(t, &nb, "the SBM block count", 0, TSR_SICONOS_MAX_DIM)) return -1;
    if (nb == 0) return 0;
    if (read_int(t, &nbr, "the SBM block-row count", 1, TSR_SICONOS_MAX_DIM) ||
        read_int(t, &nbc, "the SBM block-column count", 1, TSR_SICONOS_MAX_DIM))
      return -1;
    int *rend = calloc((size_t)nbr, sizeof *rend), *cend = calloc((size_t)nbc, sizeof *cend);
    int *ptr = NULL, *bcol = NULL, rc = -1;
    if (!rend || !cend) goto sbm_done;
    for (int k = 0; k < nbr; k++)
      if (read_int(t, &rend[k], "a cumulative block-row size", k ? rend[k - 1] : 0, rows)) goto sbm_done;
    for (int k = 0; k < nbc; k++)
      if (read_int(t, &cend[k], "a cumulative block-column size", k ? cend[k - 1] : 0, cols)) goto sbm_done;
    if (rend[nbr - 1] != rows || cend[nbc - 1] != cols) {
      fail(t, "%s: SBM blocks cover %dx%d, the matrix is %dx%d", name, rend[nbr - 1], cend[nbc - 1], rows, cols);
      goto sbm_done;
    }
    if (read_int(t, &f1, "filled1", nbr + 1, nbr + 1) || read_int(t, &f2, "filled2", nb, nb)) goto sbm_done;
    ptr = calloc((size_t)f1, sizeof *ptr);
    bcol = calloc((size_t)f2, sizeof *bcol);
    if (!ptr || !bcol) goto sbm_done;
    for (int k = 0; k < f1; k++)
      if (read_int(t, &ptr[k], "a block-row pointer", k ? ptr[k - 1] : 0, nb)) goto sbm_done;
    if (ptr[0] != 0 || ptr[f1 - 1] != nb) {
      fail(t, "%s: the block-row pointers do not run from 0 to %d", name, nb);
      goto sbm_done;
    }
    for (int k = 0; k < f2; k++)
      if (read_int(t, &bcol[k], "a block-column index", 0, nbc - 1)) goto sbm_done;
    for (int I = 0; I < nbr; I++) {
      int r0 = I ? rend[I - 1] : 0, nr = rend[I] - r0;
      for (int b = ptr[I]; b < ptr[I + 1]; b++) {
        int J = bcol[b], c0 = J ? cend[J - 1] : 0, nc = cend[J] - c0, num;
        if (read_int(t, &num, "a block number", b, b)) goto sbm_done;
        for (long k = 0; k < (long)nr * nc; k++) {  // (65536 x 65536 overflowed an int)
          double v;
          if (read_double(t, &v, name, -1)) goto sbm_done;
          if (trip_push(T, r0 + (int)(k % nr), c0 + (int)(k / nr), v)) {
            fail(t, "out of memory");
            goto sbm_done;
          }
        }
      }
    }
    rc = 0;
  sbm_done:
    free(rend);
    free(cend);
    free(ptr);
    free(bcol);
    return rc;
  }
  // storage 2: CSparse text dump.
  int origin;
  if (read_int(t, &origin, "the sparse origin", 1, 3)) return -1;
  if (origin == 3) return fail(t, "%s: CSR sparse dumps are not supported", name);
  skip_line(t);  // rest of the origin line
  skip_line(t);  // "CSparse Version ..." banner
  const char *s;
  size_t n;
  if (!next_token(t, &s, &n)) return fail(t, "unexpected end of file in the header of %s", name);
  if (origin == 1) {
    if (n != 8 || memcmp(s, "triplet:", 8)) return fail(t, "%s: expected 'triplet:' header", name);
    if (!next_token(t, &s, &n)) return fail(t, "unexpected end of file in the header of %s", name);
  }
  int hr, hc;
  char hdr[64];
  snprintf(hdr, sizeof hdr, "%.*s", (int)(n < 63 ? n : 63), s);
  if (sscanf(hdr, "%d-by-%d", &hr, &hc) != 2 || hr != rows || hc != cols)
    return fail(t, "%s: header '%s' does not match %dx%d", name, hdr, rows, cols);
  int nzmax, nnz;
  if (expect_word(t, "nzmax:") || read_int(t, &nzmax, "nzmax", 0, 2000000000) || expect_word(t, "nnz:") ||
      read_int(t, &nnz, "nnz", -1, 2000000000))
    return -1;
  skip_line(t);  // ", 1-norm: ..." (CSC)
  if (origin == 1) {
    if (nnz < 0) nnz = nzmax;
    for (int k = 0; k < nnz; k++) {
      int i, j;
      double v;
      if (read_int(t, &i, "a triplet row", 0, rows - 1) || read_int(t, &j, "a triplet column", 0, cols - 1) ||
          expect_word(t, ":") || read_double(t, &v, name, -1))
        return -1;
      if (trip_push(T, i, j, v)) return fail(t, "out of memory");
    }
    return 0;
  }
  for (int j = 0; j < cols; j++) {
    int col, a, b;
    if (expect_word(t, "col") || read_int(t, &col, "a column number", j, j) || expect_word(t, ":") ||
        expect_word(t, "locations") || read_int(t, &a, "a location", 0, 2000000000) || expect_word(t, "to") ||
        read_int(t, &b, "a location", a - 1, 2000000000))
      return -1;
    for (int p = a; p <= b; p++) {
      int i;
      double v;
      if (read_int(t, &i, "a row index", 0, rows - 1) || expect_word(t, ":") || read_double(t, &v, name, -1)) return -1;
      if (trip_push(T, i, j, v)) return fail(t, "out of memory");
    }
  }
  return 0;
}

static int read_vector(Tok *t, const char *name, int n, double *v) {
  for (int i = 0; i < n; i++)
    if (read_double(t, &v[i], name, i)) return -1;
  return 0;
}

static int cmp_int_asc(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

// Square triplets -> CSC (sorted, duplicates summed, diagonal always present).
static int triplets_to_mlcp(const Triplets *T, TsrMlcp *out) {
  int m = T->rows;
  if (tsr_mlcp_reserve(out, m, T->n + m)) return -1;
  int *cnt = calloc((size_t)m + 1, sizeof *cnt);
  double *col = calloc((size_t)(m > 0 ? m : 1), sizeof *col);
  int *mark = malloc((size_t)(m > 0 ? m : 1) * sizeof *mark);
  int *idx = malloc((size_t)(T->n + 1) * sizeof *idx);
  int *rows = malloc(((size_t)T->n + 2) * sizeof *rows);  // a column's rows
  if (!cnt || !col || !mark || !idx || !rows) {
    free(cnt), free(col), free(mark), free(idx), free(rows);
    return -1;
  }
  for (int k = 0; k < T->n; k++) cnt[T->tj[k] + 1]++;
  for (int j = 0; j < m; j++) cnt[j + 1] += cnt[j];
  for (int k = 0; k < T->n; k++) idx[cnt[T->tj[k]]++] = k;  // triplets grouped by column
  for (int j = m; j > 0; j--) cnt[j] = cnt[j - 1];
  cnt[0] = 0;
  for (int i = 0; i < m; i++) mark[i] = 0;
  int nz = 0;
  for (int j = 0; j < m; j++) {
    out->Ap[j] = nz;
    // The column's distinct rows, sorted: its own entries only (a scan of
    // all m rows per column made a 400 KB file of 200,000 rows take 10 s).
    int nr = 0;
    for (int q = cnt[j]; q < cnt[j + 1]; q++) {
      int k = idx[q], i = T->ti[k];
      if (mark[i] != j + 1) mark[i] = j + 1, rows[nr++] = i;
      col[i] += T->tx[k];
    }
    if (mark[j] != j + 1) mark[j] = j + 1, rows[nr++] = j;
    qsort(rows, (size_t)nr, sizeof *rows, cmp_int_asc);
    for (int r = 0; r < nr; r++) {
      int i = rows[r];
      if (col[i] != 0.0 || i == j) {
        out->Ai[nz] = i;
        out->Ax[nz++] = col[i];
      }
      col[i] = 0.0;
    }
  }
  out->Ap[m] = nz;
  free(cnt), free(col), free(mark), free(idx), free(rows);
  // Exact symmetry: every off-diagonal (i, j) has an equal (j, i).
  int sym = 1;
  for (int j = 0; j < m && sym; j++)
    for (int q = out->Ap[j]; q < out->Ap[j + 1] && sym; q++) {
      int i = out->Ai[q], found = 0;
      if (i == j) continue;
      for (int r = out->Ap[i]; r < out->Ap[i + 1]; r++)
        if (out->Ai[r] == j) {
          found = out->Ax[r] == out->Ax[q];
          break;
        }
      sym = found;
    }
  out->symmetric = sym;
  return 0;
}

int tsr_mlcp_siconos_kind(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = strlen(base);
  if (strstr(path, "/MLCP/") || (n >= 9 && !strcmp(base + n - 9, "_mlcp.dat"))) return TSR_SICONOS_MLCP;
  if (strstr(path, "/Relay/") || !strncmp(base, "relay", 5)) return TSR_SICONOS_RELAY;
  if (strstr(path, "/LCP/") || !strncmp(base, "lcp_", 4)) return TSR_SICONOS_LCP;
  return TSR_SICONOS_AUTO;
}

// Whether the tokens after the position are at least 2n numbers whose first
// n are each at or below the matching one of the next n: a relay file's lb
// and ub. The position is left where it was.
static int trailing_bounds(Tok *t, int n) {
  Tok u = *t;  // a copy: read_double moves it, and says nothing without err
  u.err = NULL;
  u.errlen = 0;
  double *v = malloc(2 * (size_t)n * sizeof *v);
  int ok = v != NULL;
  for (int k = 0; k < 2 * n && ok; k++) ok = read_double(&u, &v[k], k < n ? "lb" : "ub", -1) == 0;
  for (int k = 0; k < n && ok; k++) ok = v[k] <= v[n + k];
  free(v);
  return ok;
}

static int read_problem(Tok *t, int kind, TsrMlcp *out) {
  Triplets M = {0};
  double *q = NULL;
  int rc = -1, n = 0, n_eq = 0;
  if (kind == TSR_SICONOS_LCP || kind == TSR_SICONOS_RELAY) {
    if (read_int(t, &n, "the problem size n", 0, TSR_SICONOS_MAX_DIM) || read_matrix(t, "M", &M)) goto done;
    if (M.rows != n || M.cols != n) {
      fail(t, "M is %dx%d but the problem size is %d", M.rows, M.cols, n);
      goto done;
    }
  } else {
    int st1, st2, ne, nc;
    if (read_int(t, &st1, "isStorageType1", 0, 1) || read_int(t, &st2, "isStorageType2", 0, 1) ||
        read_int(t, &ne, "n (equalities)", 0, TSR_SICONOS_MAX_DIM) ||
        read_int(t, &nc, "m (complementarity rows)", 0, TSR_SICONOS_MAX_DIM))
      goto done;
    if (!st1 && !st2) {
      fail(t, "the file holds neither the (M, q) nor the (A, B, C, D, a, b) form");
      goto done;
    }
    n = ne + nc;
    n_eq = ne;
    int nrows = 0, v = -1;
    do {  // blocksRows: integers until one is >= n + m
      if (read_int(t, &v, "a blocksRows entry", 0, TSR_SICONOS_MAX_DIM)) goto done;
      if (++nrows > n + 2) {
        fail(t, "blocksRows does not reach n + m = %d", n);
        goto done;
      }
    } while (v < n);
    for (int k = 0; k < nrows - 1; k++) {
      int flag;
      if (read_int(t, &flag, "a blocksIsComp flag", 0, 1)) goto done;
    }
    if (st1) {
      if (read_matrix(t, "M", &M)) goto done;
      if (M.rows != n || M.cols != n) {
        fail(t, "M is %dx%d but n + m = %d + %d = %d (inconsistent file)", M.rows, M.cols, ne, nc, n);
        goto done;
      }
    } else {
      // Blocks A (ne x ne), B (nc x nc), C (ne x nc), D (nc x ne), row-major.
      M.rows = M.cols = n;
      struct {
        const char *name;
        int r0, c0, nr, nc;
      } blk[4] = {{"A", 0, 0, ne, ne}, {"B", ne, ne, nc, nc}, {"C", 0, ne, ne, nc}, {"D", ne, 0, nc, ne}};
      for (int k = 0; k < 4; k++)
        for (int i = 0; i < blk[k].nr; i++)
          for (int j = 0; j < blk[k].nc; j++) {
            double x;
            if (read_double(t, &x, blk[k].name, (long)i * blk[k].nc + j)) goto done;
            if (trip_push(&M, blk[k].r0 + i, blk[k].c0 + j, x)) goto done;
          }
    }
  }
  q = malloc((size_t)(n > 0 ? n : 1) * sizeof *q);
  if (!q || read_vector(t, "q", n, q)) goto done;
  if (triplets_to_mlcp(&M, out)) {
    fail(t, "out of memory");
    goto done;
  }
  for (int i = 0; i < n; i++) {
    out->b[i] = q[i];
    out->lo[i] = 0.0;
    out->hi[i] = INFINITY;
    if (kind == TSR_SICONOS_MLCP && i < n_eq) out->lo[i] = -INFINITY;
  }
  if (kind == TSR_SICONOS_LCP && n > 0 && trailing_bounds(t, n)) {
    // Not an error: the trailing tokens of a file are not its problem (§1),
    // and an LCP may be meant. But a relay file read with --format lcp lost
    // its 233 boxed rows' bounds without a word, and was "solved".
    if (t->err && t->errlen)
      snprintf(t->err, t->errlen,
               "%s: warning: q is followed by %d numbers with the first %d at or below the last %d, as a relay "
               "file's lb and ub; read as an LCP they are ignored, every row in [0, +inf) (--format relay reads "
               "them)",
               t->path, 2 * n, n, n);
  }
  if (kind == TSR_SICONOS_RELAY) {
    if (read_vector(t, "lb", n, out->lo) || read_vector(t, "ub", n, out->hi)) goto done;
    for (int i = 0; i < n; i++)
      if (!(out->lo[i] <= out->hi[i])) {
        fail(t, "lb[%d] = %g > ub[%d] = %g", i, out->lo[i], i, out->hi[i]);
        goto done;
      }
  }
  rc = 0;
done:
  trip_free(&M);
  free(q);
  return rc;
}

int tsr_mlcp_read_siconos_as(const char *path, int kind, TsrMlcp *out, char *err, size_t errlen) {
  if (err && errlen) err[0] = 0;
  Tok t = {.path = path, .line = 1, .err = err, .errlen = errlen};
  FILE *f = fopen(path, "rb");  // first: a missing file is the first thing to say
  if (!f) {
    if (err) snprintf(err, errlen, "%s: error: cannot open: %s", path, strerror(errno));
    return -1;
  }
  if (kind == TSR_SICONOS_AUTO) kind = tsr_mlcp_siconos_kind(path);
  if (kind == TSR_SICONOS_AUTO) {
    if (err)
      snprintf(err, errlen, "%s: error: cannot tell the problem type from the path (give --format lcp|mlcp|relay)",
               path);
    fclose(f);
    return -1;
  }
  size_t cap = 1 << 16, len = 0;
  char *s = malloc(cap);
  for (;;) {
    if (!s) break;
    if (len == cap) {
      char *s2 = realloc(s, cap * 2);
      if (!s2) {
        free(s);
        s = NULL;
        break;
      }
      s = s2;
      cap *= 2;
    }
    size_t k = fread(s + len, 1, cap - len, f);
    len += k;
    if (k == 0) break;
  }
  fclose(f);
  if (!s) {
    if (err) snprintf(err, errlen, "%s: error: out of memory", path);
    return -1;
  }
  t.s = s;
  t.len = len;
  int rc = read_problem(&t, kind, out);
  free(s);
  if (rc) out->m = 0;
  return rc;
}

int tsr_mlcp_read_siconos(const char *path, TsrMlcp *out, char *err, size_t errlen) {
  return tsr_mlcp_read_siconos_as(path, TSR_SICONOS_AUTO, out, err, errlen);
}

int tsr_mlcp_write_relay(const TsrMlcp *p, FILE *f) {
  int m = p->m, nnz = m > 0 ? p->Ap[m] : 0;
  double norm1 = 0.0;  // the header's 1-norm (largest column sum of |M|), as CSparse prints it
  for (int j = 0; j < m; j++) {
    double c = 0.0;
    for (int q = p->Ap[j]; q < p->Ap[j + 1]; q++) c += fabs(p->Ax[q]);
    norm1 = fmax(norm1, c);
  }
  fprintf(f, "%d\n2\n%d\n%d\n2\n", m, m, m);
  fprintf(f, "CSparse text dump written by tessera (CSC, 0-based)\n");
  fprintf(f, "%d-by-%d, nzmax: %d nnz: %d, 1-norm: %.17g\n", m, m, nnz, nnz, norm1);
  for (int j = 0; j < m; j++) {
    fprintf(f, "    col %d : locations %d to %d\n", j, p->Ap[j], p->Ap[j + 1] - 1);
    for (int q = p->Ap[j]; q < p->Ap[j + 1]; q++) fprintf(f, "      %d : %.17g\n", p->Ai[q], p->Ax[q]);
  }
  const double *vec[3] = {p->b, p->lo, p->hi};
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < m; i++) fprintf(f, "%.17g\n", vec[k][i]);
  fflush(f);
  return ferror(f) ? -1 : 0;
}
