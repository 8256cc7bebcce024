// SPDX-License-Identifier: MIT
// Memory stays flat over a long run: 20,000 frames of 200 bodies (with rows,
// contacts and steps) through the writer, peak RSS sampled after frame 2,000
// and after frame 20,000.
//
// Bound: 4 MiB. By frame 2,000 (~70 MB written) every buffer has reached its
// steady size (the writer spills at 4 MiB and reuses its buffers) and HDF5's
// chunk caches (1 MiB per dataset at most) are warm. What may still grow is
// HDF5's chunk index in the metadata cache: tens of bytes per chunk, a few
// thousand chunks here, i.e. well under 1 MiB. A leak of one frame's data
// (~25 kB) per frame would add ~450 MB; a leak of 240 bytes per frame
// already exceeds the bound.
#include "io/run_file.h"

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "synth.h"
#include "tsr_test.h"

#define NB 200
#define NF 20000
#define ROWS 100
#define CONTACTS 10

static long max_rss_kib(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;  // KiB on Linux
}

static void test_memory_flat(void) {
  const char *dir = getenv("TSR_TEST_TMP") ? getenv("TSR_TEST_TMP") : ".";
  char path[512];
  snprintf(path, sizeof path, "%s/test_run_memory_%d.h5", dir, (int)getpid());
  TsrModel m;
  synth_model(&m, NB);
  TsrRunInfo info = synth_info();
  char err[512];
  TsrRunWriter *w = tsr_run_writer_open(path, 1, &m, &info, err, sizeof err);
  ENSURE_MSG(w, "%s", err);
  if (!w) return;
  SynthScratch s;
  synth_scratch_init(&s, NB, ROWS, CONTACTS);
  long rss_2k = 0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (long f = 0; f < NF; f++) {
    TsrFrame fr;
    synth_frame(&fr, &s, NB, f, f ? ROWS : 0, f ? CONTACTS : 0);
    TsrStepStats st = synth_stats(f);
    if (f) ENSURE(tsr_run_writer_step(w, &st) == 0);
    if (tsr_run_writer_frame(w, &fr)) {
      ENSURE_MSG(0, "frame %ld: %s", f, tsr_run_writer_error(w));
      break;
    }
    if (f + 1 == 2000) rss_2k = max_rss_kib();
  }
  long rss_20k = max_rss_kib();
  ENSURE(tsr_run_writer_close(&w, 1) == 0);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  fprintf(stderr, "peak RSS after 2,000 frames %ld KiB, after 20,000 %ld KiB (+%ld KiB); %.2f s, %.1f us/frame\n",
          rss_2k, rss_20k, rss_20k - rss_2k, secs, 1e6 * secs / NF);
  ENSURE_MSG(rss_20k - rss_2k < 4096, "peak RSS grew by %ld KiB", rss_20k - rss_2k);
  TsrRunSummary sum;
  ENSURE(tsr_run_file_summary(path, &sum, err, sizeof err) == 0);
  ENSURE(sum.frames == NF && sum.steps == NF - 1 && sum.complete == 1);
  ENSURE(sum.constraint_rows == (long)ROWS * (NF - 1));
  synth_scratch_free(&s);
  synth_model_free(&m);
  unlink(path);
}

int main(void) {
  RUN_TEST(test_memory_flat);
  return TSR_TEST_RESULT();
}
