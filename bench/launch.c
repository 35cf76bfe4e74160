/* launch: the host-side cost of one clEnqueueNDRangeKernel of an empty kernel.
 *
 *   build/bench/launch [--device SUBSTR] [--n N] [--batches B] [--kernels DIR]
 *
 * Enqueues N empty kernels (kernels/copy.cl `empty`, global 1, local NULL, no
 * event) on an in-order queue with profiling enabled, timing the N calls with
 * the host clock, then finishes the queue; one warm-up batch, then B batches
 * (default 5, N = 10000). Prints one line on stdout, the median in µs per
 * enqueue:
 *
 *   launch_us 1.234
 *
 * and the device and min/max on stderr, so a Lua benchmark can hold clua's
 * cost against it in the same run. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void)
{
    fputs("usage: launch [--device SUBSTR|P:D] [--n N] [--batches B] [--kernels DIR] [--list]\n",
          stderr);
    exit(2);
}

int main(int argc, char **argv)
{
    const char *sel = NULL, *kdir = NULL;
    int n = 10000, batches = 5;
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
        else
            usage();
    }
    if (n < 1 || batches < 1)
        usage();

    cl_device_id dev = pick_device(sel);
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK(err);
    cl_program prog = build_program(ctx, dev, kernel_dir(kdir), "copy.cl", "");
    cl_kernel k = clCreateKernel(prog, "empty", &err);
    CHECK(err);

    double *per = malloc((size_t)batches * sizeof *per);
    if (!per)
        die("out of memory");
    double med = launch_enqueue_us(q, k, n, 1, batches, per);

    char name[256];
    fprintf(stderr, "# device: %s; %d batches of %d empty-kernel enqueues: min %.3f, max %.3f us\n",
            device_string(dev, CL_DEVICE_NAME, name, sizeof name), batches, n,
            min_of(per, batches), max_of(per, batches));
    printf("launch_us %.3f\n", med);

    free(per);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return 0;
}
