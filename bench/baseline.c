/* baseline: the figures the clua recipes measure, taken by a plain C program
 * calling the OpenCL 1.2 API directly, so clua can be held against it in the
 * same run on the same device.
 *
 *   build/bench/baseline [--device SUBSTR|P:D] [--size BYTES] [--reps N]
 *                        [--quick] [--csv FILE] [--kernels DIR] [--local N]
 *                        [--iterations N] [--overlap-size BYTES]
 *                        [--launch-n N] [--warmup N] [--list]
 *
 * Every row: median of N (10) repetitions after 2 warm-ups, timed with
 * profiling events (END - START); GB/s = bytes / ns (10^9 bytes per second);
 * device copies count bytes read + bytes written. Every kernel's output and
 * every transfer is checked against the host's data before its row is
 * printed; a mismatch exits with status 1. See bench/README.md for exactly
 * what each row does. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "common.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define MIB (1024.0 * 1024.0)
#define POISON 0xFFFFFFFFu /* a NaN: never equal to the finite test data */

/* ---- options ---------------------------------------------------------- */

static const char *opt_device = NULL, *opt_csv = NULL, *opt_kernels = NULL;
static size_t opt_size = 256u << 20;         /* bytes per buffer */
static size_t opt_overlap = 64u << 20;       /* bytes per hypot input */
static int opt_reps = 10, opt_warm = 2;
static size_t opt_local = 256;               /* 0: let the driver choose */
static int opt_iterations = 64;
static int opt_launch_n = 10000, opt_launch_batches = 5;

/* ---- the OpenCL objects every section uses ---------------------------- */

static cl_device_id dev;
static cl_context ctx;
static cl_command_queue q;
static cl_program prog_copy, prog_overlap;

/* ---- rows --------------------------------------------------------------- */

typedef struct {
    const char *id;   /* CSV name */
    char label[48];   /* table name */
    double med, min, max;
    const char *unit;
} row_t;

static row_t rows[64];
static int nrows;

static void add_row(const char *id, const char *label, double med, double min,
                    double max, const char *unit)
{
    if (nrows == (int)(sizeof rows / sizeof rows[0]))
        die("too many rows");
    row_t *r = &rows[nrows++];
    r->id = id;
    snprintf(r->label, sizeof r->label, "%s", label);
    r->med = med;
    r->min = min;
    r->max = max;
    r->unit = unit;
    /* print as we go, so a long run shows progress */
    if (isnan(min))
        printf("%-30s %10.3f %10s %10s  %s\n", label, med, "-", "-", unit);
    else
        printf("%-30s %10.3f %10.3f %10.3f  %s\n", label, med, min, max, unit);
    fflush(stdout);
}

/* A bandwidth row from times in ns: GB/s = bytes / ns. */
static void add_bw(const char *id, const char *label, double bytes, const double *t, int n)
{
    add_row(id, label, bytes / median(t, n), bytes / max_of(t, n), bytes / min_of(t, n), "GB/s");
}

/* A time row from times in ns, printed in ms or µs. */
static void add_time(const char *id, const char *label, const double *t, int n, double scale,
                     const char *unit)
{
    add_row(id, label, median(t, n) / scale, min_of(t, n) / scale, max_of(t, n) / scale, unit);
}

/* ---- data and checks ---------------------------------------------------- */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
    /* splitmix64 */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* uniform in [lo, hi), 24 random bits */
static void fill_random(float *v, size_t n, uint64_t seed, float lo, float hi)
{
    rng_state = seed;
    for (size_t i = 0; i < n; i++)
        v[i] = lo + (hi - lo) * (float)(rng_next() >> 40) * (1.0f / 16777216.0f);
}

static void poison_host(void *p, size_t bytes)
{
    memset(p, 0xFF, bytes);
}

static void poison_buffer(cl_mem b, size_t bytes)
{
    cl_uint pattern = POISON;
    CHECK(clEnqueueFillBuffer(q, b, &pattern, sizeof pattern, 0, bytes, 0, NULL, NULL));
    CHECK(clFinish(q));
}

static uint32_t bits(const float *v, size_t i)
{
    uint32_t u;
    memcpy(&u, &v[i], sizeof u);
    return u;
}

