// SPDX-License-Identifier: MIT
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <time.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "contact/contact.h"
#include "joints/joints.h"
#include "sim/world.h"
#include "solvers/stop.h"
#include "util/clock.h"

const char *tsr_cli_partition_label(const TsrSettings *s, char *buf, size_t size) {
  if (tsr_solver_substructured(s->solver.type)) return tsr_partition_label(s, buf, size);
  snprintf(buf, size, "none");
  return buf;
}

void tsr_cli_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("tessera: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

void tsr_cli_file_error(const char *err, const char *path) {
  size_t n = path ? strlen(path) : 0;
  if (n && !strncmp(err, path, n) && err[n] == ':' && err[n + 1] == ' ')
    fprintf(stderr, "%s: error: %s\n", path, err + n + 2);
  else
    tsr_cli_error("%s", err);
}

void tsr_cli_arg(const char *cmd, const char *arg, TsrCliArg *a) {
  a->cmd = cmd;
  a->arg = a->name = arg;
  a->value = NULL;
  const char *eq = !strncmp(arg, "--", 2) && arg[2] ? strchr(arg, '=') : NULL;
  // A name too long for buf is no option of ours: left whole, it is then
  // reported as unknown as given.
  if (!eq || (size_t)(eq - arg) >= sizeof a->buf) return;
  memcpy(a->buf, arg, (size_t)(eq - arg));
  a->buf[eq - arg] = '\0';
  a->name = a->buf;
  a->value = eq + 1;
}

const char *tsr_cli_value(const TsrCliArg *a, int argc, char **argv, int *i) {
  if (a->value) return a->value;
  if (*i + 1 >= argc) {
    tsr_cli_error("%s%s%s needs a value (see 'tessera %s%s--help')", a->cmd ? a->cmd : "", a->cmd ? ": " : "", a->name,
                  a->cmd ? a->cmd : "", a->cmd ? " " : "");
    return NULL;
  }
  return argv[++*i];
}

int tsr_cli_output_once(const char *cmd, const char *opt, const char **prev, const char *val) {
  if (*prev && strcmp(*prev, val)) {
    tsr_cli_error("%s: %s given twice ('%s' and '%s'); name one", cmd, opt, *prev, val);
    return -1;
  }
  *prev = val;
  return 0;
}

int tsr_cli_flag(const TsrCliArg *a, const char *name, const char *alias) {
  if (strcmp(a->name, name) && (!alias || strcmp(a->name, alias))) return 0;
  if (!a->value) return 1;
  tsr_cli_error("%s%soption '%s' takes no value (got '%s')", a->cmd ? a->cmd : "", a->cmd ? ": " : "", a->name, a->arg);
  return -1;
}

// Where a crowded start is reported (tsr_contact_overlaps' only error): the
// body entry that makes the most bodies (an array's `count`; an entry's
// bodies are consecutive and share its mark), else the `bodies` list.
static TsrMark crowd_mark(const TsrModel *m) {
  TsrMark best = m->bodies_mark;
  int most = 1;
  for (int i = 0, run = 0; i < m->n_bodies; i++) {
    const TsrMark *a = &m->bodies[i].mark;
    run = i > 0 && a->line == m->bodies[i - 1].mark.line && a->col == m->bodies[i - 1].mark.col ? run + 1 : 1;
    if (run > most) most = run, best = *a;
  }
  return best;
}

int tsr_cli_warn_overlaps(const TsrModel *m) {
  enum { SHOWN = 3 };
  TsrOverlap top[SHOWN];
  char err[256] = "";
  int n = tsr_contact_overlaps(m, top, SHOWN, err, sizeof err);
  // Nothing could be simulated: bad input. -1: the shapes could not be
  // collided at all (an ODE error), which the run's first step met again;
  // `check` passed such a model (found by fuzzing).
  if (n == -2 || n == -1) {
    TsrMark at = n == -2 ? crowd_mark(m) : m->bodies_mark;
    fprintf(stderr, "%s:%d:%d: error: at the start, %s\n", m->path, at.line, at.col, err);
    return -1;
  }
  if (n <= 0) return 0;
  for (int k = 0; k < n && k < SHOWN; k++) {
    const TsrBodyDef *a = &m->bodies[top[k].body[0]], *b = &m->bodies[top[k].body[1]];
    fprintf(stderr, "%s:%d:%d: warning: '%s' starts inside '%s' (overlap %.3g m, %.0f%% of the thinner shape)\n",
            m->path, b->mark.line, b->mark.col, b->name, a->name, top[k].depth, 100.0 * top[k].depth / top[k].size);
  }
  if (n > SHOWN) fprintf(stderr, "%s: warning: %d pairs of shapes start inside one another\n", m->path, n);
  fprintf(stderr,
          "%s: note: the first steps push overlapping bodies apart with large impulses, and where many share "
          "one place a step can take minutes, or fail past TSR_FACTOR_FLOPS (a missing `stride`?)\n",
          m->path);
  return n;
}

// A moving body whose shapes' centroid (mass split by volume) is off its
// origin by more than 1% of its size: the origin is taken as the centre of
// mass, and a stick with a ball 0.4 m to one side stood upright on its end
// for ever, where it should topple. A note from `check` only, not a warning
// of every run: a body may be weighted on purpose (the examples' truck
// chassis and shovels are), and the model is not changed.
#define CENTROID_OFF 0.01

void tsr_cli_warn_centroids(const TsrModel *m) {
  for (int b = 0; b < m->n_bodies; b++) {
    const TsrBodyDef *bd = &m->bodies[b];
    TsrVec3 c;
    double size;
    if (bd->fixed || tsr_model_body_centroid(m, b, &c, &size)) continue;
    double off = tsr_v3_norm(c);
    if (off > CENTROID_OFF * size)
      fprintf(stderr,
              "%s:%d:%d: note: body '%s': its shapes' centroid is %.3g m from the body origin, which Tessera "
              "takes as the centre of mass (its inertia is about it); if the parts are of uniform density, place "
              "them around the origin\n",
              m->path, bd->mark.line, bd->mark.col, bd->name, off);
  }
}

// A moving body whose given inertia is a million times smaller or larger
// than its solid shapes' of the same mass (traces compared): a unit slip (g
// cm^2 for kg m^2) more likely than a design. Rows at the shapes' surface
// then weigh rotation against translation by that factor, and the MLCP's
// conditioning with it: a 1 kg, 1 m box of inertia 1e-90 hit the ground,
// no step converged and it went 326 m into it. A body may be weighted on
// purpose (a hollow drum, a flywheel), hence the factor.
#define INERTIA_OFF 1e6

int tsr_cli_warn_inertia(const TsrModel *m) {
  int found = 0;
  for (int b = 0; b < m->n_bodies; b++) {
    const TsrBodyDef *bd = &m->bodies[b];
    TsrMat3 S;
    if (bd->fixed || tsr_model_body_shapes_inertia(m, b, &S)) continue;
    double given = bd->inertia.m[0][0] + bd->inertia.m[1][1] + bd->inertia.m[2][2];
    double solid = S.m[0][0] + S.m[1][1] + S.m[2][2];
    if (!(solid > 0.0 && isfinite(solid))) continue;
    double r = given / solid;
    if (r < 1.0 / INERTIA_OFF || r > INERTIA_OFF) {
      found++;
      fprintf(stderr,
              "%s:%d:%d: warning: body '%s': its inertia is %.3g times its solid shapes' of the same mass (traces "
              "%.3g and %.3g kg m^2): kg m^2 intended? Contacts and joints off its centre then couple rotation "
              "and translation at that ratio, and the solvers may not converge\n",
              m->path, bd->mark.line, bd->mark.col, bd->name, r, given, solid);
    }
  }
  return found;
}

// A joint that starts outside its limits is a violated one-sided row: SPOOK
// (joints/spook.h) pushes it back in over a few steps like a released
// spring, and the row cannot hold it back once it is in, so the body keeps
// that speed: a 1 kg, 1 m arm on a hinge limited to [0.5, 1] rad, starting
// at 0, reached 13 rad/s and hit the far limit in 5 steps.
int tsr_cli_warn_limits(const TsrModel *m) {
  int found = 0;
  for (int j = 0; j < m->n_joints; j++) {
    const TsrJointDef *d = &m->joints[j];
    if (!d->has_limits || (d->limits[0] <= 0.0 && d->limits[1] >= 0.0)) continue;
    found++;
    const char *unit = d->type == TSR_JOINT_HINGE ? "rad" : "m";
    fprintf(stderr,
            "%s:%d:%d: warning: joint '%s': its limits [%.6g, %.6g] %s leave out its start (limits are relative to "
            "the initial configuration, which is at 0): the limit pushes it in within a few steps, and it keeps "
            "the speed that gives it\n",
            m->path, d->mark.line, d->mark.col, d->name, d->limits[0], d->limits[1], unit);
  }
  return found;
}

// The stop request (solvers/stop.h) is what the commands' loops test (run:
// the step in progress ends at its solver's next iteration). A second signal
// kills at once (a second Ctrl-C), but only from a second after the first:
// GNU timeout sends its signal to the child and then to the whole process
// group, and a run stopped by `timeout 600 tessera run ...` got both within
// microseconds and died 1 time in 5 without finishing its file (SA_RESETHAND
// did that). clock_gettime, signal and raise are async-signal-safe.
// The first signal's time is published with one lock-free atomic
// compare-exchange (async-signal-safe, C17 7.17.5; lock-free for long long
// on the platforms we build for): a handler running at the same moment in
// another thread, or nested for the other signal, sees either no first
// signal or its whole time, never a half-written one.
#define SECOND_SIGNAL_AFTER_NS 1000000000LL
static atomic_llong first_signal_ns;  // CLOCK_MONOTONIC ns + 1 of the first; 0: none yet

static void on_signal(int sig) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  long long ns = (long long)now.tv_sec * 1000000000LL + now.tv_nsec + 1, first = 0;
  if (atomic_compare_exchange_strong(&first_signal_ns, &first, ns)) {
    tsr_request_stop();
    return;
  }
  if (ns - first < SECOND_SIGNAL_AFTER_NS) return;  // the same request, delivered twice
  signal(sig, SIG_DFL);
  raise(sig);
}

