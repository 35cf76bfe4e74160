/* multigpu: every device of a platform all at once, in plain C, with the calls
 * recipes/multigpu.lua makes: H2D (clEnqueueWriteBuffer from pinned memory),
 * D2H (clEnqueueReadBuffer into it), both (one of each on two queues) and the
 * copy kernel, each non-blocking and each with its event, waited for as
 * clua waits (clWaitForEvents); first each device alone, then every device
 * from one host thread (enqueue on all, flush all, wait for all), then one
 * host thread per device (started together at a barrier). Figures by the
 * host clock: bytes moved on every device / the span from the first enqueue
 * to the last completion, median of --reps after --warmup. Every destination
 * is poisoned first and checked after, exactly. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXDEV 16
enum { H2D, D2H, BOTH, COPY, NOPS };
static const char *const OPNAME[NOPS] = {"H2D", "D2H", "both", "copy"};

typedef struct {
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q, q2;
  cl_mem da, db, pin_in, pin_out;
  float *hin, *hout;
  cl_kernel k;
  cl_event ev[2]; /* the repetition's commands, waited for as clua's cl.wait does */
  cl_uint nev;
  /* the thread per device */
  pthread_t th;
  int op;
} rig;

static rig rigs[MAXDEV];
static int ndev, reps = 10, warmup = 2;
static size_t bytes = 256u << 20;
static float *src;
static pthread_barrier_t go, done;
static volatile int stop;

static size_t moved(int op) { return (op == BOTH || op == COPY) ? 2 * bytes : bytes; }

static void start(rig *r, int op) {
  size_t n = bytes / 4;
  cl_event *e = r->ev;
  r->nev = op == BOTH ? 2 : 1;
  switch (op) {
  case H2D: CHECK(clEnqueueWriteBuffer(r->q, r->da, CL_FALSE, 0, bytes, r->hin, 0, NULL, &e[0])); break;
  case D2H: CHECK(clEnqueueReadBuffer(r->q, r->da, CL_FALSE, 0, bytes, r->hout, 0, NULL, &e[0])); break;
  case BOTH:
    CHECK(clEnqueueWriteBuffer(r->q, r->db, CL_FALSE, 0, bytes, r->hin, 0, NULL, &e[0]));
    CHECK(clEnqueueReadBuffer(r->q2, r->da, CL_FALSE, 0, bytes, r->hout, 0, NULL, &e[1]));
    break;
  default: CHECK(clEnqueueNDRangeKernel(r->q, r->k, 1, NULL, &n, NULL, 0, NULL, &e[0]));
  }
}

/* Waits for the repetition's events (each command returns one, as clua's
 * do), else for both queues. */
static void finish(rig *r) {
  if (r->nev) {
    CHECK(clWaitForEvents(r->nev, r->ev));
    for (cl_uint i = 0; i < r->nev; i++) CHECK(clReleaseEvent(r->ev[i]));
    r->nev = 0;
    return;
  }
  CHECK(clFinish(r->q));
  CHECK(clFinish(r->q2));
}

/* Destinations poisoned (all bits 1), the host's too. */
static void poison(rig *r, int op) {
  cl_uchar ff = 0xff;
  if (op == H2D) CHECK(clEnqueueFillBuffer(r->q, r->da, &ff, 1, 0, bytes, 0, NULL, NULL));
  if (op == BOTH || op == COPY) CHECK(clEnqueueFillBuffer(r->q, r->db, &ff, 1, 0, bytes, 0, NULL, NULL));
  if (op == D2H || op == BOTH) memset(r->hout, 0xff, bytes);
  finish(r);
}

static void check(rig *r, int op, const char *mode, int i) {
  float *got = malloc(bytes);
  if (!got) die("out of memory");
  if (op == H2D || op == BOTH || op == COPY) {
    CHECK(clEnqueueReadBuffer(r->q, op == H2D ? r->da : r->db, CL_TRUE, 0, bytes, got, 0, NULL, NULL));
    if (memcmp(got, src, bytes)) { printf("MISMATCH %s %s device %d: the device buffer\n", OPNAME[op], mode, i); exit(1); }
  }
  if ((op == D2H || op == BOTH) && memcmp(r->hout, src, bytes)) {
    printf("MISMATCH %s %s device %d: the host array\n", OPNAME[op], mode, i);
    exit(1);
  }
  free(got);
}

static void *worker(void *arg) {
  rig *r = arg;
  for (;;) {
    pthread_barrier_wait(&go);
    if (stop) return NULL;
    start(r, r->op);
    CHECK(clFlush(r->q));
    CHECK(clFlush(r->q2));
    finish(r);
    pthread_barrier_wait(&done);
  }
}

/* Median GB/s of one mode: 0 one device (dev), 1 every device from this
 * thread, 2 a thread per device. */
static double run(int op, int mode, int dev) {
  int lo = mode == 0 ? dev : 0, hi = mode == 0 ? dev + 1 : ndev;
  double *t = calloc((size_t)reps, sizeof *t);
  for (int i = lo; i < hi; i++) { poison(&rigs[i], op); rigs[i].op = op; }
  for (int rep = -warmup; rep < reps; rep++) {
    double t0 = now_ns();
    if (mode == 2) {
      pthread_barrier_wait(&go);
      pthread_barrier_wait(&done);
    } else {
      for (int i = lo; i < hi; i++) start(&rigs[i], op);
      for (int i = lo; i < hi; i++) { CHECK(clFlush(rigs[i].q)); CHECK(clFlush(rigs[i].q2)); }
      for (int i = lo; i < hi; i++) finish(&rigs[i]);
    }
    if (rep >= 0) t[rep] = now_ns() - t0;
  }
  static const char *const MODE[] = {"alone", "one thread", "thread per device"};
  for (int i = lo; i < hi; i++) check(&rigs[i], op, MODE[mode], i);
  double gbs = (double)moved(op) * (hi - lo) / median(t, reps);
  free(t);
  return gbs;
}

