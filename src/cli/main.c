// SPDX-License-Identifier: MIT
// `tessera` entry point: dispatches to one subcommand.
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "io/run_file.h"
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

// How long an idle OpenMP thread spins before it sleeps.
//
// libgomp's threads wait at the end of a parallel region by spinning up to
// GOMP_SPINCOUNT times (default 300,000: several ms) before they sleep. The
// substructured solvers enter a few short parallel regions per coupling
// iteration (S_Gamma's blocks, the subsystem solves: 0.01-1 ms each). When
// the cores are shared (two runs of a batch script at once, or any other
// load), a spinning thread keeps its core while the thread it waits for is
// not running, and each region then lasts a scheduler time slice. Measured
// on chain_wrap, schur-bpp, 2 threads, 600 steps, 2 cores, ms per step
// (postproc/benchmarks.py, "Shared cores"):
//
//                                   alone   two runs at once (each)
//   libgomp's default                0.31   43.1
//   GOMP_SPINCOUNT=1000              0.30    0.77
//   OMP_WAIT_POLICY=passive          0.35    0.50
//
// 1,000 is libgomp's own count when it knows it has more threads than cores.
// (The substructured solvers' loops now run on a team held for the whole
// solve, solvers/team.h, whose helpers spin and then yield between loops;
// this count applies to the other parallel regions and to the team's own
// start and end.)
// libgomp reads its environment once, in its constructor, before main():
// so when neither variable is set, tessera sets GOMP_SPINCOUNT and executes
// itself again (once: the variable is then set). A user's OMP_WAIT_POLICY or
// GOMP_SPINCOUNT is kept as it is; TSR_NO_REEXEC=1 skips this. If the
// re-execution fails, the run goes on with libgomp's default.
#define TSR_GOMP_SPINCOUNT "1000"

static void default_omp_wait(char **argv) {
  if (getenv("OMP_WAIT_POLICY") || getenv("GOMP_SPINCOUNT") || getenv("TSR_NO_REEXEC")) return;
  // Under valgrind the new image would run outside it.
  const char *pre = getenv("LD_PRELOAD");
  if (pre && strstr(pre, "vgpreload")) return;
  if (setenv("GOMP_SPINCOUNT", TSR_GOMP_SPINCOUNT, 1)) return;
  execv("/proc/self/exe", argv);
}

static int dispatch(int argc, char **argv);

// A summary, table or JSON on stdout that could not be written (a full disk,
// `> /dev/full`, a file past `ulimit -f`) fails the command: `tessera info
// RUN.h5 --json > out.json` once left 100 bytes of JSON with exit 0.
static int stdout_written(int rc) {
  int failed = ferror(stdout);  // a write that failed before, errno long gone
  errno = 0;
  if (fflush(stdout) != 0) failed = 1;
  if (!failed) return rc;
  tsr_cli_error("could not write standard output: %s", strerror(errno ? errno : EIO));
  return rc ? rc : 1;
}

int main(int argc, char **argv) {
  default_omp_wait(argv);
  return stdout_written(dispatch(argc, argv));
}

static int dispatch(int argc, char **argv) {
  // A file grown past `ulimit -f` fails its write with EFBIG, which the
  // writers report (the run file keeps complete = 0), instead of SIGXFSZ
  // killing the process without a word.
  signal(SIGXFSZ, SIG_IGN);
  tsr_chol_blas_single_thread();  // before any step: see linalg/chol.c
  tsr_run_file_library_init();    // before any HDF5 call: see io/run_file.h
  if (argc < 2) {
    fputs(usage, stderr);
    return 2;
  }
  TsrCliArg a;
  tsr_cli_arg(NULL, argv[1], &a);
  int help = tsr_cli_flag(&a, "--help", "-h"), version = tsr_cli_flag(&a, "--version", NULL);
  if (help < 0 || version < 0) return 2;
  if (help || !strcmp(argv[1], "help")) {
    fputs(usage, stdout);
    return 0;
  }
  if (version) {
    printf("tessera %s\n", TSR_VERSION);
    // What the OpenMP threads run with (default_omp_wait above).
    const char *pol = getenv("OMP_WAIT_POLICY"), *spin = getenv("GOMP_SPINCOUNT");
    printf("OpenMP wait: OMP_WAIT_POLICY=%s GOMP_SPINCOUNT=%s\n", pol ? pol : "(unset)", spin ? spin : "(unset)");
    return 0;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "run")) return tsr_cmd_run(argc - 1, argv + 1);
  if (!strcmp(cmd, "check")) return tsr_cmd_check(argc - 1, argv + 1);
  if (!strcmp(cmd, "info")) return tsr_cmd_info(argc - 1, argv + 1);
  if (!strcmp(cmd, "mlcp")) return tsr_cmd_mlcp(argc - 1, argv + 1);
  if (!strcmp(cmd, "export-vtk")) return tsr_cmd_export_vtk(argc - 1, argv + 1);
  if (!strcmp(cmd, "compare")) return tsr_cmd_compare(argc - 1, argv + 1);
  // (`tessera -V`, `tessera --verbose run ...`: an option, not a command)
  tsr_cli_error("unknown %s '%s' (see 'tessera --help')", cmd[0] == '-' && cmd[1] ? "option" : "command", cmd);
  return 2;
}