void tsr_cli_catch_stop_signals(void) {
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = 0;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGINT);  // one handler at a time in this thread
  sigaddset(&sa.sa_mask, SIGTERM);
  const int sigs[2] = {SIGINT, SIGTERM};
  for (int k = 0; k < 2; k++) {
    // A signal the caller ignores stays ignored (a job started with `&` in
    // a script ignores SIGINT; `trap '' INT` too).
    if (sigaction(sigs[k], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaction(sigs[k], &sa, NULL);
  }
}

int tsr_cli_output_file(const char *opt, const char *path, const char *model, char **resolved) {
  *resolved = NULL;
  struct stat sl, st, sm;
  if (!path[0]) {  // (`-o ""`, `--output=`: "cannot create : No such file or directory" after the model's checks)
    tsr_cli_error("%s: '' is empty, not a file name", opt);
    return 2;
  }
  if (lstat(path, &sl) != 0) return 0;  // a new file
  if (stat(path, &st) != 0) return 0;   // a dangling link: replaced by the file
  if (!S_ISREG(st.st_mode)) {
    tsr_cli_error("%s: %s is not a regular file (%s); name a file to write", opt, path,
                  S_ISDIR(st.st_mode)    ? "a folder"
                  : S_ISFIFO(st.st_mode) ? "a pipe"
                                         : "a device or socket");
    return 2;
  }
  if (model && stat(model, &sm) == 0 && sm.st_dev == st.st_dev && sm.st_ino == st.st_ino) {
    tsr_cli_error("%s: %s is the model file", opt, path);
    return 2;
  }
  if (S_ISLNK(sl.st_mode) && !(*resolved = realpath(path, NULL))) {
    tsr_cli_error("%s: %s: %s", opt, path, strerror(errno));
    return 2;
  }
  return 0;
}

// The joint's own rows when none of them has compliance; 0 otherwise (a
// rope can go slack: never an equality).
static int rigid_rows(const TsrJointDef *d) {
  if (d->type == TSR_JOINT_DISTANCE && d->unilateral) return 0;
  int rigid = d->type == TSR_JOINT_CABLE
                  ? d->cable_compliance[0] == 0.0 && d->cable_compliance[1] == 0.0 && d->cable_compliance[2] == 0.0
                  : d->compliance == 0.0;
  return rigid ? tsr_joint_equality_rows(d) : 0;
}

// Joints in order of their body pair, then of index (sorted: the pairs of a
// model of a million joints, not their square).
static void pair_of(const TsrJointDef *d, int *lo, int *hi) {
  *lo = d->body[0] < d->body[1] ? d->body[0] : d->body[1];
  *hi = d->body[0] < d->body[1] ? d->body[1] : d->body[0];
}
static int by_pair(const void *a, const void *b, void *joints) {
  const TsrJointDef *js = joints;
  int i = *(const int *)a, j = *(const int *)b, li, hi, lj, hj;
  pair_of(&js[i], &li, &hi), pair_of(&js[j], &lj, &hj);
  if (li != lj) return li < lj ? -1 : 1;
  if (hi != hj) return hi < hj ? -1 : 1;
  return (i > j) - (i < j);
}

// The joints' rows at the initial configuration (rows->count 0 when they
// cannot be built), and the first row of each joint (first[j], first[n]).
static void initial_rows(const TsrModel *m, TsrRowSet *rows, int *first) {
  TsrBodies b;
  TsrJoints js;
  memset(&b, 0, sizeof b), memset(&js, 0, sizeof js);
  if (!tsr_bodies_init(&b, m) && !tsr_joints_init(&js, m, &b)) {
    tsr_bodies_update_inertia(&b);
    if (tsr_joints_build_rows(&js, m, &b, NULL, m->settings.step, rows)) rows->count = 0;  // out of memory: unknown
  }
  tsr_joints_free(&js);
  tsr_bodies_free(&b);
  int k = 0;
  for (int j = 0; j <= m->n_joints; j++) {
    while (k < rows->count && rows->rows[k].source < j) k++;
    first[j] = k;
  }
}

// Rank of the rigid rows (TSR_ROW_JOINT) of the joints group[0..ng) between
// bodies lo and hi; -1 when unknown (no rows) or above 12 rows.
static int group_rank(const TsrRowSet *rows, const int *first, const int *group, int ng, int lo, int hi) {
  int pick[12], k = 0;
  for (int g = 0; g < ng; g++)
    for (int q = first[group[g]]; q < first[group[g] + 1]; q++) {
      if (rows->rows[q].type != TSR_ROW_JOINT) continue;
      if (k == 12) return -1;
      pick[k++] = q;
    }
  return k ? tsr_joint_rows_rank(rows->rows, pick, k, lo, hi) : -1;
}

int tsr_cli_prepare_model(const TsrModel *m, int warn) {
  tsr_cli_apply_threads(m->settings.solver.threads);
  if (!warn) return 0;
  if (tsr_cli_warn_overlaps(m) < 0) return -1;
  tsr_cli_warn_redundant(m);
  tsr_cli_warn_inertia(m);
  tsr_cli_warn_limits(m);
  return 0;
}

int tsr_cli_warn_redundant(const TsrModel *m) {
  int n = m->n_joints, found = 0;
  int *order = n > 0 ? malloc(2 * (size_t)n * sizeof *order) : NULL;
  if (!order) return 0;    // (no joints, or no memory for a warning)
  int *group = order + n;  // the rigid joints of the current pair
  for (int j = 0; j < n; j++) order[j] = j;
  qsort_r(order, (size_t)n, sizeof *order, by_pair, m->joints);
  TsrRowSet rows = {0};
  int *first = NULL, built = 0;
  // One pass over the sorted joints; sum and the group restart with each pair.
  int sum = 0, ng = 0, said = 0, lo = 0, hi = 0;
  for (int k = 0; k <= n; k++) {
    int l2 = 0, h2 = 0;
    if (k < n) pair_of(&m->joints[order[k]], &l2, &h2);
    if (k == n || k == 0 || l2 != lo || h2 != hi) {
      // The pair just closed: 2-6 rigid rows of several joints can still be
      // dependent (two ball joints at one point: 6 rows of rank 3; at two
      // points: rank 5, the axis through them free of one row too many).
      if (ng > 1 && !said) {
        if (!built) {
          built = 1;
          first = malloc(((size_t)n + 1) * sizeof *first);
          if (first) initial_rows(m, &rows, first);
        }
        int rank = first ? group_rank(&rows, first, group, ng, lo, hi) : -1;
        const TsrJointDef *d = &m->joints[group[ng - 1]];
        if (rank > 0 && rank < sum) {  // (rank 0: neither body moves)
          found++;
          fprintf(stderr,
                  "%s:%d:%d: warning: joint '%s': with '%s', its rows held without compliance are linearly "
                  "dependent at the initial configuration (rank %d of %d rows): the MLCP is singular, its "
                  "impulses are not unique and can drift along its null space without bound; give one of them a "
                  "compliance (the default is 1e-10)\n",
                  m->path, d->mark.line, d->mark.col, d->name, m->joints[group[0]].name, rank, sum);
        }
      }
      if (k == n) break;
      lo = l2, hi = h2, sum = 0, ng = 0, said = 0;
    }
    const TsrJointDef *d = &m->joints[order[k]];
    int r = rigid_rows(d);
    if (!r) continue;
    sum += r;
    group[ng++] = order[k];
    if (ng > 1 && sum > 6 && !said) {  // this joint takes the rigid rows past 6
      found++, said = 1;
      fprintf(stderr,
              "%s:%d:%d: warning: joint '%s': with '%s', more than the 6 relative motions of its two bodies are "
              "held without compliance: the constraint rows are redundant and the MLCP singular, which long runs "
              "do not survive (impulses drift along its null space); give one of them a compliance (the default "
              "is 1e-10)\n",
              m->path, d->mark.line, d->mark.col, d->name, m->joints[group[0]].name);
    }
  }
  tsr_rowset_free(&rows);
  free(first);
  free(order);
  return found;
}

void tsr_cli_warn_output(const TsrModel *m) {
  long steps = m->settings.steps, every = m->settings.output.every;
  if (every > 1 && steps % every != 0)
    fprintf(stderr,
            "%s: warning: %ld steps is not a multiple of output.every = %ld: the last %ld steps are simulated but "
            "not written (frames are at steps 0, %ld, %ld, ...; OUTPUT.md)\n",
            m->path, steps, every, steps % every, every, 2 * every);
}

void tsr_cli_world_notice(const TsrModel *m, TsrWorld *w) {
  if (!w->notice_new) return;
  fprintf(stderr, "%s: warning: step %ld: %s\n", m->path, w->step, w->notice);
  w->notice_new = 0;
}

const char *tsr_cli_step_failure(const TsrWorld *w, int status) {
  if (status == 1) return w->error[0] ? w->error : "solver error";
  if (status == 3) return w->error;
  return "non-finite state";
}

// The watcher of tsr_cli_step: a thread that wakes every WATCH_TICK seconds
// from the first step watched until the progress ends and, when the step in
// progress has run for longer than the pace, says so: in a log once per
// pace, on a terminal (its line rewritten) each second. The lock orders its lines with the main thread's progress
// lines; the main thread prints nothing else while a step runs (errors and notices come after tsr_world_step returns,
// when the step is no longer watched).
#define WATCH_TICK 0.25
#define WATCH_TTY_PACE 2.0
struct TsrCliWatch {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  int stop, active;
  long step, steps;  // the step in progress (counted from 1), of steps
  double t_step;     // when it started
  const char *what;
  TsrCliProgress *p;
};

static double watch_pace(const TsrCliProgress *p) { return p->tty ? WATCH_TTY_PACE : p->log_every; }

static void *watch_main(void *arg) {
  struct TsrCliWatch *wt = arg;
  pthread_mutex_lock(&wt->lock);
  while (!wt->stop) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);  // (the condition variable's clock)
    long ns = until.tv_nsec + (long)(WATCH_TICK * 1e9);
    until.tv_sec += ns / 1000000000L, until.tv_nsec = ns % 1000000000L;
    pthread_cond_timedwait(&wt->wake, &wt->lock, &until);
    if (wt->stop || !wt->active) continue;
    TsrCliProgress *p = wt->p;
    double now = tsr_now_seconds(), in_step = now - wt->t_step, pace = watch_pace(p);
    if (in_step < pace || now - p->t_last < (p->tty ? 1.0 : pace)) continue;  // (a terminal's: each second)
    p->t_last = now;
    if (p->tty) {
      fprintf(stderr, "\r%s: %s %ld/%ld being solved for %.0f s%40s", wt->what, p->unit, wt->step, wt->steps, in_step,
              "");
      p->shown = 1;
    } else {
      fprintf(stderr, "%s: %s %ld/%ld still being solved after %.0f s, %.1f s elapsed\n", wt->what, p->unit, wt->step,
              wt->steps, in_step, now - p->t_start);
    }
    fflush(stderr);
  }
  pthread_mutex_unlock(&wt->lock);
  return NULL;
}

