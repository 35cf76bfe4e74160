/* Occupancy: NVIDIA OpenCL Best Practices Guide (2010), chapter 4, "NDRange
 * Optimizations": 4.1 Occupancy, 4.2 Calculating Occupancy, 4.3 Hiding Register
 * Dependencies, 4.4 Thread and Block Heuristics, 4.5 Effects of Shared Memory
 * ("by simply increasing this amount [of dynamically allocated __local memory],
 * it is possible to effectively reduce the occupancy of the kernel and measure
 * its effect on performance").
 *
 * Four kernels, swept over work-group sizes and over local memory reserved
 * per group:
 *   copy   memory-bound: out[i] = in[i], one float per work-item; with one
 *          float per work-item an H100 launches work-groups of under 256
 *          work-items more slowly than it moves their data (about 1.65 G
 *          groups/s measured), so this kernel shows the group launch rate
 *          (the guide's 4.4 heuristics) rather than occupancy;
 *   copy4  memory-bound: one float4 (16 bytes) per work-item, four times
 *          fewer groups for the same bytes, so occupancy, not the launch
 *          rate, decides how many bytes are in flight;
 *   chase  latency-bound loads: each work-item follows `steps` dependent loads
 *          through next[] (j = next[j]), starting at its own index; next[j] =
 *          (j + stride) mod m, so neighbouring work-items load neighbouring words
 *          (coalesced) but every step waits for the one before;
 *   chain  latency-bound arithmetic: `iterations` dependent integer multiply-adds
 *          (the LCG x = x * 1664525 + 1013904223 mod 2^32), one chain per
 *          work-item, so a warp can issue its next instruction only when the
 *          previous result is ready (4.3: register dependencies).
 *
 * Built with -DWITH_LOCAL=1 each kernel takes two more arguments, a __local
 * buffer whose size the host sets (cl.local) and its size in words; the kernel
 * touches it (work-items below `words` store their value there), so the local
 * memory is really reserved per group and lowers how many groups fit on a
 * compute unit. -DWITH_LOCAL=0 (the "0 bytes" row) has no such argument, since
 * OpenCL does not allow a __local argument of size 0.
 */
#ifndef WITH_LOCAL
#define WITH_LOCAL 0
#endif

#if WITH_LOCAL
#define SCRATCH_ARGS , __local uint *scratch, uint words
#define TOUCH(v)                                        \
    do {                                                \
        uint l_ = (uint)get_local_id(0);                \
        if (l_ < words) scratch[l_] = (uint)(v);        \
    } while (0)
#else
#define SCRATCH_ARGS
#define TOUCH(v) do { } while (0)
#endif

__kernel void copy(__global const float *in, __global float *out SCRATCH_ARGS)
{
    size_t i = get_global_id(0);
    float v = in[i];
    TOUCH(as_uint(v));
    out[i] = v;
}

__kernel void copy4(__global const float4 *in, __global float4 *out SCRATCH_ARGS)
{
    size_t i = get_global_id(0);
    float4 v = in[i];
    TOUCH(as_uint(v.x));
    out[i] = v;
}

__kernel void chase(__global const uint *next, __global uint *out, int steps SCRATCH_ARGS)
{
    size_t i = get_global_id(0);
    uint j = (uint)i;
    for (int k = 0; k < steps; k++)
        j = next[j];
    TOUCH(j);
    out[i] = j;
}

__kernel void chain(__global const uint *in, __global uint *out, int iterations SCRATCH_ARGS)
{
    size_t i = get_global_id(0);
    uint x = in[i];
    for (int k = 0; k < iterations; k++)
        x = x * 1664525u + 1013904223u;
    TOUCH(x);
    out[i] = x;
}
