// SPDX-License-Identifier: MIT
// `tessera` subcommands. Each returns the process exit status:
// 0 success, 1 the simulation failed, 2 bad usage or bad input.
#ifndef TSR_COMMANDS_H
#define TSR_COMMANDS_H

int tsr_cmd_run(int argc, char **argv);
int tsr_cmd_check(int argc, char **argv);
int tsr_cmd_info(int argc, char **argv);
int tsr_cmd_mlcp(int argc, char **argv);  // `tessera mlcp solve FILE [--solver S]`
int tsr_cmd_export_vtk(int argc, char **argv);
int tsr_cmd_compare(int argc, char **argv);

// "tessera: error: ..." on stderr (usage errors, files that cannot be opened).
void tsr_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
