// TEMPORARY: replaced by the io work (tessera info).
#include "cli/commands.h"
int tsr_cmd_info(int argc, char **argv) { (void)argc; (void)argv; tsr_cli_error("info: not built yet"); return 2; }
