// SPDX-License-Identifier: MIT
// A partition of the moving bodies into subsystems (seed 000 §4, §6).
// This issue only needs the trivial partition (one subsystem); semantic and
// minimum-degree partitioning come with the substructuring issue.
#ifndef TSR_PARTITION_H
#define TSR_PARTITION_H

typedef struct {
  int n_bodies;
  int n_subsystems;
  int *body_subsystem;   // [n_bodies]; -1 for fixed bodies
  int n_rows;
  int *row_subsystem;    // [n_rows]; -1 for interface rows (Gamma)
  int n_interface_rows;
} TsrPartition;

void tsr_partition_init(TsrPartition *p);
void tsr_partition_free(TsrPartition *p);

#endif
