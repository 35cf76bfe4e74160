/* Shared helpers of the plain C OpenCL benchmarks (baseline.c, launch.c):
 * device choice, kernel files, error names, clocks, statistics.
 * OpenCL 1.2 API only (plus clCreateCommandQueue), so the same programs run
 * on PoCL and on NVIDIA's driver. */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <stddef.h>

/* The name of an OpenCL error code ("CL_INVALID_VALUE"). */
const char *cl_error_name(cl_int err);

/* Prints "error: ..." to stderr and exits with status 2. */
void die(const char *fmt, ...);

/* Dies naming the call, the error and the source line when err != CL_SUCCESS. */
#define CHECK(call) check_cl((call), #call, __FILE__, __LINE__)
void check_cl(cl_int err, const char *what, const char *file, int line);

/* Picks a device: sel is a case-insensitive substring of the platform or
 * device name or of the platform's vendor, or "P:D" indices; NULL picks the first GPU, else the first
 * device. Unknown names die listing the devices there are. */
cl_device_id pick_device(const char *sel);
void list_devices(void);

/* clGetDeviceInfo/clGetPlatformInfo strings into buf. */
const char *device_string(cl_device_id dev, cl_device_info what, char *buf, size_t n);

/* The kernels/ folder: dir if given, else <binary>/../../kernels, else ./kernels. */
const char *kernel_dir(const char *dir);

/* Builds kernels/<file> for dev; on failure dies with the build log. */
cl_program build_program(cl_context ctx, cl_device_id dev, const char *dir,
                         const char *file, const char *options);
/* dir/file built as clua's program:build builds it: -cl-kernel-arg-info (left
 * out where CLUA_KERNEL_ARG_INFO=0, and where the build fails with it, as
 * NVIDIA's does for a kernel without arguments) and -I with dir's canonical
 * path (clua's kernels/ folder), then CLUA_BUILD_OPTIONS: the same options,
 * so that on a driver that caches compiled programs both sides run the very
 * same binary of the kernel. */
cl_program build_program_as_clua(cl_context ctx, cl_device_id dev, const char *dir, const char *file);

/* Monotonic host clock in ns. */
double now_ns(void);
/* The calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID), ns. */
double thread_cpu_ns(void);

/* Statistics over n values (median: mean of the two middle values for even n). */
double median(const double *v, int n);
double min_of(const double *v, int n);
double max_of(const double *v, int n);

/* Event profiling: END - START, and any pair of CL_PROFILING_COMMAND_*. */
double event_ns(cl_event ev);
cl_ulong event_time(cl_event ev, cl_profiling_info what);

/* A held queue: hold(q) enqueues a marker that waits for a new user event,
 * so nothing enqueued after it starts before unhold(q, h) completes that
 * event (and finishes the queue). The marker's event is asked for and
 * released there, as clua's q:marker returns one: the same calls. */
typedef struct {
    cl_event user, marker;
} held_queue;
held_queue hold(cl_command_queue q);
void unhold(cl_command_queue q, held_queue h);

/* Host-side enqueue cost of an empty kernel: `warm` + `batches` batches of
 * n clEnqueueNDRangeKernel(global 1, local NULL, no event) each; a batch is
 * timed by the host clock around the n calls only, then the queue finished.
 * held: each batch is enqueued on a held queue (hold), so the device runs
 * none of it while it is enqueued.
 * Fills per_us[batches] with µs per enqueue and returns their median. */
double launch_enqueue_us(cl_command_queue q, cl_kernel k, int n, int warm,
                         int batches, double *per_us, double *cpu_us, int held);

#endif
