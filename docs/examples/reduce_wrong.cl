/* A wrong student reduction, for the assignment-mode spec and docs/assignments.md:
 * with --kernel-per 2 each work-group must sum 2 L elements, but this kernel
 * (kernel 4 with its first add during load forgotten) sums only the first L
 * of them. The recipe names the first wrong partial sum and prints no figure.
 */
__kernel void reduce(__global const float *in, __global float *out, uint n,
                     __local float *sdata)
{
    uint tid = get_local_id(0);
    uint L = get_local_size(0);
    size_t i = get_group_id(0) * (size_t)(2 * L) + tid;
    sdata[tid] = i < n ? in[i] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = L / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0) out[get_group_id(0)] = sdata[0];
}