static void mismatch(const char *what, size_t i, const char *fmt, double got, double want)
{
    fprintf(stderr, "MISMATCH in %s at element %zu: got ", what, i);
    fprintf(stderr, fmt, got);
    fprintf(stderr, ", expected ");
    fprintf(stderr, fmt, want);
    fputc('\n', stderr);
    exit(1);
}

static void untouched(const char *what, size_t i, float got)
{
    fprintf(stderr, "MISMATCH in %s at element %zu: got %.9g where nothing should be written\n",
            what, i, got);
    exit(1);
}

/* got[i] == want[i] bit for bit, i in [first, first + n) */
static void check_same(const char *what, const float *got, const float *want, size_t first,
                       size_t n)
{
    if (memcmp(got + first, want + first, n * sizeof *got) == 0)
        return;
    for (size_t i = first; i < first + n; i++)
        if (bits(got, i) != bits(want, i))
            mismatch(what, i, "%.9g", got[i], want[i]);
}

/* got[i] still poison, i in [first, first + n): the kernel wrote nothing else */
static void check_poison(const char *what, const float *got, size_t first, size_t n)
{
    for (size_t i = first; i < first + n; i++)
        if (bits(got, i) != POISON)
            untouched(what, i, got[i]);
}

/* Host memory as clua's cl.array takes it (host/hostmem.c, hostmem_new), so
   that pageable transfers start from the same kind of pages on both sides:
   from 16 MiB straight from mmap(), below that 4 KiB-aligned from malloc. */
#define MMAP_FROM ((size_t)16 << 20)

static void *host_alloc(size_t bytes)
{
    void *p = NULL;
    if (bytes >= MMAP_FROM) {
        p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            die("cannot map %zu bytes of host memory", bytes);
    } else if (posix_memalign(&p, 4096, bytes ? bytes : 1) != 0) {
        die("cannot allocate %zu bytes of host memory", bytes);
    }
    return p;
}

static void host_free(void *p, size_t bytes)
{
    if (bytes >= MMAP_FROM)
        munmap(p, bytes);
    else
        free(p);
}

static cl_mem buffer(cl_mem_flags flags, size_t bytes)
{
    cl_int err;
    cl_mem b = clCreateBuffer(ctx, flags, bytes, NULL, &err);
    if (err != CL_SUCCESS)
        die("clCreateBuffer of %zu bytes failed: %s", bytes, cl_error_name(err));
    return b;
}

/* A CL_MEM_ALLOC_HOST_PTR buffer, mapped once: pinned host memory. */
static float *pinned(size_t bytes, cl_mem *buf)
{
    cl_int err;
    *buf = buffer(CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes);
    void *p = clEnqueueMapBuffer(q, *buf, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0,
                                 NULL, NULL, &err);
    CHECK(err);
    return p;
}

static void unpin(cl_mem buf, float *p)
{
    CHECK(clEnqueueUnmapMemObject(q, buf, p, 0, NULL, NULL));
    CHECK(clFinish(q));
    CHECK(clReleaseMemObject(buf));
}

static double take(cl_event ev)
{
    double t = event_ns(ev);
    CHECK(clReleaseEvent(ev));
    return t;
}

/* ---- transfers: H2D and D2H, pageable and pinned; D2D -------------------- */

typedef enum { WRITE, READ } dir_t;

static void time_transfer(dir_t dir, cl_mem d, void *host, size_t bytes, double *t)
{
    for (int r = -opt_warm; r < opt_reps; r++) {
        cl_event ev;
        if (dir == WRITE)
            CHECK(clEnqueueWriteBuffer(q, d, CL_TRUE, 0, bytes, host, 0, NULL, &ev));
        else
            CHECK(clEnqueueReadBuffer(q, d, CL_TRUE, 0, bytes, host, 0, NULL, &ev));
        double ns = take(ev);
        if (r >= 0)
            t[r] = ns;
    }
}

