// SPDX-License-Identifier: MIT
// TEMPORARY body of tsr_partition_build (one subsystem for every method)
// until the substructuring work lands its partitioners.
#include "partition/partition.h"

#include <stdlib.h>
#include <string.h>

void tsr_partition_init(TsrPartition *p) { memset(p, 0, sizeof *p); }

void tsr_partition_free(TsrPartition *p) {
  free(p->body_subsystem);
  free(p->row_subsystem);
  memset(p, 0, sizeof *p);
}

static int reserve(TsrPartition *p, int n_bodies, int n_rows) {
  if (n_bodies > p->cap_bodies) {
    int *q = realloc(p->body_subsystem, (size_t)n_bodies * sizeof *q);
    if (!q) return -1;
    p->body_subsystem = q;
    p->cap_bodies = n_bodies;
  }
  if (n_rows > p->cap_rows) {
    int *q = realloc(p->row_subsystem, (size_t)n_rows * sizeof *q);
    if (!q) return -1;
    p->row_subsystem = q;
    p->cap_rows = n_rows;
  }
  return 0;
}

int tsr_partition_assign_rows(const TsrRowSet *rows, TsrPartition *p) {
  if (reserve(p, p->n_bodies, rows->count)) return -1;
  p->n_rows = rows->count;
  p->n_interface_rows = 0;
  for (int i = 0; i < rows->count; i++) {
    const TsrRow *r = &rows->rows[i];
    int s0 = r->body[0] >= 0 ? p->body_subsystem[r->body[0]] : -1;
    int s1 = r->body[1] >= 0 ? p->body_subsystem[r->body[1]] : -1;
    int s = s0 >= 0 && s1 >= 0 ? (s0 == s1 ? s0 : -1) : (s0 >= 0 ? s0 : s1);
    p->row_subsystem[i] = s;
    p->n_interface_rows += s0 >= 0 && s1 >= 0 && s0 != s1;
  }
  return 0;
}

int tsr_partition_build(const TsrModel *m, const TsrRowSet *rows, TsrPartitionMethod method, int max_bodies,
                        TsrPartition *p) {
  (void)method;
  (void)max_bodies;
  if (reserve(p, m->n_bodies, rows->count)) return -1;
  p->n_bodies = m->n_bodies;
  int any = 0;
  for (int k = 0; k < m->n_bodies; k++) {
    p->body_subsystem[k] = m->bodies[k].fixed ? -1 : 0;
    any |= !m->bodies[k].fixed;
  }
  p->n_subsystems = any;
  return tsr_partition_assign_rows(rows, p);
}
