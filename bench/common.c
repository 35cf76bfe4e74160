#define _XOPEN_SOURCE 700
#include "common.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *cl_error_name(cl_int err)
{
    switch (err) {
#define E(x) case x: return #x;
    E(CL_SUCCESS) E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE)
    E(CL_COMPILER_NOT_AVAILABLE) E(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY)
    E(CL_PROFILING_INFO_NOT_AVAILABLE) E(CL_MEM_COPY_OVERLAP)
    E(CL_IMAGE_FORMAT_MISMATCH) E(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    E(CL_BUILD_PROGRAM_FAILURE) E(CL_MAP_FAILURE)
    E(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    E(CL_COMPILE_PROGRAM_FAILURE) E(CL_LINKER_NOT_AVAILABLE)
    E(CL_LINK_PROGRAM_FAILURE) E(CL_DEVICE_PARTITION_FAILED)
    E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    E(CL_INVALID_VALUE) E(CL_INVALID_DEVICE_TYPE) E(CL_INVALID_PLATFORM)
    E(CL_INVALID_DEVICE) E(CL_INVALID_CONTEXT) E(CL_INVALID_QUEUE_PROPERTIES)
    E(CL_INVALID_COMMAND_QUEUE) E(CL_INVALID_HOST_PTR) E(CL_INVALID_MEM_OBJECT)
    E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) E(CL_INVALID_IMAGE_SIZE)
    E(CL_INVALID_SAMPLER) E(CL_INVALID_BINARY) E(CL_INVALID_BUILD_OPTIONS)
    E(CL_INVALID_PROGRAM) E(CL_INVALID_PROGRAM_EXECUTABLE)
    E(CL_INVALID_KERNEL_NAME) E(CL_INVALID_KERNEL_DEFINITION)
    E(CL_INVALID_KERNEL) E(CL_INVALID_ARG_INDEX) E(CL_INVALID_ARG_VALUE)
    E(CL_INVALID_ARG_SIZE) E(CL_INVALID_KERNEL_ARGS)
    E(CL_INVALID_WORK_DIMENSION) E(CL_INVALID_WORK_GROUP_SIZE)
    E(CL_INVALID_WORK_ITEM_SIZE) E(CL_INVALID_GLOBAL_OFFSET)
    E(CL_INVALID_EVENT_WAIT_LIST) E(CL_INVALID_EVENT) E(CL_INVALID_OPERATION)
    E(CL_INVALID_GL_OBJECT) E(CL_INVALID_BUFFER_SIZE) E(CL_INVALID_MIP_LEVEL)
    E(CL_INVALID_GLOBAL_WORK_SIZE) E(CL_INVALID_PROPERTY)
    E(CL_INVALID_IMAGE_DESCRIPTOR) E(CL_INVALID_COMPILER_OPTIONS)
    E(CL_INVALID_LINKER_OPTIONS) E(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef E
    default: return "unknown OpenCL error";
    }
}

void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

void check_cl(cl_int err, const char *what, const char *file, int line)
{
    if (err != CL_SUCCESS)
        die("%s:%d: %s failed: %s (%d)", file, line, what, cl_error_name(err), (int)err);
}

const char *device_string(cl_device_id dev, cl_device_info what, char *buf, size_t n)
{
    buf[0] = '\0';
    if (clGetDeviceInfo(dev, what, n, buf, NULL) != CL_SUCCESS)
        snprintf(buf, n, "?");
    buf[n - 1] = '\0';
    return buf;
}

static int contains_nocase(const char *hay, const char *needle)
{
    size_t m = strlen(needle);
    for (const char *p = hay; *p; p++) {
        size_t i = 0;
        while (i < m && p[i] &&
               tolower((unsigned char)p[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == m)
            return 1;
    }
    return m == 0;
}

#define MAXP 16
#define MAXD 64

static cl_uint get_platforms(cl_platform_id *p)
{
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(MAXP, p, &np);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || np == 0)
        die("no OpenCL platform found (is an ICD installed?)");
    CHECK(err);
    return np < MAXP ? np : MAXP;
}

static cl_uint get_devices(cl_platform_id p, cl_device_id *d)
{
    cl_uint nd = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, MAXD, d, &nd) != CL_SUCCESS)
        return 0;
    return nd < MAXD ? nd : MAXD;
}