static void transfers(double *t)
{
    size_t bytes = opt_size, n = bytes / sizeof(float);
    cl_mem d = buffer(CL_MEM_READ_WRITE, bytes);

    /* pageable: host memory as cl.array's (host_alloc), blocking calls */
    float *src = host_alloc(bytes), *dst = host_alloc(bytes);
    fill_random(src, n, 1, -1.0f, 1.0f);
    poison_host(dst, bytes);
    time_transfer(WRITE, d, src, bytes, t);
    add_bw("h2d_pageable", "H2D pageable", (double)bytes, t, opt_reps);
    time_transfer(READ, d, dst, bytes, t);
    check_same("D2H pageable (round trip of H2D pageable)", dst, src, 0, n);
    add_bw("d2h_pageable", "D2H pageable", (double)bytes, t, opt_reps);

    /* pinned: a CL_MEM_ALLOC_HOST_PTR buffer mapped once, its pointer used as
       the host memory of Write/Read on a plain device buffer */
    cl_mem bsrc, bdst;
    float *psrc = pinned(bytes, &bsrc), *pdst = pinned(bytes, &bdst);
    fill_random(psrc, n, 2, -1.0f, 1.0f);
    poison_host(pdst, bytes);
    time_transfer(WRITE, d, psrc, bytes, t);
    add_bw("h2d_pinned", "H2D pinned", (double)bytes, t, opt_reps);
    time_transfer(READ, d, pdst, bytes, t);
    check_same("D2H pinned (round trip of H2D pinned)", pdst, psrc, 0, n);
    add_bw("d2h_pinned", "D2H pinned", (double)bytes, t, opt_reps);

    /* D2D: clEnqueueCopyBuffer, bytes read + written; d holds psrc's data */
    cl_mem d2 = buffer(CL_MEM_READ_WRITE, bytes);
    poison_buffer(d2, bytes);
    for (int r = -opt_warm; r < opt_reps; r++) {
        cl_event ev;
        CHECK(clEnqueueCopyBuffer(q, d, d2, 0, 0, bytes, 0, NULL, &ev));
        CHECK(clWaitForEvents(1, &ev));
        double ns = take(ev);
        if (r >= 0)
            t[r] = ns;
    }
    CHECK(clEnqueueReadBuffer(q, d2, CL_TRUE, 0, bytes, dst, 0, NULL, NULL));
    check_same("D2D clEnqueueCopyBuffer", dst, psrc, 0, n);
    add_bw("d2d_copy", "D2D clEnqueueCopyBuffer", 2.0 * bytes, t, opt_reps);

    unpin(bsrc, psrc);
    unpin(bdst, pdst);
    CHECK(clReleaseMemObject(d));
    CHECK(clReleaseMemObject(d2));
    host_free(src, bytes);
    host_free(dst, bytes);
}

/* ---- copy kernels: copy, offsetCopy (3.2.1.3), strideCopy (3.2.1.4) ------ */

static cl_kernel kernel(cl_program p, const char *name)
{
    cl_int err;
    cl_kernel k = clCreateKernel(p, name, &err);
    if (err != CL_SUCCESS)
        die("clCreateKernel(%s) failed: %s", name, cl_error_name(err));
    return k;
}

/* The local size used for kernel k: --local, capped by the kernel's limit. */
static size_t local_for(cl_kernel k)
{
    if (opt_local == 0)
        return 0;
    size_t wg = 0;
    CHECK(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL));
    size_t l = opt_local;
    while (l > wg && l > 1)
        l /= 2;
    return l;
}

static size_t round_down(size_t n, size_t multiple)
{
    return multiple ? n / multiple * multiple : n;
}

/* Runs k over `global` work-items warm + reps times; t[] gets kernel times. */
static void time_kernel(cl_kernel k, size_t global, size_t local, double *t)
{
    for (int r = -opt_warm; r < opt_reps; r++) {
        cl_event ev;
        CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, local ? &local : NULL, 0, NULL,
                                     &ev));
        CHECK(clWaitForEvents(1, &ev));
        double ns = take(ev);
        if (r >= 0)
            t[r] = ns;
    }
}

