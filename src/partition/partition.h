// SPDX-License-Identifier: MIT
// A partition of the moving bodies into subsystems (seed 000 §4, §6).
//
// The constraint graph has the moving bodies as nodes and the rows as edges
// (a row to a fixed body or the world makes no edge). Every row between two
// bodies of one subsystem (or between one moving body and the world / a
// fixed body) belongs to that subsystem; a row whose two moving bodies lie in
// different subsystems is an interface row (Gamma, row_subsystem = -1).
#ifndef TSR_PARTITION_H
#define TSR_PARTITION_H

#include "mlcp/mlcp.h"
#include "model/model.h"

typedef struct {
  int n_bodies;
  int n_subsystems;
  int *body_subsystem;   // [n_bodies]; -1 for fixed bodies
  int n_rows;
  int *row_subsystem;    // [n_rows]; -1 for interface rows (Gamma)
  int n_interface_rows;
  int cap_bodies, cap_rows;  // allocated sizes (reused step to step)
} TsrPartition;

void tsr_partition_init(TsrPartition *p);
void tsr_partition_free(TsrPartition *p);

// Partitions the moving bodies with `method` (semantic: the model's `group`s;
// mindp: seed 000 Algorithm 2 with at most max_bodies per subsystem, orphans
// and islands handled; none: one subsystem), then assigns the rows. Fixed
// bodies get -1. Returns 0, or < 0 on allocation failure.
int tsr_partition_build(const TsrModel *m, const TsrRowSet *rows, TsrPartitionMethod method, int max_bodies,
                        TsrPartition *p);

// Keeps body_subsystem and assigns the given rows (for steps between
// re-partitions, when contacts have changed the rows).
int tsr_partition_assign_rows(const TsrRowSet *rows, TsrPartition *p);

#endif
