// SPDX-License-Identifier: MIT
// Names and folders of the files the commands write besides the run file:
// the VTK export (vtk_writer.c, vtk_export.c) and `tessera run --dump-mlcp`.
#ifndef TSR_OUT_FILES_H
#define TSR_OUT_FILES_H

#include <stddef.h>

// NAME: characters other than [A-Za-z0-9_.-] become '_'; "run" when empty;
// a name of over 200 characters is cut to its first 191, "-" and 8 hex
// digits of a hash of the whole name (the file names stay within NAME_MAX,
// and names that differ past the cut stay apart). len: at least 201 for that.
void tsr_io_safe_name(const char *name, char *out, size_t len);
// mkdir -p dir; fails (message in err) when dir or a parent is not a directory.
int tsr_io_make_dir(const char *dir, char *err, int errlen);

#endif