int main(int argc, char **argv) {
  const char *sel = NULL, *csv = NULL, *kdir = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--quick")) { bytes = 1u << 20; reps = 3; }
    else if (!strcmp(a, "--list")) { list_devices(); return 0; }
    else if (v && !strcmp(a, "--device")) { sel = v; i++; }
    else if (v && !strcmp(a, "--csv")) { csv = v; i++; }
    else if (v && !strcmp(a, "--kernels")) { kdir = v; i++; }
    else if (v && !strcmp(a, "--reps")) { reps = atoi(v); i++; }
    else if (v && !strcmp(a, "--warmup")) { warmup = atoi(v); i++; }
    else if (v && !strcmp(a, "--size")) {
      char *end;
      double s = strtod(v, &end);
      s *= *end == 'K' || *end == 'k' ? 1024 : *end == 'M' || *end == 'm' ? 1 << 20 : *end == 'G' || *end == 'g' ? 1 << 30 : 1;
      bytes = (size_t)s / 4 * 4;
      i++;
    } else {
      fprintf(stderr, "usage: multigpu [--device SUBSTR|P:D] [--size BYTES] [--reps N] [--warmup N] [--quick] "
                      "[--csv FILE] [--kernels DIR] [--list]\n");
      return 2;
    }
  }
  if (reps < 1 || bytes < 4) die("--reps and --size must be positive");
  /* every device of the chosen device's platform */
  cl_device_id first = pick_device(sel);
  cl_platform_id plat;
  CHECK(clGetDeviceInfo(first, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL));
  cl_device_id devs[MAXDEV];
  cl_uint nd = 0;
  CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, MAXDEV, devs, &nd));
  ndev = (int)nd;
  src = malloc(bytes);
  if (!src) die("out of memory");
  srand(11);
  for (size_t i = 0; i < bytes / 4; i++) src[i] = (float)rand() / (float)RAND_MAX * 2.0f - 1.0f;
  cl_int err;
  for (int i = 0; i < ndev; i++) {
    rig *r = &rigs[i];
    r->dev = devs[i];
    r->ctx = clCreateContext(NULL, 1, &r->dev, NULL, NULL, &err);
    CHECK(err);
    r->q = clCreateCommandQueue(r->ctx, r->dev, CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK(err);
    r->q2 = clCreateCommandQueue(r->ctx, r->dev, CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK(err);
    r->pin_in = clCreateBuffer(r->ctx, CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
    CHECK(err);
    r->pin_out = clCreateBuffer(r->ctx, CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
    CHECK(err);
    r->hin = clEnqueueMapBuffer(r->q, r->pin_in, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &err);
    CHECK(err);
    r->hout = clEnqueueMapBuffer(r->q, r->pin_out, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &err);
    CHECK(err);
    memcpy(r->hin, src, bytes);
    r->da = clCreateBuffer(r->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, src, &err);
    CHECK(err);
    r->db = clCreateBuffer(r->ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CHECK(err);
    cl_program p = build_program_as_clua(r->ctx, r->dev, kernel_dir(kdir), "copy.cl");
    r->k = clCreateKernel(p, "copy", &err);
    CHECK(err);
    CHECK(clSetKernelArg(r->k, 0, sizeof r->db, &r->db));
    CHECK(clSetKernelArg(r->k, 1, sizeof r->da, &r->da));
    CHECK(clReleaseProgram(p));
  }
  pthread_barrier_init(&go, NULL, (unsigned)ndev + 1);
  pthread_barrier_init(&done, NULL, (unsigned)ndev + 1);
  for (int i = 0; i < ndev; i++) pthread_create(&rigs[i].th, NULL, worker, &rigs[i]);

  FILE *out = csv ? fopen(csv, "w") : NULL;
  if (csv && !out) die("cannot write %s", csv);
  if (out) fprintf(out, "figure,value,unit\n");
  char name[256];
  printf("multigpu (plain C): %d device%s of %s, %zu bytes, host clock, median of %d after %d\n", ndev,
         ndev == 1 ? "" : "s", device_string(first, CL_DEVICE_NAME, name, sizeof name), bytes, reps, warmup);
  printf("%-9s %12s %12s %12s %10s %10s\n", "operation", "sum of alone", "one thread", "thread/dev", "one/sum",
         "threads/sum");
  for (int op = 0; op < NOPS; op++) {
    double sum = 0;
    for (int i = 0; i < ndev; i++) {
      double a = run(op, 0, i);
      sum += a;
      if (out) fprintf(out, "%s_alone_%d,%.3f,GB/s\n", OPNAME[op], i, a);
    }
    double one = run(op, 1, 0), thr = run(op, 2, 0);
    printf("%-9s %12.2f %12.2f %12.2f %10.2f %10.2f\n", OPNAME[op], sum, one, thr, one / sum, thr / sum);
    if (out) fprintf(out, "%s_sum_alone,%.3f,GB/s\n%s_one_thread,%.3f,GB/s\n%s_thread_per_device,%.3f,GB/s\n",
                     OPNAME[op], sum, OPNAME[op], one, OPNAME[op], thr);
  }
  printf("GB/s = 10^9 B/s; every destination poisoned first and checked after, exactly\n");
  stop = 1;
  pthread_barrier_wait(&go);
  for (int i = 0; i < ndev; i++) pthread_join(rigs[i].th, NULL);
  if (out) fclose(out);
  return 0;
}
