// SPDX-License-Identifier: MIT
#include "partition/partition.h"

#include <stdlib.h>
#include <string.h>

void tsr_partition_init(TsrPartition *p) { memset(p, 0, sizeof *p); }

void tsr_partition_free(TsrPartition *p) {
  free(p->body_subsystem);
  free(p->row_subsystem);
  memset(p, 0, sizeof *p);
}
