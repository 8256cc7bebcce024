// TEMPORARY: replaced by the solvers work (tessera mlcp solve).
#include "cli/commands.h"
int tsr_cmd_mlcp(int argc, char **argv) { (void)argc; (void)argv; tsr_cli_error("mlcp: not built yet"); return 2; }