void list_devices(void)
{
    cl_platform_id p[MAXP];
    cl_uint np = get_platforms(p);
    for (cl_uint i = 0; i < np; i++) {
        char pname[256], dname[256];
        clGetPlatformInfo(p[i], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
        pname[sizeof pname - 1] = '\0';
        fprintf(stderr, "platform %u: %s\n", i, pname);
        cl_device_id d[MAXD];
        cl_uint nd = get_devices(p[i], d);
        for (cl_uint j = 0; j < nd; j++)
            fprintf(stderr, "  %u:%u  %s\n", i, j,
                    device_string(d[j], CL_DEVICE_NAME, dname, sizeof dname));
    }
}

cl_device_id pick_device(const char *sel)
{
    cl_platform_id p[MAXP];
    cl_uint np = get_platforms(p);
    cl_device_id first = NULL;
    unsigned pi, di;
    char tail;
    int by_index = sel && sscanf(sel, "%u:%u%c", &pi, &di, &tail) == 2;
    for (cl_uint i = 0; i < np; i++) {
        char pname[256], pvendor[256], dname[256];
        clGetPlatformInfo(p[i], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
        pname[sizeof pname - 1] = '\0';
        clGetPlatformInfo(p[i], CL_PLATFORM_VENDOR, sizeof pvendor, pvendor, NULL);
        pvendor[sizeof pvendor - 1] = '\0';
        cl_device_id d[MAXD];
        cl_uint nd = get_devices(p[i], d);
        for (cl_uint j = 0; j < nd; j++) {
            if (by_index) {
                if (i == pi && j == di)
                    return d[j];
                continue;
            }
            if (sel) {
                device_string(d[j], CL_DEVICE_NAME, dname, sizeof dname);
                if (contains_nocase(dname, sel) || contains_nocase(pname, sel) ||
                    contains_nocase(pvendor, sel))
                    return d[j];
                continue;
            }
            cl_device_type type = 0;
            clGetDeviceInfo(d[j], CL_DEVICE_TYPE, sizeof type, &type, NULL);
            if (type & CL_DEVICE_TYPE_GPU)
                return d[j];
            if (!first)
                first = d[j];
        }
    }
    if (first)
        return first;
    list_devices();
    if (sel)
        die("no OpenCL device matches '%s' (devices listed above)", sel);
    die("no OpenCL device found");
    return NULL;
}

const char *kernel_dir(const char *dir)
{
    static char buf[PATH_MAX + 32];
    char probe[PATH_MAX + 64];
    if (dir)
        return dir;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(buf, sizeof buf, "%s/../../kernels", exe);
            snprintf(probe, sizeof probe, "%s/copy.cl", buf);
            if (access(probe, R_OK) == 0)
                return buf;
        }
    }
    return "kernels";
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("cannot open kernel file %s (use --kernels DIR)", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (n < 0)
        die("cannot read %s", path);
    char *s = malloc((size_t)n + 1);
    if (!s || fread(s, 1, (size_t)n, f) != (size_t)n)
        die("cannot read %s", path);
    s[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return s;
}

/* Builds prog with options; on failure, if quiet, returns the error, else
 * prints the log and dies. */
static cl_int try_build(cl_program prog, cl_device_id dev, const char *path, const char *options, int quiet)
{
    cl_int err = clBuildProgram(prog, 1, &dev, options ? options : "", NULL, NULL);
    if (err != CL_SUCCESS && !quiet) {
        size_t n = 0;
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
        char *log = malloc(n + 1);
        if (log) {
            log[0] = '\0';
            clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL);
            log[n] = '\0';
            fprintf(stderr, "%s: build log:\n%s\n", path, log);
        }
        die("%s: clBuildProgram failed: %s", path, cl_error_name(err));
    }
    return err;
}

/* The program of dir/file, made from its source. */
static cl_program program_of(cl_context ctx, const char *dir, const char *file, char *path, size_t pathsize)
{
    snprintf(path, pathsize, "%s/%s", dir, file);
    size_t len;
    char *src = read_file(path, &len);
    cl_int err;
    const char *srcs[1] = {src};
    cl_program prog = clCreateProgramWithSource(ctx, 1, srcs, &len, &err);
    CHECK(err);
    free(src);
    return prog;
}

cl_program build_program(cl_context ctx, cl_device_id dev, const char *dir,
                         const char *file, const char *options)
{
    char path[PATH_MAX + 64];
    cl_program prog = program_of(ctx, dir, file, path, sizeof path);
    try_build(prog, dev, path, options, 0);
    return prog;
}

cl_program build_program_as_clua(cl_context ctx, cl_device_id dev, const char *dir, const char *file)
{
    char path[PATH_MAX + 64], real[PATH_MAX], inc[PATH_MAX + 16] = "", opts[2 * PATH_MAX + 64];
    cl_program prog = program_of(ctx, dir, file, path, sizeof path);
    if (realpath(dir, real) && !strchr(real, ' '))
        snprintf(inc, sizeof inc, " -I %s", real);
    const char *argi = getenv("CLUA_KERNEL_ARG_INFO"), *extra = getenv("CLUA_BUILD_OPTIONS");
    int arginfo = !(argi && !strcmp(argi, "0"));
    for (;; arginfo = 0) {
        snprintf(opts, sizeof opts, "%s%s%s%s", arginfo ? "-cl-kernel-arg-info" : "", inc,
                 extra && *extra ? " " : "", extra && *extra ? extra : "");
        if (try_build(prog, dev, path, opts, arginfo) == CL_SUCCESS)
            return prog;
    }
}

double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

double thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double median(const double *v, int n)
{
    double *s = malloc((size_t)n * sizeof *s);
    if (!s)
        die("out of memory");
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    double m = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    free(s);
    return m;
}

double min_of(const double *v, int n)
{
    double m = v[0];
    for (int i = 1; i < n; i++)
        if (v[i] < m)
            m = v[i];
    return m;
}

double max_of(const double *v, int n)
{
    double m = v[0];
    for (int i = 1; i < n; i++)
        if (v[i] > m)
            m = v[i];
    return m;
}

cl_ulong event_time(cl_event ev, cl_profiling_info what)
{
    cl_ulong t = 0;
    CHECK(clGetEventProfilingInfo(ev, what, sizeof t, &t, NULL));
    return t;
}

double event_ns(cl_event ev)
{
    return (double)(event_time(ev, CL_PROFILING_COMMAND_END) -
                    event_time(ev, CL_PROFILING_COMMAND_START));
}

held_queue hold(cl_command_queue q)
{
    cl_context ctx;
    cl_int err;
    held_queue h;
    CHECK(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, NULL));
    h.user = clCreateUserEvent(ctx, &err);
    CHECK(err);
    CHECK(clEnqueueMarkerWithWaitList(q, 1, &h.user, &h.marker));
    return h;
}

void unhold(cl_command_queue q, held_queue h)
{
    CHECK(clSetUserEventStatus(h.user, CL_COMPLETE));
    CHECK(clReleaseEvent(h.user));
    CHECK(clFinish(q));
    CHECK(clReleaseEvent(h.marker));
}

double launch_enqueue_us(cl_command_queue q, cl_kernel k, int n, int warm,
                         int batches, double *per_us, double *cpu_us, int held)
{
    const size_t global = 1;
    CHECK(clFinish(q));
    for (int b = -warm; b < batches; b++) {
        held_queue h = {NULL, NULL};
        if (held)
            h = hold(q);
        double c0 = thread_cpu_ns(), t0 = now_ns();
        for (int i = 0; i < n; i++)
            CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL));
        double t1 = now_ns(), c1 = thread_cpu_ns();
        if (held)
            unhold(q, h);
        CHECK(clFinish(q));
        if (b >= 0) {
            per_us[b] = (t1 - t0) / n / 1e3;
            if (cpu_us)
                cpu_us[b] = (c1 - c0) / n / 1e3;
        }
    }
    return median(per_us, batches);
}