static void copy_kernels(double *t)
{
    const size_t pad = 32; /* floats past the end, for offsets up to 32 */
    size_t n = opt_size / sizeof(float), total = n + pad, bytes = total * sizeof(float);
    cl_mem din = buffer(CL_MEM_READ_WRITE, bytes), dout = buffer(CL_MEM_READ_WRITE, bytes);
    float *in = host_alloc(bytes), *out = host_alloc(bytes);
    fill_random(in, total, 3, -1.0f, 1.0f);
    CHECK(clEnqueueWriteBuffer(q, din, CL_TRUE, 0, bytes, in, 0, NULL, NULL));
    char what[64], label[48];

    /* copy: odata[i] = idata[i], i < n */
    cl_kernel kc = kernel(prog_copy, "copy");
    size_t lc = local_for(kc), m = round_down(n, lc);
    CHECK(clSetKernelArg(kc, 0, sizeof dout, &dout));
    CHECK(clSetKernelArg(kc, 1, sizeof din, &din));
    poison_buffer(dout, bytes);
    time_kernel(kc, m, lc, t);
    CHECK(clEnqueueReadBuffer(q, dout, CL_TRUE, 0, bytes, out, 0, NULL, NULL));
    check_same("copy", out, in, 0, m);
    check_poison("copy", out, m, total - m);
    add_bw("copy_kernel", "copy kernel", 2.0 * m * sizeof(float), t, opt_reps);
    CHECK(clReleaseKernel(kc));

    /* offsetCopy, Listing 3.5: copies elements [offset, offset + m) */
    static const int offsets[] = {0, 1, 17, 32};
    static const char *const offset_ids[] = {"offset_0", "offset_1", "offset_17", "offset_32"};
    cl_kernel ko = kernel(prog_copy, "offsetCopy");
    size_t lo = local_for(ko);
    m = round_down(n, lo);
    CHECK(clSetKernelArg(ko, 0, sizeof dout, &dout));
    CHECK(clSetKernelArg(ko, 1, sizeof din, &din));
    for (size_t j = 0; j < sizeof offsets / sizeof offsets[0]; j++) {
        cl_int off = offsets[j];
        CHECK(clSetKernelArg(ko, 2, sizeof off, &off));
        poison_buffer(dout, bytes);
        time_kernel(ko, m, lo, t);
        CHECK(clEnqueueReadBuffer(q, dout, CL_TRUE, 0, bytes, out, 0, NULL, NULL));
        snprintf(what, sizeof what, "offsetCopy offset %d", off);
        check_poison(what, out, 0, (size_t)off);
        check_same(what, out, in, (size_t)off, m);
        check_poison(what, out, (size_t)off + m, total - m - (size_t)off);
        snprintf(label, sizeof label, "copy kernel, offset %d", off);
        add_bw(offset_ids[j], label, 2.0 * m * sizeof(float), t, opt_reps);
    }
    CHECK(clReleaseKernel(ko));

    /* strideCopy, Listing 3.6: m = n / stride work-items copy elements
       i * stride; effective bandwidth counts the m floats read + m written */
    static const int strides[] = {2, 4, 8, 16, 32};
    static const char *const stride_ids[] = {"stride_2", "stride_4", "stride_8", "stride_16",
                                             "stride_32"};
    cl_kernel ks = kernel(prog_copy, "strideCopy");
    size_t ls = local_for(ks);
    CHECK(clSetKernelArg(ks, 0, sizeof dout, &dout));
    CHECK(clSetKernelArg(ks, 1, sizeof din, &din));
    for (size_t j = 0; j < sizeof strides / sizeof strides[0]; j++) {
        cl_int s = strides[j];
        m = round_down(n / (size_t)s, ls);
        CHECK(clSetKernelArg(ks, 2, sizeof s, &s));
        poison_buffer(dout, bytes);
        time_kernel(ks, m, ls, t);
        CHECK(clEnqueueReadBuffer(q, dout, CL_TRUE, 0, bytes, out, 0, NULL, NULL));
        snprintf(what, sizeof what, "strideCopy stride %d", s);
        for (size_t i = 0; i < total; i++) {
            int written = i % (size_t)s == 0 && i / (size_t)s < m;
            if (written && bits(out, i) != bits(in, i))
                mismatch(what, i, "%.9g", out[i], in[i]);
            if (!written && bits(out, i) != POISON)
                untouched(what, i, out[i]);
        }
        snprintf(label, sizeof label, "copy kernel, stride %d", s);
        add_bw(stride_ids[j], label, 2.0 * m * sizeof(float), t, opt_reps);
    }
    CHECK(clReleaseKernel(ks));

    CHECK(clReleaseMemObject(din));
    CHECK(clReleaseMemObject(dout));
    host_free(in, bytes);
    host_free(out, bytes);
}

