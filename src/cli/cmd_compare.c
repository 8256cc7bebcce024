// TEMPORARY: replaced by the substructuring work (tessera compare).
#include "cli/commands.h"
int tsr_cmd_compare(int argc, char **argv) { (void)argc; (void)argv; tsr_cli_error("compare: not built yet"); return 2; }
