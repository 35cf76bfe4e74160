/* launch: the host-side cost of one clEnqueueNDRangeKernel of an empty kernel.
 *
 *   build/bench/launch [--device SUBSTR] [--n N] [--batches B] [--kernels DIR] [--event]
 *                      [--release now|ring|retain|tail] [--sync finish|wait] [--held]
 *                      [--between near|far|data|far+data]
 *
 * Enqueues N empty kernels (kernels/copy.cl `empty`, global 1, local NULL, no
 * event; the program built with the options clua's program:build gives it,
 * build_program_as_clua, so that a driver that caches compiled programs runs
 * the same binary of the kernel for both) on an in-order queue with profiling
 * enabled, timing the N calls with
 * the host clock, then finishes the queue; one warm-up batch, then B batches
 * (default 5, N = 10000). Prints one line on stdout, the median in µs per
 * enqueue:
 *
 *   launch_us 1.234
 *
 * With --event each enqueue asks for an event and releases it at once
 * (clEnqueueNDRangeKernel(..., &ev); clReleaseEvent(ev)): the calls clua's
 * q:launch makes, which always returns an event. It prints
 *
 *   launch_event_us 1.345
 *
 * and the device and min/max on stderr, so a Lua benchmark can hold clua's
 * cost against it in the same run.
 *
 * --release picks when each event is released, to find where the cost of an
 * event goes (docs/notes/launch.md): `now` (the default, as above); `ring`, 1000
 * launches later (--ring N: N later), inside the timed loop (the command long done, so that
 * release is the last one and frees the event on the calling thread, as
 * clua's garbage collector does); `retain`, at once, plus a clRetainEvent of
 * it and a clReleaseEvent of the one retained at the launch before (clua's
 * bookkeeping of the queue's newest command); `tail`, at once except the last
 * N (--ring N) of each batch, released together at the first launch of the
 * next batch, their commands ended by then (as the collector leaves the
 * events dropped since its last cycle). It prints launch_event_us.
 *
 * --held enqueues each batch on a held queue: behind a marker waiting for a
 * user event, completed once the batch is timed (common.h: hold), so the
 * device runs none of the batch while it is enqueued and the enqueuing
 * thread has the CPU to itself (on a CPU device the driver's threads
 * otherwise run the kernels on the same cores): the enqueue's own cost.
 *
 * --between NAME (with --event) runs some work after each enqueue, in the
 * timed loop: 1100-1400 instructions in 7 cache lines (near) or in 115 over
 * 16 pages (far), 64 loads far apart (data), or both (far+data)
 * (between.c): what a layer between the loop and the driver costs a launch
 * by its instructions, and by where they sit (docs/notes/launch.md, sixth part).
 *
 * With --sync each of the N is a round trip: an enqueue with an event, then
 * clFinish(q) (finish) or clWaitForEvents on the event (wait), then its
 * release; the whole loop is timed. It prints sync_finish_us or sync_wait_us,
 * the median µs per round trip. */
#define _POSIX_C_SOURCE 200809L
#include "between.h"
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void)
{
    fputs("usage: launch [--device SUBSTR|P:D] [--n N] [--batches B] [--kernels DIR] [--event]\n"
          "              [--release now|ring|retain|tail] [--ring N] [--sync finish|wait] [--held] [--list]\n"
          "              [--between near|far|data|far+data]\n",
          stderr);
    exit(2);
}

/* launch_enqueue_us with an event asked for and released at each enqueue;
   sync 0: the queue finished after each batch (not timed), 1: clFinish after
   each enqueue, 2: clWaitForEvents on its event (round trips, timed). */
enum { NO_SYNC, SYNC_FINISH, SYNC_WAIT };
enum { RELEASE_NOW, RELEASE_RING, RELEASE_RETAIN, RELEASE_TAIL };
#define RING_MAX 100000
static int ring_n = 1000;  /* --ring N: how many launches later a ring release happens */
static between_fn between; /* --between NAME: work after each enqueue, or NULL */
static const char *between_name = "";
static double launch_event_us(cl_command_queue q, cl_kernel k, int n, int warm,
                              int batches, double *per_us, double *cpu_us, int sync, int release, int held)
{
    const size_t global = 1;
    static cl_event ring[RING_MAX];
    int ntail = 0;
    cl_event last = NULL;
    CHECK(clFinish(q));
    for (int b = -warm; b < batches; b++) {
        held_queue h = {NULL, NULL};
        if (held)
            h = hold(q);
        double c0 = thread_cpu_ns(), t0 = now_ns();
        for (int i = 0; i < n; i++) {
            cl_event ev;
            CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, &ev));
            if (between)
                between();
            if (sync == SYNC_FINISH)
                CHECK(clFinish(q));
            else if (sync == SYNC_WAIT)
                CHECK(clWaitForEvents(1, &ev));
            if (release == RELEASE_TAIL) {
                if (i == 0) /* the previous batch's last ones, ended since */
                    for (; ntail > 0; ntail--)
                        CHECK(clReleaseEvent(ring[ntail - 1]));
                if (i >= n - ring_n) {
                    ring[ntail++] = ev;
                    continue;
                }
            }
            if (release == RELEASE_RING) {
                if (ring[i % ring_n])
                    CHECK(clReleaseEvent(ring[i % ring_n]));
                ring[i % ring_n] = ev;
                continue;
            }
            if (release == RELEASE_RETAIN) {
                if (last)
                    CHECK(clReleaseEvent(last));
                CHECK(clRetainEvent(ev));
                last = ev;
            }
            CHECK(clReleaseEvent(ev));
        }
        double t1 = now_ns(), c1 = thread_cpu_ns();
        if (held)
            unhold(q, h);
        if (sync == NO_SYNC)
            CHECK(clFinish(q));
        if (b >= 0) {
            per_us[b] = (t1 - t0) / n / 1e3;
            cpu_us[b] = (c1 - c0) / n / 1e3;
        }
    }
    for (; ntail > 0; ntail--)
        CHECK(clReleaseEvent(ring[ntail - 1]));
    for (int i = 0; i < ring_n && release == RELEASE_RING; i++)
        if (ring[i]) {
            CHECK(clReleaseEvent(ring[i]));
            ring[i] = NULL;
        }
    if (last)
        CHECK(clReleaseEvent(last));
    return median(per_us, batches);
}