/* ---- launch cost of an empty kernel ------------------------------------- */

static void launch(void)
{
    cl_kernel k = kernel(prog_copy, "empty");

    /* host side: µs per clEnqueueNDRangeKernel in a stream of N (as launch.c) */
    double per[64];
    int b = opt_launch_batches < 64 ? opt_launch_batches : 64;
    launch_enqueue_us(q, k, opt_launch_n, 1, b, per, NULL, 0);
    add_row("launch_enqueue_us", "empty kernel, enqueue (host)", median(per, b), min_of(per, b),
            max_of(per, b), "us");

    /* one launch at a time: dispatch = QUEUED -> START (events), round trip
       = host clock around enqueue + clFinish */
    enum { LAT_WARM = 10, LAT_N = 100 };
    double disp[LAT_N], trip[LAT_N];
    const size_t global = 1;
    for (int r = -LAT_WARM; r < LAT_N; r++) {
        cl_event ev;
        double t0 = now_ns();
        CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, &ev));
        CHECK(clFinish(q));
        double t1 = now_ns();
        if (r >= 0) {
            disp[r] = (double)(event_time(ev, CL_PROFILING_COMMAND_START) -
                               event_time(ev, CL_PROFILING_COMMAND_QUEUED));
            trip[r] = t1 - t0;
        }
        CHECK(clReleaseEvent(ev));
    }
    add_time("launch_dispatch_us", "empty kernel, dispatch", disp, LAT_N, 1e3, "us");
    add_time("launch_roundtrip_us", "empty kernel, round trip", trip, LAT_N, 1e3, "us");
    CHECK(clReleaseKernel(k));
}

/* ---- the hypotenuse copy/compute overlap pipeline (3.1.3) ---------------- */

typedef struct {
    cl_mem da, db, dc;
    float *ha, *hb, *hc;
    cl_kernel k;
    size_t n, local;
    cl_command_queue q1;
} pipe_t;

static size_t *lp(pipe_t *p)
{
    return p->local ? &p->local : NULL;
}

/* span of a set of events: latest END - earliest START */
static double span(cl_event *ev, int n)
{
    cl_ulong s = event_time(ev[0], CL_PROFILING_COMMAND_START), e = 0;
    for (int i = 0; i < n; i++) {
        cl_ulong a = event_time(ev[i], CL_PROFILING_COMMAND_START);
        cl_ulong b = event_time(ev[i], CL_PROFILING_COMMAND_END);
        if (a < s)
            s = a;
        if (b > e)
            e = b;
    }
    return (double)(e - s);
}

/* 1 queue: write A, write B, kernel, read C, finish. ev[0..3] */
static void pipe_serial(pipe_t *p, cl_event *ev)
{
    size_t bytes = p->n * sizeof(float);
    CHECK(clEnqueueWriteBuffer(q, p->da, CL_FALSE, 0, bytes, p->ha, 0, NULL, &ev[0]));
    CHECK(clEnqueueWriteBuffer(q, p->db, CL_FALSE, 0, bytes, p->hb, 0, NULL, &ev[1]));
    CHECK(clEnqueueNDRangeKernel(q, p->k, 1, NULL, &p->n, lp(p), 0, NULL, &ev[2]));
    CHECK(clEnqueueReadBuffer(q, p->dc, CL_FALSE, 0, bytes, p->hc, 0, NULL, &ev[3]));
    CHECK(clFinish(q));
}

