// TEMPORARY: being written (tessera run).
#include "cli/commands.h"
int tsr_cmd_run(int argc, char **argv) { (void)argc; (void)argv; tsr_cli_error("run: not built yet"); return 2; }
