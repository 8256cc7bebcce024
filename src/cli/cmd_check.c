// TEMPORARY: being written (tessera check).
#include "cli/commands.h"
int tsr_cmd_check(int argc, char **argv) { (void)argc; (void)argv; tsr_cli_error("check: not built yet"); return 2; }