/* 2 queues on halves, staggered in 3 phases as in the guide's snippet. ev[0..7] */
static void pipe_two(pipe_t *p, cl_event *ev)
{
    cl_command_queue q0 = q, q1 = p->q1;
    size_t h = p->n / 2, hb = h * sizeof(float);
    /* phase 1: write 1st half on q0 */
    CHECK(clEnqueueWriteBuffer(q0, p->da, CL_FALSE, 0, hb, p->ha, 0, NULL, &ev[0]));
    CHECK(clEnqueueWriteBuffer(q0, p->db, CL_FALSE, 0, hb, p->hb, 0, NULL, &ev[1]));
    CHECK(clFlush(q0));
    /* phase 2: kernel on the 1st half (q0), write the 2nd half (q1) */
    size_t off = 0;
    CHECK(clEnqueueNDRangeKernel(q0, p->k, 1, &off, &h, lp(p), 0, NULL, &ev[2]));
    CHECK(clEnqueueWriteBuffer(q1, p->da, CL_FALSE, hb, hb, p->ha + h, 0, NULL, &ev[3]));
    CHECK(clEnqueueWriteBuffer(q1, p->db, CL_FALSE, hb, hb, p->hb + h, 0, NULL, &ev[4]));
    CHECK(clFlush(q0));
    CHECK(clFlush(q1));
    /* phase 3: read the 1st half (q0), kernel on the 2nd half (q1) */
    CHECK(clEnqueueReadBuffer(q0, p->dc, CL_FALSE, 0, hb, p->hc, 0, NULL, &ev[5]));
    off = h;
    CHECK(clEnqueueNDRangeKernel(q1, p->k, 1, &off, &h, lp(p), 0, NULL, &ev[6]));
    CHECK(clFlush(q0));
    CHECK(clFlush(q1));
    /* phase 4: read the 2nd half (q1) */
    CHECK(clEnqueueReadBuffer(q1, p->dc, CL_FALSE, hb, hb, p->hc + h, 0, NULL, &ev[7]));
    CHECK(clFinish(q0));
    CHECK(clFinish(q1));
}

static void check_hypot(const char *what, const float *c, const float *a, const float *b,
                        size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double want = sqrt((double)a[i] * a[i] + (double)b[i] * b[i]);
        if (!(fabs(c[i] - want) <= 1e-5 * want))
            mismatch(what, i, "%.9g", c[i], want);
    }
}

