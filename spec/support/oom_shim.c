/* An OpenCL driver with room for few contexts, for spec/cl_memory_spec.lua:
   preloaded (LD_PRELOAD) into clua, it makes clCreateContext fail with
   CL_OUT_OF_HOST_MEMORY while CLUA_SHIM_CONTEXTS (default 4) contexts are
   alive, as NVIDIA's driver does once dropped contexts hold the GPU's memory.
   Alive: created or retained, and not released, through the OpenCL API. */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdlib.h>

static int alive;

CL_API_ENTRY cl_context CL_API_CALL clCreateContext(const cl_context_properties *props, cl_uint n,
                                                    const cl_device_id *devs,
                                                    void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *),
                                                    void *user, cl_int *err) {
  static cl_context (*real)(const cl_context_properties *, cl_uint, const cl_device_id *,
                            void(CL_CALLBACK *)(const char *, const void *, size_t, void *), void *, cl_int *);
  const char *limit = getenv("CLUA_SHIM_CONTEXTS");
  if (alive >= (limit ? atoi(limit) : 4)) {
    if (err) *err = CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  if (!real) *(void **)&real = dlsym(RTLD_NEXT, "clCreateContext");
  cl_context c = real(props, n, devs, notify, user, err);
  if (c) alive++;
  return c;
}

CL_API_ENTRY cl_int CL_API_CALL clRetainContext(cl_context c) {
  static cl_int (*real)(cl_context);
  if (!real) *(void **)&real = dlsym(RTLD_NEXT, "clRetainContext");
  cl_int err = real(c);
  if (err == CL_SUCCESS) alive++;
  return err;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseContext(cl_context c) {
  static cl_int (*real)(cl_context);
  if (!real) *(void **)&real = dlsym(RTLD_NEXT, "clReleaseContext");
  cl_int err = real(c);
  if (err == CL_SUCCESS) alive--;
  return err;
}
