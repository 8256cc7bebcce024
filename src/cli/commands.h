// SPDX-License-Identifier: MIT
// `tessera` subcommands. Each returns the process exit status:
// 0 success, 1 the simulation failed, 2 bad usage or bad input.
#ifndef TSR_COMMANDS_H
#define TSR_COMMANDS_H

#include <stddef.h>

#include "model/model.h"

int tsr_cmd_run(int argc, char **argv);
int tsr_cmd_check(int argc, char **argv);
int tsr_cmd_info(int argc, char **argv);
int tsr_cmd_mlcp(int argc, char **argv);  // `tessera mlcp solve FILE [--solver S]`
int tsr_cmd_export_vtk(int argc, char **argv);
int tsr_cmd_compare(int argc, char **argv);

// "tessera: error: ..." on stderr (the command line, and the outputs it names).
void tsr_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
// An error about an input file, err as the library words it ("PATH: what"),
// as "PATH: error: what" (the form of a model's errors and of a run file
// that breaks OUTPUT.md) when it starts with path; else as tsr_cli_error.
void tsr_cli_file_error(const char *err, const char *path);

// SIGINT and SIGTERM request a stop (solvers/stop.h, tsr_interrupt_requested)
// instead of killing the process; a second one, a second or more after the
// first, kills at once. Signals the caller ignores stay ignored.
void tsr_cli_catch_stop_signals(void);

// The partitioning a run of these settings uses, as the run file's
// `partitioning` attribute, `check` and `compare` say it: the method (and
// refinement, tsr_partition_label) for the solvers that substructure,
// "none" for the whole-system solvers (direct-bpp, pgs, pgs-sm, ...), which
// take no partition whatever settings.partitioning says.
const char *tsr_cli_partition_label(const TsrSettings *s, char *buf, size_t size);

// An output file the command will replace (a run file, --json): refused,
// said under opt ("-o", "--json"), when it is empty (""), or exists and is not a regular
// file (a folder, a device such as /dev/null, a pipe: a rename would put a
// regular file in its place), or when it is the model file itself. A
// symbolic link is followed: *resolved (free it) is then the file it names,
// which is what gets replaced, else NULL. 0, or 2 when refused.
int tsr_cli_output_file(const char *opt, const char *path, const char *model, char **resolved);

// One command-line argument as an option. "--name=value" is the option
// "--name" with the value "value" (split at the first '='); any other
// argument ("-o", "--name", a file name) is its own name with no value.
// Each command's parser knows which of its options take a value: it asks
// tsr_cli_value for those and tsr_cli_flag for its flags. cmd names the
// command in messages: "CMD: --steps needs a value (see 'tessera CMD --help')"
// (NULL: tessera's own options).
typedef struct {
  const char *cmd;    // the command, for messages (or NULL)
  const char *arg;    // as given
  const char *name;   // the option's name: arg, or buf for "--name=value"
  const char *value;  // the part after '=', or NULL
  char buf[48];
} TsrCliArg;
void tsr_cli_arg(const char *cmd, const char *arg, TsrCliArg *a);
// The value of option a, argv[*i]: its own ("--name=value") or the next
// argument (*i is advanced past it). NULL, said, when there is none.
const char *tsr_cli_value(const TsrCliArg *a, int argc, char **argv, int *i);
// The value val of an option that names what gets written (-o, --vtk,
// --json), given where an earlier one (*prev, NULL: none) may have been: 0
// and *prev = val, or -1 after "CMD: OPT given twice ('A' and 'B')" when
// the two differ. Other options repeated take the last one (a script's
// defaults, then its own); two files named for one output would leave one
// of them unwritten without a word.
int tsr_cli_output_once(const char *cmd, const char *opt, const char **prev, const char *val);
// Whether a is the flag `name` or its short form `alias` (NULL: none): 1
// given as a flag, 0 another option or argument, -1 given a value
// ("--quiet=yes"; said).
int tsr_cli_flag(const TsrCliArg *a, const char *name, const char *alias);

#endif
