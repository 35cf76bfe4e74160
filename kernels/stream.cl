/* BabelStream's five kernels (Deakin, McIntosh-Smith et al., University of
 * Bristol; after McCalpin's STREAM), as its OpenCL implementation has them:
 * copy, mul, add, triad and dot, so clua's figures can be held against
 * BabelStream's on the same card. Not from the seed documents: the issue's
 * "stream" recipe, a peer tool's benchmark.
 *
 * Build with -DTYPE=float or -DTYPE=double and -DSCALAR=0.4f / 0.4
 * (BabelStream's startScalar). Launch copy/mul/add/triad over the array
 * size (one work-item per element, the local size left to the driver, as
 * BabelStream does); dot over num_groups x wgsize work-items with a local
 * array of wgsize elements: each work-group writes one partial sum, the host
 * adds them.
 */
#ifdef USE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

__kernel void copy(__global const TYPE *restrict a, __global TYPE *restrict c)
{
    const size_t i = get_global_id(0);
    c[i] = a[i];
}

__kernel void mul(__global TYPE *restrict b, __global const TYPE *restrict c)
{
    const size_t i = get_global_id(0);
    b[i] = (TYPE)SCALAR * c[i];
}

__kernel void add(__global const TYPE *restrict a, __global const TYPE *restrict b,
                  __global TYPE *restrict c)
{
    const size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}

__kernel void triad(__global TYPE *restrict a, __global const TYPE *restrict b,
                    __global const TYPE *restrict c)
{
    const size_t i = get_global_id(0);
    a[i] = b[i] + (TYPE)SCALAR * c[i];
}

/* Grid-stride partial sums of a[i] * b[i], then a tree reduction in local
 * memory (the local size must be a power of two); sum[group] = the group's. */
__kernel void stream_dot(__global const TYPE *restrict a, __global const TYPE *restrict b,
                         __global TYPE *restrict sum, __local TYPE *restrict wg_sum,
                         long array_size)
{
    size_t i = get_global_id(0);
    const size_t local_i = get_local_id(0);
    wg_sum[local_i] = 0;
    for (; i < (size_t)array_size; i += get_global_size(0))
        wg_sum[local_i] += a[i] * b[i];

    for (int offset = get_local_size(0) / 2; offset > 0; offset /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (local_i < offset)
            wg_sum[local_i] += wg_sum[local_i + offset];
    }

    if (local_i == 0)
        sum[get_group_id(0)] = wg_sum[0];
}