static void watch_start(TsrCliProgress *p) {
  if (p->quiet || !(watch_pace(p) > 0.0)) return;
  struct TsrCliWatch *wt = calloc(1, sizeof *wt);
  if (!wt) return;  // (no watcher: the progress lines between steps are still printed)
  wt->p = p;
  pthread_mutex_init(&wt->lock, NULL);
  pthread_cond_init(&wt->wake, NULL);
  // The thread takes no signals: Ctrl-C's handler runs in the main thread,
  // whose sleeps and reads it interrupts as before.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(&wt->thread, NULL, watch_main, wt);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc) {
    pthread_cond_destroy(&wt->wake);
    pthread_mutex_destroy(&wt->lock);
    free(wt);
    return;
  }
  p->watch = wt;
}

static void watch_stop(TsrCliProgress *p) {
  struct TsrCliWatch *wt = p->watch;
  if (!wt) return;
  pthread_mutex_lock(&wt->lock);
  wt->stop = 1;
  pthread_cond_signal(&wt->wake);
  pthread_mutex_unlock(&wt->lock);
  pthread_join(wt->thread, NULL);
  pthread_cond_destroy(&wt->wake);
  pthread_mutex_destroy(&wt->lock);
  free(wt);
  p->watch = NULL;
}

int tsr_cli_step(TsrCliProgress *p, const char *what, long steps, TsrWorld *w) {
  // The thread starts with the first step watched, not with the progress:
  // export-vtk's progress has no steps, and its reading of the run file
  // forks (io/run_reader.c), where a second thread can hold a lock the
  // child then waits on for ever (ASan's allocator's did: in the sanitizer
  // build, the probes of 5 tests' files timed out now and then).
  if (!p->watch_tried) p->watch_tried = 1, watch_start(p);
  struct TsrCliWatch *wt = p->watch;
  if (wt) {
    pthread_mutex_lock(&wt->lock);
    wt->what = what, wt->step = w->step + 1, wt->steps = steps;
    wt->t_step = tsr_now_seconds();
    wt->active = 1;
    pthread_mutex_unlock(&wt->lock);
  }
  int s = tsr_world_step(w);
  if (wt) {
    pthread_mutex_lock(&wt->lock);
    wt->active = 0;
    pthread_mutex_unlock(&wt->lock);
  }
  return s;
}

