/* Parallel sum of a float vector: the classic ladder of reduction kernels.
 * OpenCL optimisation slides (seeds/002), "How we sum elements of a vector with
 * GPU?" (the two-stage kernel `reduce_slides` below), the GPU course's steps
 * (interleaved addressing, bank conflicts, sequential addressing, first add
 * during load, unrolled last warp, many elements per work-item, after
 * M. Harris, "Optimizing Parallel Reduction in CUDA"), and the Best Practices
 * Guide's A.2 recommendations (coalesced access, local memory, no divergence
 * within a warp).
 *
 * Every kernel reads n floats from `in` and writes one partial sum per
 * work-group to out[get_group_id(0)]; the host launches again on the partial
 * sums until one value is left. `sdata` holds get_local_size(0) floats; the
 * local size must be a power of two. Each kernel reads get_local_size(0) once,
 * into L: with get_local_size(0) in the loop's condition PoCL 3.1 miscompiled
 * reduce1 (no addition happened at all; the recipe's check caught it).
 *
 * WARP_SYNC (build option, 0 or 1): 1 lets reduce5 and reduce6 finish the last
 * 64 values in one warp without barriers, through volatile local memory (the
 * CUDA idiom). That is safe only where 32 consecutive work-items run in lock
 * step: NVIDIA, warp size 32, local size >= 64. Elsewhere (0) the same steps
 * keep a barrier between them.
 */
#ifndef WARP_SYNC
#define WARP_SYNC 0
#endif

/* 1: interleaved addressing, divergent branches. Work-item tid is active at
 * step s when tid % (2s) == 0: active and idle work-items alternate within
 * every warp, and % is slow. */
__kernel void reduce1(__global const float *in, __global float *out, uint n,
                      __local float *sdata)
{
    uint tid = get_local_id(0);
    uint L = get_local_size(0);
    size_t i = get_global_id(0);
    sdata[tid] = i < n ? in[i] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 1; s < L; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0) out[get_group_id(0)] = sdata[0];
}

/* 2: interleaved addressing with a strided index: the active work-items are
 * contiguous (no divergence) but index = 2 s tid hits the same local-memory
 * bank for many work-items of a warp (an s-way bank conflict). */
__kernel void reduce2(__global const float *in, __global float *out, uint n,
                      __local float *sdata)
{
    uint tid = get_local_id(0);
    uint L = get_local_size(0);
    size_t i = get_global_id(0);
    sdata[tid] = i < n ? in[i] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 1; s < L; s *= 2) {
        uint index = 2 * s * tid;
        if (index < L)
            sdata[index] += sdata[index + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0) out[get_group_id(0)] = sdata[0];
}

/* 3: sequential addressing: the first half adds the second half; consecutive
 * work-items touch consecutive words, conflict-free. Half the work-items are
 * idle from the first step. */
__kernel void reduce3(__global const float *in, __global float *out, uint n,
                      __local float *sdata)
{
    uint tid = get_local_id(0);
    uint L = get_local_size(0);
    size_t i = get_global_id(0);
    sdata[tid] = i < n ? in[i] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = L / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0) out[get_group_id(0)] = sdata[0];
}

/* 4: first add during load: a work-group of L work-items sums 2L elements, the
 * first step done while loading (half as many work-groups). */
__kernel void reduce4(__global const float *in, __global float *out, uint n,
                      __local float *sdata)
{
    uint tid = get_local_id(0);
    uint L = get_local_size(0);
    size_t i = get_group_id(0) * (size_t)(2 * L) + tid;
    float v = i < n ? in[i] : 0.0f;
    if (i + L < n) v += in[i + L];
    sdata[tid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = L / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0) out[get_group_id(0)] = sdata[0];
}

/* The last steps of the tree, s = 32, 16, ..., 1, on the first 64 values of
 * sdata (local size >= 64), leaving the sum in sdata[0]. Every work-item of
 * the group must call it (the barrier form has barriers). */
