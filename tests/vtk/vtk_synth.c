// SPDX-License-Identifier: MIT
// Writes the same synthetic frames (tests/io/synth.h: rows and contacts with
// known values) to a run file and through the live VTK writer.
//
//   vtk_synth OUT.h5 LIVE_DIR [FRAMES]
//
// After every frame it checks that the live .pvd files are complete XML
// documents (they are rewritten by rename, never in place). test_live.py then
// reads both exports with VTK and checks them against the run file.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/run_file.h"
#include "io/synth.h"
#include "io/vtk.h"
#include "tsr_test.h"

static int pvd_complete(const char *path) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return 0;
  char buf[64] = {0};
  fseek(fp, -24, SEEK_END);
  size_t n = fread(buf, 1, sizeof buf - 1, fp);
  fclose(fp);
  return n > 0 && strstr(buf, "</VTKFile>\n") != NULL;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: vtk_synth OUT.h5 LIVE_DIR [FRAMES]\n");
    return 2;
  }
  long frames = argc > 3 ? atol(argv[3]) : 12;
  const int n = 6, contacts = 3, rows = 4 + 3 * contacts;
  TsrModel m;
  synth_model(&m, n);
  TsrRunInfo info = synth_info();
  char err[512];
  TsrRunWriter *w = tsr_run_writer_open(argv[1], 1, &m, &info, err, sizeof err);
  if (!w) {
    fprintf(stderr, "vtk_synth: %s\n", err);
    return 1;
  }
  TsrVtkWriter *v = tsr_vtk_writer_open(argv[2], &m, err, sizeof err);
  ENSURE_MSG(v != NULL, "%s", err);
  if (!v) return 1;
  char pvd[1024];
  snprintf(pvd, sizeof pvd, "%s/synth.pvd", argv[2]);
  SynthScratch s;
  synth_scratch_init(&s, n, rows, contacts);
  for (long f = 0; f < frames; f++) {
    TsrFrame fr;
    synth_frame(&fr, &s, n, f, f ? rows : 0, f ? contacts : 0);
    // Unit normals that differ per contact, so `impulse` = n * lambda_n is checkable.
    for (int k = 0; k < fr.n_contacts; k++) {
      double *nk = &s.cn[3 * k];
      nk[0] = k == 0, nk[1] = k == 1, nk[2] = k == 2;
    }
    TsrStepStats st = synth_stats(f);
    if (f > 0) ENSURE(tsr_run_writer_step(w, &st) == 0);
    ENSURE(tsr_run_writer_frame(w, &fr) == 0);
    ENSURE_MSG(tsr_vtk_writer_frame(v, &fr) == 0, "%s", tsr_vtk_writer_error(v));
    ENSURE_MSG(pvd_complete(pvd), "%s is not a complete document after frame %ld", pvd, f);
  }
  ENSURE(tsr_vtk_writer_close(&v) == 0 && v == NULL);
  ENSURE(pvd_complete(pvd));
  ENSURE(tsr_run_writer_close(&w, 1) == 0);
  // A writer refuses a directory that is a file.
  TsrVtkWriter *bad = tsr_vtk_writer_open(argv[1], &m, err, sizeof err);
  ENSURE(bad == NULL && strstr(err, "not a directory"));
  synth_scratch_free(&s);
  synth_model_free(&m);
  return TSR_TEST_RESULT();
}