static void overlap(void)
{
    cl_int err;
    pipe_t p;
    p.k = kernel(prog_overlap, "hypotenuse");
    p.local = local_for(p.k);
    p.n = round_down(opt_overlap / sizeof(float), p.local ? 2 * p.local : 2);
    if (p.n == 0)
        die("--overlap-size too small");
    size_t bytes = p.n * sizeof(float);
    p.q1 = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK(err);
    cl_mem ba, bb, bc;
    p.ha = pinned(bytes, &ba);
    p.hb = pinned(bytes, &bb);
    p.hc = pinned(bytes, &bc);
    fill_random(p.ha, p.n, 4, 0.5f, 2.0f);
    fill_random(p.hb, p.n, 5, 0.5f, 2.0f);
    p.da = buffer(CL_MEM_READ_ONLY, bytes);
    p.db = buffer(CL_MEM_READ_ONLY, bytes);
    p.dc = buffer(CL_MEM_WRITE_ONLY, bytes);
    cl_int iters = opt_iterations;
    CHECK(clSetKernelArg(p.k, 0, sizeof p.da, &p.da));
    CHECK(clSetKernelArg(p.k, 1, sizeof p.db, &p.db));
    CHECK(clSetKernelArg(p.k, 2, sizeof p.dc, &p.dc));
    CHECK(clSetKernelArg(p.k, 3, sizeof iters, &iters));

    int reps = opt_reps;
    double *t1 = malloc(7 * (size_t)reps * sizeof(double));
    if (!t1)
        die("out of memory");
    double *h1 = t1 + reps, *t2 = h1 + reps, *h2 = t2 + reps;
    double *tw = h2 + reps, *tk = tw + reps, *tr = tk + reps;
    cl_event ev[8];

    poison_buffer(p.dc, bytes);
    for (int r = -opt_warm; r < reps; r++) {
        poison_host(p.hc, bytes);
        double a = now_ns();
        pipe_serial(&p, ev);
        double b = now_ns();
        check_hypot("hypotenuse, 1 queue", p.hc, p.ha, p.hb, p.n);
        if (r >= 0) {
            t1[r] = span(ev, 4);
            h1[r] = b - a;
            tw[r] = event_ns(ev[0]) + event_ns(ev[1]);
            tk[r] = event_ns(ev[2]);
            tr[r] = event_ns(ev[3]);
        }
        for (int i = 0; i < 4; i++)
            CHECK(clReleaseEvent(ev[i]));
    }
    poison_buffer(p.dc, bytes);
    for (int r = -opt_warm; r < reps; r++) {
        poison_host(p.hc, bytes);
        double a = now_ns();
        pipe_two(&p, ev);
        double b = now_ns();
        check_hypot("hypotenuse, 2 queues", p.hc, p.ha, p.hb, p.n);
        if (r >= 0) {
            t2[r] = span(ev, 8);
            h2[r] = b - a;
        }
        for (int i = 0; i < 8; i++)
            CHECK(clReleaseEvent(ev[i]));
    }
    add_time("overlap_write_ms", "hypot 1 queue: write A+B", tw, reps, 1e6, "ms");
    add_time("overlap_kernel_ms", "hypot 1 queue: kernel", tk, reps, 1e6, "ms");
    add_time("overlap_read_ms", "hypot 1 queue: read C", tr, reps, 1e6, "ms");
    add_time("overlap_1queue_ms", "hypot pipeline, 1 queue", t1, reps, 1e6, "ms");
    add_time("overlap_2queues_ms", "hypot pipeline, 2 queues", t2, reps, 1e6, "ms");
    add_row("overlap_saved_pct", "hypot pipeline, time saved",
            100.0 * (1.0 - median(t2, reps) / median(t1, reps)), NAN, NAN, "%");
    add_time("overlap_1queue_host_ms", "hypot 1 queue (host clock)", h1, reps, 1e6, "ms");
    add_time("overlap_2queues_host_ms", "hypot 2 queues (host clock)", h2, reps, 1e6, "ms");
    add_row("overlap_saved_host_pct", "time saved (host clock)",
            100.0 * (1.0 - median(h2, reps) / median(h1, reps)), NAN, NAN, "%");

    free(t1);
    unpin(ba, p.ha);
    unpin(bb, p.hb);
    unpin(bc, p.hc);
    CHECK(clReleaseMemObject(p.da));
    CHECK(clReleaseMemObject(p.db));
    CHECK(clReleaseMemObject(p.dc));
    CHECK(clReleaseCommandQueue(p.q1));
    CHECK(clReleaseKernel(p.k));
}

/* ---- main ---------------------------------------------------------------- */

static void usage(void)
{
    fputs("usage: baseline [--device SUBSTR|P:D] [--size BYTES] [--reps N] [--quick]\n"
          "                [--csv FILE] [--kernels DIR] [--local N (0: driver's choice)]\n"
          "                [--iterations N] [--overlap-size BYTES] [--launch-n N]\n"
          "                [--warmup N] [--list]\n"
          "BYTES may end in K, M or G (KiB, MiB, GiB). Defaults: 256M, 10 reps after\n"
          "2 warm-ups, local 256, 64 iterations, overlap 64M per input, launch-n 10000;\n"
          "--quick: 4M and overlap 2M.\n",
          stderr);
    exit(2);
}

static size_t parse_bytes(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    switch (*end) {
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    default: break;
    }
    if (end == s || *end != '\0')
        usage();
    return (size_t)v;
}

static int parse_int(const char *s, int lo)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || v < lo || v > INT_MAX)
        usage();
    return (int)v;
}

