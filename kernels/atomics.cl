/* Atomic throughput by contention (recipes/atomics.lua): every work-item adds
 * 1 to a counter K times, work-item i on counter i / div, so that div
 * work-items share each counter: div = the launch (one address), the
 * work-group, 32 work-items (a warp), or 1 (all distinct). Each counter must
 * end at div * K, exactly.
 *
 * global_T: the counters are in global memory (zeroed by the host before each
 * launch). local_T: each work-group's counters (local size / div of them) are
 * in local memory, zeroed by the group, then stored to c[group * (L / div) + j].
 *
 * T: int and uint through atomic_add, long through atom_add
 * (cl_khr_int64_base_atomics), float through a compare-exchange loop on its
 * bits (OpenCL 1.2 has no float atomic add). With C11 (build option
 * -cl-std=CL2.0 or CL3.0): int through atomic_fetch_add_explicit, relaxed,
 * device scope for global memory, work-group scope for local memory.
 */
#if defined(cl_khr_int64_base_atomics) && !defined(C11)
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#define HAVE_LONG 1
#endif

#define ADD_INT(p) atomic_add(p, 1)
#define ADD_LONG(p) atom_add(p, 1L)

/* float: read, add, and publish only if nobody changed the word meanwhile.
   The first read is atomic too: a plain one races with the other work-items'
   atomic_cmpxchg (OpenCL's memory model; Oclgrind reports it). */
#define CAS_FLOAT(SPACE)                                                       \
static inline void add_float_##SPACE(volatile SPACE float *p)                  \
{                                                                              \
    volatile SPACE int *w = (volatile SPACE int *)p;                           \
    int seen, old = atomic_or(w, 0);                                           \
    do {                                                                       \
        seen = old;                                                            \
        old = atomic_cmpxchg(w, seen, as_int(as_float(seen) + 1.0f));        \
    } while (old != seen);                                                     \
}

#define KERNELS(T, NAME, ADD_G, ADD_L)                                         \
__kernel void global_##NAME(__global T *c, uint div, uint k)                   \
{                                                                              \
    volatile __global T *p = c + get_global_id(0) / div;                       \
    for (uint i = 0; i < k; i++) ADD_G(p);                                     \
}                                                                              \
__kernel void local_##NAME(__global T *c, uint div, uint k, __local T *s)      \
{                                                                              \
    uint lid = get_local_id(0), m = get_local_size(0) / div;                   \
    if (lid < m) s[lid] = 0;                                                   \
    barrier(CLK_LOCAL_MEM_FENCE);                                              \
    volatile __local T *p = s + lid / div;                                     \
    for (uint i = 0; i < k; i++) ADD_L(p);                                     \
    barrier(CLK_LOCAL_MEM_FENCE);                                              \
    if (lid < m) c[get_group_id(0) * m + lid] = s[lid];                        \
}

#ifdef C11
/* OpenCL C 2.0/3.0 atomics; device scope is optional in 3.0 (a feature). */
#if __OPENCL_C_VERSION__ >= 300 && !defined(__opencl_c_atomic_scope_device)
#error "no device-scope atomics (__opencl_c_atomic_scope_device)"
#endif
#define C11_G(p) atomic_fetch_add_explicit((volatile __global atomic_int *)(p), 1, \
                                           memory_order_relaxed, memory_scope_device)
#define C11_L(p) atomic_fetch_add_explicit((volatile __local atomic_int *)(p), 1, \
                                           memory_order_relaxed, memory_scope_work_group)
KERNELS(int, c11_int, C11_G, C11_L)
#else
CAS_FLOAT(__global)
CAS_FLOAT(__local)
#define ADD_FLOAT_G(p) add_float___global(p)
#define ADD_FLOAT_L(p) add_float___local(p)
KERNELS(int, int, ADD_INT, ADD_INT)
KERNELS(uint, uint, ADD_INT, ADD_INT)
KERNELS(float, float, ADD_FLOAT_G, ADD_FLOAT_L)
#ifdef HAVE_LONG
KERNELS(long, long, ADD_LONG, ADD_LONG)
#endif
#endif
