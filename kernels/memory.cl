/* The memory hierarchy, as microbenchmarks (clpeak, the pointer-chase
 * papers on GPU caches) measure it: recipes/memory.lua.
 *
 *   chase_build, chase   latency: one work-item follows a random cycle of
 *                        uint indices, each load depending on the one before
 *   bw_init, bw_read     bandwidth by working set: many passes of float4
 *                        reads over a buffer of the working set's size
 *   local_v1 .. local_v8 local memory bandwidth by vector width, clpeak's
 *                        method: each work-item writes its value to local
 *                        memory, then reads its neighbour's, REPS times
 *
 * Build with -DLINE=32 (uints per cache line: 128 bytes) and -DREPS=64.
 */

/* Where slot i's index lives: slot i covers `slot` uints; the index sits at
 * the start of one of its `lines` lines, picked by a hash of i, so that large
 * slots do not all start on one cache set. The host computes the same. */
static uint head(uint i, uint slot, uint lines)
{
    return i * slot + ((i * 2654435761u) >> 8) % lines * LINE;
}

/* p[head(i)] = head(next[i]) for every slot i < n: the host's permutation
 * `next` (one cycle through every slot) laid out in the working set. */
__kernel void chase_build(__global uint *p, __global const uint *next, uint n, uint slot, uint lines)
{
    const uint i = get_global_id(0);
    if (i < n)
        p[head(i, slot, lines)] = head(next[i], slot, lines);
}

/* One work-item: `steps` dependent loads j = p[j], starting where the last
 * launch stopped (state[0]); the index reached and the count of steps taken
 * so far (state[1]) go back to state, for the host to check. */
__kernel void chase(__global const uint *p, uint steps, __global uint *state)
{
    uint j = state[0];
    uint s = 0;
    for (; s < steps; s++)
        j = p[j];
    state[0] = j;
    state[1] += s;
}

/* a[k] = (k % 7, k % 5, k % 3, 1): small integers, so every sum is exact. */
__kernel void bw_init(__global float4 *a, uint n)
{
    const uint k = get_global_id(0);
    if (k < n)
        a[k] = (float4)((float)(k % 7), (float)(k % 5), (float)(k % 3), 1.0f);
}

/* Each work-item reads `reads` float4s of a working set of mask + 1 float4s
 * (a power of two): the whole grid reads a window of global-size
 * consecutive float4s, then moves on by global size + local size, wrapping
 * around the working set, so a small set is read again and again from the
 * cache and a large one streams. One sum per work-item is written. */
__kernel void bw_read(__global const float4 *restrict a, uint mask, uint reads, __global float *restrict out)
{
    const uint gid = get_global_id(0);
    const uint step = get_global_size(0) + get_local_size(0);
    float4 s = (float4)(0.0f);
    uint i = gid;
    for (uint r = 0; r < reads; r++) {
        s += a[i & mask];
        i += step;
    }
    out[gid] = s.x + s.y + s.z + s.w;
}

/* clpeak's local bandwidth test, rewritten: a work-item starts with
 * (gid % 65536) + c in lane c, then REPS times writes it to scratch[lid]
 * and, after a barrier, takes its right neighbour's (lid + 1, wrapping in the
 * group); after REPS steps it holds the start of work-item lid + REPS (mod
 * the group size) and writes the sum of its lanes. */
#define LOCAL_BW(NAME, T, START, SUM)                                         \
__kernel void NAME(__global float *out, __local T *scratch)                  \
{                                                                             \
    const uint lid = get_local_id(0);                                         \
    const uint next = (lid + 1) % get_local_size(0);                          \
    const float g = (float)(get_global_id(0) % 65536);                        \
    T v = START;                                                              \
    for (int r = 0; r < REPS; r++) {                                          \
        scratch[lid] = v;                                                     \
        barrier(CLK_LOCAL_MEM_FENCE);                                         \
        v = scratch[next];                                                    \
        barrier(CLK_LOCAL_MEM_FENCE);                                         \
    }                                                                         \
    out[get_global_id(0)] = SUM;                                              \
}

LOCAL_BW(local_v1, float, g, v)
LOCAL_BW(local_v2, float2, (float2)(g, g + 1.0f), v.s0 + v.s1)
LOCAL_BW(local_v4, float4, (float4)(g, g + 1.0f, g + 2.0f, g + 3.0f), v.s0 + v.s1 + v.s2 + v.s3)
LOCAL_BW(local_v8, float8, (float8)(g, g + 1.0f, g + 2.0f, g + 3.0f, g + 4.0f, g + 5.0f, g + 6.0f, g + 7.0f),
         v.s0 + v.s1 + v.s2 + v.s3 + v.s4 + v.s5 + v.s6 + v.s7)