void tsr_cli_progress_start(TsrCliProgress *p, int quiet, double log_every) {
  p->tty = isatty(STDERR_FILENO);
  p->log_every = isnan(log_every) ? 60.0 : log_every;
  p->quiet = quiet || (!p->tty && p->log_every <= 0);
  p->shown = 0;
  p->unit = "step";
  p->t_start = tsr_now_seconds();
  p->t_last = p->tty ? 0.0 : p->t_start;  // a terminal shows the first step at once
  p->watch = NULL, p->watch_tried = 0;
}

int tsr_cli_progress_due(const TsrCliProgress *p, long step, long steps) {
  // (a terminal's line also shows the last step, a log's does not: the
  // summary line says it)
  return !p->quiet && (tsr_now_seconds() - p->t_last >= (p->tty ? 0.25 : p->log_every) || (p->tty && step == steps));
}

void tsr_cli_progress(TsrCliProgress *p, const char *what, long step, long steps, double t, const char *detail) {
  if (!tsr_cli_progress_due(p, step, steps)) return;
  double now = tsr_now_seconds();
  p->t_last = now;
  double frac = steps > 0 ? (double)step / (double)steps : 0.0, spent = now - p->t_start;
  double eta = frac > 0 ? spent * (1 - frac) / frac : 0.0;
  if (p->tty) {
    fprintf(stderr, "\r%s: %s %ld/%ld (%.0f%%)", what, p->unit, step, steps, 100 * frac);
    if (!isnan(t)) fprintf(stderr, "  t = %.3f s", t);
    fprintf(stderr, "%s%s  eta %.0f s   ", detail ? "  " : "", detail ? detail : "", eta);
    p->shown = 1;
  } else {
    fprintf(stderr, "%s: %s %ld/%ld (%.0f%%), ", what, p->unit, step, steps, 100 * frac);
    if (!isnan(t)) fprintf(stderr, "t = %.6g s, ", t);
    fprintf(stderr, "%.1f s elapsed, eta %.1f s\n", spent, eta);
  }
}

void tsr_cli_progress_end(TsrCliProgress *p, int keep) {
  watch_stop(p);
  if (p->shown) keep ? fputc('\n', stderr) : fprintf(stderr, "\r%-100s\r", "");
  p->shown = 0;
}
