/* A student's work-group scan for recipes/scan.lua --kernel (docs/examples/scan.md):
 * not Blelloch's tree but two steps. Work-item t owns the two consecutive
 * elements 2t and 2t + 1 of the group's block and adds them; the group then
 * scans those B pair sums with Hillis and Steele's steps (log2 B of them, each
 * adding the value d places back), double-buffered in temp (2B words of the
 * 2B + ... it gets); the exclusive scan of the pairs gives each work-item its
 * two outputs. B log2 B additions instead of 2B, but half the barriers. */
__kernel void scan(__global const uint *in, __global uint *out, __global uint *sums, uint n,
                   __local uint *temp)
{
    uint t = get_local_id(0);
    uint B = get_local_size(0);
    size_t i = get_group_id(0) * (size_t)(2 * B) + 2 * t;
    uint a = i < n ? in[i] : 0;
    uint b = i + 1 < n ? in[i + 1] : 0;

    __local uint *x = temp, *y = temp + B; /* ping-pong */
    x[t] = a + b;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = 1; d < B; d <<= 1) {
        y[t] = t >= d ? x[t] + x[t - d] : x[t];
        barrier(CLK_LOCAL_MEM_FENCE);
        __local uint *s = x;
        x = y;
        y = s;
    }
    /* x: the inclusive scan of the pair sums */
    uint before = t > 0 ? x[t - 1] : 0;
    if (t == B - 1) sums[get_group_id(0)] = x[t];
    if (i < n) out[i] = before;
    if (i + 1 < n) out[i + 1] = before + a;
}
