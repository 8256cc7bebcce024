// SPDX-License-Identifier: MIT
// Helpers shared by the run file writer and reader (not a public interface).
#ifndef TSR_RUN_FILE_INTERNAL_H
#define TSR_RUN_FILE_INTERNAL_H

#include <hdf5.h>

// File datatype of a stream kind (little-endian, fixed by the layout).
hid_t tsr_run_file_type(int kind);
// Variable-length UTF-8 string type (what h5py writes for str); caller closes.
hid_t tsr_run_file_str_type(void);
// printf into err (size errlen) when err is not NULL.
void tsr_run_file_set_err(char *err, int errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

// err = "PATH: error: DATASET: WHAT" (TSR_RUN_FILE_INVALID, run_file.h);
// returns TSR_RUN_FILE_INVALID.
int tsr_run_file_invalid(char *err, int errlen, const char *path, const char *dataset, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

// Opens a run file for reading: SWMR read first (a file being written, or
// killed while in SWMR write mode, opens only so), then plain read-only (HDF5
// files of older formats). Call inside H5E_BEGIN_TRY. < 0 when neither opens.
hid_t tsr_run_file_open_read(const char *path);

#endif
