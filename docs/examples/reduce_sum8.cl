/* A student's reduction for recipes/reduction.lua (assignment mode):
 *
 *   build/clua recipes/reduction.lua --kernel docs/examples/reduce_sum8.cl --kernel-per 8
 *
 * The contract (recipes/reduction.lua --help): the arguments of reduce1-6; a
 * work-group of L work-items gets P L consecutive elements (P = --kernel-per)
 * and writes their sum to out[get_group_id(0)].
 *
 * Each work-item first adds P = 8 elements in a register, L apart (so that a
 * group's loads stay coalesced), then the group adds the L values in local
 * memory by sequential addressing (kernel 3's tree). Eight times fewer groups
 * than kernel 3, four times fewer than kernel 4.
 */
#define P 8

__kernel void reduce(__global const float *in, __global float *out, uint n,
                     __local float *sdata)
{
    uint tid = get_local_id(0);
    uint L = get_local_size(0);
    size_t base = get_group_id(0) * (size_t)(P * L) + tid;
    float sum = 0.0f;
    for (uint j = 0; j < P; j++) {
        size_t i = base + (size_t)j * L;
        if (i < n) sum += in[i];
    }
    sdata[tid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = L / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0) out[get_group_id(0)] = sdata[0];
}