int main(int argc, char **argv)
{
    int quick = 0, size_set = 0, overlap_set = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "--list")) {
            list_devices();
            return 0;
        } else if (!strcmp(a, "--quick"))
            quick = 1;
        else if (more && !strcmp(a, "--device"))
            opt_device = argv[++i];
        else if (more && !strcmp(a, "--size"))
            opt_size = parse_bytes(argv[++i]), size_set = 1;
        else if (more && !strcmp(a, "--reps"))
            opt_reps = parse_int(argv[++i], 1);
        else if (more && !strcmp(a, "--warmup"))
            opt_warm = parse_int(argv[++i], 0);
        else if (more && !strcmp(a, "--csv"))
            opt_csv = argv[++i];
        else if (more && !strcmp(a, "--kernels"))
            opt_kernels = argv[++i];
        else if (more && !strcmp(a, "--local"))
            opt_local = (size_t)parse_int(argv[++i], 0);
        else if (more && !strcmp(a, "--iterations"))
            opt_iterations = parse_int(argv[++i], 0);
        else if (more && !strcmp(a, "--overlap-size"))
            opt_overlap = parse_bytes(argv[++i]), overlap_set = 1;
        else if (more && !strcmp(a, "--launch-n"))
            opt_launch_n = parse_int(argv[++i], 1);
        else
            usage();
    }
    if (quick) {
        if (!size_set)
            opt_size = 4u << 20;
        if (!overlap_set)
            opt_overlap = 2u << 20;
    }
    opt_size = opt_size / 4096 * 4096;
    if (opt_size == 0)
        die("--size must be at least 4096 bytes");
    if (opt_size / sizeof(float) > (size_t)INT_MAX - 64)
        die("--size too large: the guide's kernels index with int");

    dev = pick_device(opt_device);
    cl_int err;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err);
    q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK(err);
    cl_ulong max_alloc = 0;
    CHECK(clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL));
    if (opt_size + 128 > max_alloc || opt_overlap > max_alloc)
        die("--size/--overlap-size exceed the device's largest allocation (%llu bytes)",
            (unsigned long long)max_alloc);

    const char *kdir = kernel_dir(opt_kernels);
    prog_copy = build_program(ctx, dev, kdir, "copy.cl", "");
    prog_overlap = build_program(ctx, dev, kdir, "overlap.cl", "");

    char name[256], plat[256], drv[128], cver[128];
    cl_platform_id pid;
    CHECK(clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof pid, &pid, NULL));
    CHECK(clGetPlatformInfo(pid, CL_PLATFORM_NAME, sizeof plat, plat, NULL));
    plat[sizeof plat - 1] = '\0';
    printf("# plain C OpenCL baseline (bench/baseline.c)\n");
    printf("# device: %s (%s), driver %s, %s\n",
           device_string(dev, CL_DEVICE_NAME, name, sizeof name), plat,
           device_string(dev, CL_DRIVER_VERSION, drv, sizeof drv),
           device_string(dev, CL_DEVICE_OPENCL_C_VERSION, cver, sizeof cver));
    printf("# buffers %.6g MiB; hypot %.6g MiB per input, %d iterations; local %zu%s\n",
           opt_size / MIB, opt_overlap / MIB, opt_iterations, opt_local,
           opt_local ? "" : " (driver's choice)");
    printf("# median [min max] of %d after %d warm-ups, event timing; GB/s = bytes/ns,\n"
           "# device copies count bytes read + written; launch: %d batches of %d enqueues\n",
           opt_reps, opt_warm, opt_launch_batches, opt_launch_n);
    printf("%-30s %10s %10s %10s  %s\n", "figure", "median", "min", "max", "unit");

    double *t = malloc((size_t)opt_reps * sizeof *t);
    if (!t)
        die("out of memory");
    transfers(t);
    copy_kernels(t);
    launch();
    overlap();
    free(t);
    printf("# all outputs verified\n");

    if (opt_csv) {
        FILE *f = fopen(opt_csv, "w");
        if (!f)
            die("cannot write %s", opt_csv);
        fprintf(f, "figure,value,unit\n");
        for (int i = 0; i < nrows; i++)
            fprintf(f, "%s,%.6g,%s\n", rows[i].id, rows[i].med, rows[i].unit);
        if (fclose(f) != 0)
            die("cannot write %s", opt_csv);
    }

    CHECK(clReleaseProgram(prog_copy));
    CHECK(clReleaseProgram(prog_overlap));
    CHECK(clReleaseCommandQueue(q));
    CHECK(clReleaseContext(ctx));
    return 0;
}