static inline void last_warp(__local float *sdata, uint tid)
{
#if WARP_SYNC
    /* One warp of 32 work-items in lock step: no barrier, but volatile so that
     * every step reads what the previous one stored. */
    if (tid < 32) {
        volatile __local float *v = sdata;
        v[tid] += v[tid + 32];
        v[tid] += v[tid + 16];
        v[tid] += v[tid + 8];
        v[tid] += v[tid + 4];
        v[tid] += v[tid + 2];
        v[tid] += v[tid + 1];
    }
#else
    for (uint s = 32; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif
}

/* 5: as 4, with the loop stopping at s = 64 and the last six steps unrolled
 * (in one warp without barriers where WARP_SYNC allows it). */
__kernel void reduce5(__global const float *in, __global float *out, uint n,
                      __local float *sdata)
{
    uint tid = get_local_id(0);
    uint L = get_local_size(0);
    size_t i = get_group_id(0) * (size_t)(2 * L) + tid;
    float v = i < n ? in[i] : 0.0f;
    if (i + L < n) v += in[i + L];
    sdata[tid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = L / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    last_warp(sdata, tid);
    if (tid == 0) out[get_group_id(0)] = sdata[0];
}

/* 6: many elements per work-item: a few work-groups per compute unit, each
 * work-item summing a grid-stride loop (two coalesced loads per iteration)
 * in a register before the tree of 5. */
__kernel void reduce6(__global const float *in, __global float *out, uint n,
                      __local float *sdata)
{
    uint tid = get_local_id(0);
    uint L = get_local_size(0);
    size_t i = get_group_id(0) * (size_t)(2 * L) + tid;
    size_t grid = (size_t)(2 * L) * get_num_groups(0);
    float sum = 0.0f;
    while (i + L < n) {
        sum += in[i];
        sum += in[i + L];
        i += grid;
    }
    if (i < n) sum += in[i];
    sdata[tid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = L / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    last_warp(sdata, tid);
    if (tid == 0) out[get_group_id(0)] = sdata[0];
}

/* The slides' kernel ("How we sum elements of a vector with GPU?"): 1. sum
 * independent parts with work-items while the array is big (coalesced: element
 * i * global_size + gid); 2. reduce each work-group in local memory (sequential
 * addressing); 3. one value per work-group in global memory. The slides then
 * let global work-item 0 add the groups' values after
 * barrier(CLK_GLOBAL_MEM_FENCE), but a barrier orders only one work-group:
 * that read races with the other groups. Here stage 3 is a second launch of
 * this kernel with one work-group over the partial sums. The loop runs while
 * the index is below n, so n need not divide by the global size. */
__kernel void reduce_slides(__global const float *in, __global float *out, uint n,
                            __local float *lmem)
{
    size_t gsize = get_global_size(0);
    size_t gid = get_global_id(0);
    uint tid = get_local_id(0);
    uint L = get_local_size(0);
    float sum = 0.0f;
    for (size_t i = 0; i * gsize + gid < n; i++)
        sum += in[i * gsize + gid];
    lmem[tid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = L / 2; s > 0; s >>= 1) {
        if (tid < s)
            lmem[tid] += lmem[tid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0) out[get_group_id(0)] = lmem[0];
}

/* 6 finished by one atomic per work-group instead of a second launch: the
 * group's sum is added to out[0] (zeroed by the host) through a
 * compare-exchange loop on its bits, OpenCL 1.2 having no float atomic add
 * (the slides: "atomics may be used for integer types"). The order of the
 * groups' additions is whatever the hardware makes it. */
__kernel void reduce_atomic(__global const float *in, __global float *out, uint n,
                            __local float *sdata)
{
    uint tid = get_local_id(0);
    uint L = get_local_size(0);
    size_t i = get_group_id(0) * (size_t)(2 * L) + tid;
    size_t grid = (size_t)(2 * L) * get_num_groups(0);
    float sum = 0.0f;
    while (i + L < n) {
        sum += in[i];
        sum += in[i + L];
        i += grid;
    }
    if (i < n) sum += in[i];
    sdata[tid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = L / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    last_warp(sdata, tid);
    if (tid == 0) {
        volatile __global int *w = (volatile __global int *)out;
        int seen, old = atomic_or(w, 0); /* atomic: a plain read races with the other groups' cmpxchg */
        do {
            seen = old;
            old = atomic_cmpxchg(w, seen, as_int(as_float(seen) + sdata[0]));
        } while (old != seen);
    }
}
