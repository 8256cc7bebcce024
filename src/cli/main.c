// SPDX-License-Identifier: MIT
// `tessera` entry point: dispatches to one subcommand.
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "linalg/chol.h"

static const char usage[] =
    "usage: tessera COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  run MODEL.yaml -o RUN.h5 [options]   simulate a model, write the trajectory (HDF5)\n"
    "  check MODEL.yaml                     validate a model and print a summary\n"
    "  info RUN.h5                          summarise a run file\n"
    "  mlcp solve FILE [--solver S]         solve one MLCP from a file (Siconos text format)\n"
    "  export-vtk RUN.h5 -o DIR             write DIR/<model>.pvd and one .vtp per frame (ParaView)\n"
    "  compare MODEL.yaml --solvers a,b,c   run one model with several solvers, print a table\n"
    "\n"
    "`tessera COMMAND --help` describes a command's options.\n";

int main(int argc, char **argv) {
  tsr_chol_blas_single_thread();  // before any step: see linalg/chol.c
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    fputs(usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!strcmp(argv[1], "--version")) {
    printf("tessera %s\n", TSR_VERSION);
    return 0;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "run")) return tsr_cmd_run(argc - 1, argv + 1);
  if (!strcmp(cmd, "check")) return tsr_cmd_check(argc - 1, argv + 1);
  if (!strcmp(cmd, "info")) return tsr_cmd_info(argc - 1, argv + 1);
  if (!strcmp(cmd, "mlcp")) return tsr_cmd_mlcp(argc - 1, argv + 1);
  if (!strcmp(cmd, "export-vtk")) return tsr_cmd_export_vtk(argc - 1, argv + 1);
  if (!strcmp(cmd, "compare")) return tsr_cmd_compare(argc - 1, argv + 1);
  tsr_cli_error("unknown command '%s' (see 'tessera --help')", cmd);
  return 2;
}
