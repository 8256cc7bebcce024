// SPDX-License-Identifier: MIT
// A partition of the moving bodies into subsystems (seed 000 §4, §6; seed 003).
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
  int *body_subsystem;  // [n_bodies]; -1 for fixed bodies
  int n_rows;
  int *row_subsystem;  // [n_rows]; -1 for interface rows (Gamma)
  int n_interface_rows;
  int cap_bodies, cap_rows;  // allocated sizes (reused step to step)
  void *work;                // scratch of tsr_partition_build, owned (freed by tsr_partition_free)
} TsrPartition;

void tsr_partition_init(TsrPartition *p);
void tsr_partition_free(TsrPartition *p);

typedef struct {
  TsrPartitionMethod method;
  TsrPartitionRefine refine;  // applied after the automatic methods only
  int max_bodies;             // n_max; <= 0 means 16
  double mass_ratio;          // tau_MR (mass-ratio), > 1; otherwise 10
  double mix_ratio;           // tau_mix (mix), in (0, 1); otherwise 0.5
} TsrPartitionOptions;

// Partitions the moving bodies with o->method, refines the result with
// o->refine when the method is automatic (not semantic, not none), then
// assigns the rows. Fixed bodies get -1. The result depends on the model, the
// rows and the options only (no threads, no clock). Returns 0, or < 0 on
// allocation failure (or a METIS error).
//
// Rules (partition.c's header gives the reasons and the paper's numbers):
//  * semantic: one subsystem per distinct `group` string, numbered in order of
//    first appearance in the model. Moving bodies without a group: each
//    connected component of them (edges between ungrouped bodies only) is one
//    extra subsystem, numbered after the groups in order of its lowest body.
//  * mindp, maxdp, bfs, mass-ratio, mix: groups grown as in seed 000
//    Algorithm 2, each by its own rule (seed 003 §2.1, Eq. 1, Algorithm 1).
//    Degree = number of distinct neighbours still in G0. Ties go to the lowest
//    body index. When a growing group has no neighbour left in G0 (its island
//    is used up), it goes on from its seed rule anywhere in G0: small islands
//    share a subsystem instead of becoming one subsystem each. After a group
//    is full (or, for mass-ratio, no adjacent body satisfies Eq. 1), its
//    neighbours of degree zero in G0 (orphans) join it, so a group may exceed
//    max_bodies by its orphans only. The bodies left when |G0| <= max_bodies
//    form the last group; mass-ratio groups those by Eq. 1 too.
//  * metis: METIS (recursive bisection) on the constraint graph weighted by rows, with
//    ceil(moving bodies / max_bodies) parts; parts larger than max_bodies are
//    evened out afterwards, so every subsystem holds at most max_bodies.
//  * none: one subsystem with every moving body (0 subsystems when none move).
//  * refine kl / fm (seed 003 §2.2): only changes of positive gain at the
//    interface, so n_interface_rows never grows; kl keeps every size, fm
//    moves a body only into a subsystem holding fewer than
//    TSR_FM_CAP(max_bodies), never emptying one.
//    Subsystems left empty are dropped (numbers stay in order).
int tsr_partition_build_opts(const TsrModel *m, const TsrRowSet *rows, const TsrPartitionOptions *o, TsrPartition *p);

// The same with o->refine, o->mass_ratio and o->mix_ratio taken from
// m->settings.partitioning (how the world calls it).
int tsr_partition_build(const TsrModel *m, const TsrRowSet *rows, TsrPartitionMethod method, int max_bodies,
                        TsrPartition *p);

// Fiduccia-Mattheyses moves a body only into a subsystem of fewer than
// this many bodies (max_bodies and a quarter; partition.c refine_pass).
#define TSR_FM_CAP(max_bodies) ((max_bodies) + (max_bodies) / 4)

// Refines an existing partition of m's bodies (p->body_subsystem) in place
// with `how` (whatever method made it), then assigns the rows.
int tsr_partition_refine(const TsrModel *m, const TsrRowSet *rows, TsrPartitionRefine how, int max_bodies,
                         TsrPartition *p);

// Keeps body_subsystem and assigns the given rows (for steps between
// re-partitions, when contacts have changed the rows).
int tsr_partition_assign_rows(const TsrRowSet *rows, TsrPartition *p);

#endif
