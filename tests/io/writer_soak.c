// SPDX-License-Identifier: MIT
// Drives the run file writer with synthetic frames.
//
//   writer_soak OUT.h5 [--bodies N] [--rows R] [--contacts C] [--frames F]
//               [--sleep-ms K] [--deflate L] [--incomplete] [--bench]
//
// Without --frames it writes until killed (test_kill.py), printing
// "flushed T" on stdout each time the writer has flushed T frames to disk,
// so a test knows what must survive a kill -9. With --frames it closes the
// file normally (complete = 1 unless --incomplete). --bench times the frame
// and step calls (close included, so buffered data is paid for) and prints
// the amortised cost per frame.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/run_file.h"
#include "synth.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr,
            "usage: writer_soak OUT.h5 [--bodies N] [--rows R] [--contacts C] [--frames F] "
            "[--sleep-ms K] [--deflate L] [--incomplete] [--bench]\n");
    return 2;
  }
  const char *path = argv[1];
  int n = 3, rows = -1, contacts = -1, sleep_ms = 0, complete = 1, bench = 0, deflate = 0;
  long frames = -1;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "0";
    if (!strcmp(a, "--bodies"))
      n = atoi(v), i++;
    else if (!strcmp(a, "--rows"))
      rows = atoi(v), i++;
    else if (!strcmp(a, "--contacts"))
      contacts = atoi(v), i++;
    else if (!strcmp(a, "--frames"))
      frames = atol(v), i++;
    else if (!strcmp(a, "--sleep-ms"))
      sleep_ms = atoi(v), i++;
    else if (!strcmp(a, "--deflate"))
      deflate = atoi(v), i++;
    else if (!strcmp(a, "--incomplete"))
      complete = 0;
    else if (!strcmp(a, "--bench"))
      bench = 1;
    else {
      fprintf(stderr, "writer_soak: unknown option %s\n", a);
      return 2;
    }
  }
  if (n < 3) n = 3;
  TsrModel m;
  synth_model(&m, n);
  TsrRunInfo info = synth_info();
  info.deflate_level = deflate;
  char err[512];
  TsrRunWriter *w = tsr_run_writer_open(path, 1, &m, &info, err, sizeof err);
  if (!w) {
    fprintf(stderr, "writer_soak: %s\n", err);
    return 1;
  }
  printf("open\n");
  fflush(stdout);
  SynthScratch s;
  int max_rows = rows >= 0 ? rows : 64, max_contacts = contacts >= 0 ? contacts : 8;
  synth_scratch_init(&s, n, max_rows, max_contacts);
  long flushes = 0;
  double busy = 0;
  struct timespec nap = {0, (long)sleep_ms * 1000000L};
  for (long f = 0; frames < 0 || f < frames; f++) {
    TsrFrame fr;
    int nr = f == 0 ? 0 : rows >= 0 ? rows : synth_rows(f);
    int nc = f == 0 ? 0 : contacts >= 0 ? contacts : synth_contacts(f);
    synth_frame(&fr, &s, n, f, nr, nc);
    TsrStepStats st = synth_stats(f);
    double t0 = now();
    int rc = (f > 0 ? tsr_run_writer_step(w, &st) : 0) | tsr_run_writer_frame(w, &fr);
    busy += now() - t0;
    if (rc) {
      fprintf(stderr, "writer_soak: frame %ld: %s\n", f, tsr_run_writer_error(w));
      return 1;
    }
    if (tsr_run_writer_flush_count(w) != flushes) {
      flushes = tsr_run_writer_flush_count(w);
      printf("flushed %ld\n", tsr_run_writer_flushed_frames(w));
      fflush(stdout);
    }
    if (sleep_ms) nanosleep(&nap, NULL);
  }
  double t0 = now();
  int rc = tsr_run_writer_close(&w, complete);
  busy += now() - t0;
  if (bench)
    printf("bench: %ld frames, %d bodies, %d rows, %d contacts: %.1f us/frame amortised (close included)\n", frames, n,
           max_rows, max_contacts, 1e6 * busy / (double)frames);
  synth_scratch_free(&s);
  synth_model_free(&m);
  return rc ? 1 : 0;
}
