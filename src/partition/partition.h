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
  void *work;            // scratch of tsr_partition_build, owned (freed by tsr_partition_free)
} TsrPartition;

void tsr_partition_init(TsrPartition *p);
void tsr_partition_free(TsrPartition *p);

// Partitions the moving bodies with `method` (semantic: the model's `group`s;
// mindp: seed 000 Algorithm 2 with at most max_bodies per subsystem, orphans
// and islands handled; none: one subsystem), then assigns the rows. Fixed
// bodies get -1. Returns 0, or < 0 on allocation failure.
//
// Rules (see partition.c for the reasons):
//  * semantic: one subsystem per distinct `group` string, numbered in order of
//    first appearance in the model. Moving bodies without a group: each
//    connected component of them (edges between ungrouped bodies only) is one
//    extra subsystem, numbered after the groups in order of its lowest body.
//  * mindp: Algorithm 2. Degree = number of distinct neighbours still in G0.
//    Ties go to the lowest body index. When a growing group has no neighbour
//    left in G0 (its island is used up), it goes on from the minimum-degree
//    body anywhere in G0: small islands share a subsystem (no interface rows
//    between them) instead of becoming one subsystem each. After a group is
//    full, its neighbours of degree zero in G0 (orphans) join it, so a group
//    may exceed max_bodies by its orphans only. The bodies left when
//    |G0| <= max_bodies form the last group. max_bodies <= 0 means 16.
//  * none: one subsystem with every moving body (0 subsystems when none move).
int tsr_partition_build(const TsrModel *m, const TsrRowSet *rows, TsrPartitionMethod method, int max_bodies,
                        TsrPartition *p);

// Keeps body_subsystem and assigns the given rows (for steps between
// re-partitions, when contacts have changed the rows).
int tsr_partition_assign_rows(const TsrRowSet *rows, TsrPartition *p);

#endif
