// TEMPORARY: replaced by the VTK work (tessera export-vtk).
#include "cli/commands.h"
int tsr_cmd_export_vtk(int argc, char **argv) { (void)argc; (void)argv; tsr_cli_error("export-vtk: not built yet"); return 2; }