int main(int argc, char **argv)
{
    const char *sel = NULL, *kdir = NULL, *sync = NULL;
    int n = 10000, batches = 5, event = 0, release = RELEASE_NOW, held = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--list")) {
            list_devices();
            return 0;
        } else if (i + 1 < argc && !strcmp(a, "--device"))
            sel = argv[++i];
        else if (i + 1 < argc && !strcmp(a, "--n"))
            n = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(a, "--batches"))
            batches = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(a, "--kernels"))
            kdir = argv[++i];
        else if (!strcmp(a, "--event"))
            event = 1;
        else if (!strcmp(a, "--held"))
            held = 1;
        else if (i + 1 < argc && !strcmp(a, "--release") && !strcmp(argv[i + 1], "now"))
            release = RELEASE_NOW, i++;
        else if (i + 1 < argc && !strcmp(a, "--release") && !strcmp(argv[i + 1], "ring"))
            release = RELEASE_RING, event = 1, i++;
        else if (i + 1 < argc && !strcmp(a, "--ring") && atoi(argv[i + 1]) >= 1 && atoi(argv[i + 1]) <= RING_MAX)
            ring_n = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(a, "--release") && !strcmp(argv[i + 1], "tail"))
            release = RELEASE_TAIL, event = 1, i++;
        else if (i + 1 < argc && !strcmp(a, "--release") && !strcmp(argv[i + 1], "retain"))
            release = RELEASE_RETAIN, event = 1, i++;
        else if (i + 1 < argc && !strcmp(a, "--between") && between_named(argv[i + 1]))
            between = between_named(between_name = argv[++i]);
        else if (i + 1 < argc && !strcmp(a, "--sync") &&
                 (!strcmp(argv[i + 1], "finish") || !strcmp(argv[i + 1], "wait")))
            sync = argv[++i];
        else
            usage();
    }
    if (n < 1 || batches < 1 || (held && sync) || (between && !event)) /* a held round trip would never end */
        usage();

    cl_device_id dev = pick_device(sel);
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK(err);
    cl_program prog = build_program_as_clua(ctx, dev, kernel_dir(kdir), "copy.cl");
    cl_kernel k = clCreateKernel(prog, "empty", &err);
    CHECK(err);

    double *per = malloc((size_t)batches * sizeof *per), *cpu = malloc((size_t)batches * sizeof *cpu);
    if (!per || !cpu)
        die("out of memory");
    double med = sync ? launch_event_us(q, k, n, 1, batches, per, cpu,
                                        !strcmp(sync, "finish") ? SYNC_FINISH : SYNC_WAIT, RELEASE_NOW, 0)
                 : event ? launch_event_us(q, k, n, 1, batches, per, cpu, NO_SYNC, release, held)
                 : launch_enqueue_us(q, k, n, 1, batches, per, cpu, held);

    char name[256];
    fprintf(stderr, "# device: %s; %d batches of %d empty-kernel %s%s%s%s%s: min %.3f, max %.3f us\n",
            device_string(dev, CL_DEVICE_NAME, name, sizeof name), batches, n,
            sync ? "round trips, each waited for with " : "enqueues",
            sync ? (!strcmp(sync, "finish") ? "clFinish" : "clWaitForEvents") : event ? " with an event each" : "",
            held ? " on a held queue" : "", between ? ", then work: " : "", between_name, min_of(per, batches),
            max_of(per, batches));
    if (sync)
        printf("sync_%s_us %.3f\n", sync, med);
    else
        printf("%s %.3f\n", event ? "launch_event_us" : "launch_us", med);
    printf("cpu_us %.3f\n", median(cpu, batches)); /* the calling thread's CPU time, same batches */

    free(per);
    free(cpu);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return 0;
}
