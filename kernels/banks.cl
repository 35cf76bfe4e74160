/* Local-memory bank conflicts: NVIDIA OpenCL Best Practices Guide (2010),
 * section 3.2.2.1 "Shared Memory and Memory Banks"; the lecture slides (seed
 * 001), "Bank conflicts", "Access with no bank conflicts" and "Access with
 * bank conflicts" (stride 1, random, stride 2, stride 8).
 *
 * Each work-group copies a table of mask + 1 uints (a power of two, at least
 * 128) from global into local memory, then every work-item follows four chains
 * of `iterations` reads through it, each read's address taken from the word
 * the previous read of its chain returned:
 *     v = buf[idx]; acc += v >> 16; idx = v & mask;
 * The chain is a true dependency, so the compiler can neither drop, hoist,
 * reorder nor merge the reads, and the result (acc and the last index) proves
 * that every one of them happened: the host replays the same chain.
 *
 * The host writes entry j of the table as ((j + step) & mask) | payload << 16:
 * every read moves a work-item on by the same `step` words, so the work-items
 * of a warp keep the relative addresses of their first read, start[lid]
 * (start[] is set by the host for each pattern: lid * stride, a permutation of
 * the banks, one word for all...). A uniform shift changes no bank conflict,
 * so every read of a chain has the conflict of the first. The four chains
 * start a quarter of the table apart (a multiple of the bank count): one more
 * uniform shift.
 *
 * Launch any number of groups of get_local_size(0) = the length of start[];
 * out[] has one uint per work-item.
 */
__kernel void chase(__global const uint *table,
                    __global const uint *start,
                    __global uint *out,
                    uint mask,
                    int iterations,
                    __local uint *buf)
{
    uint lid = get_local_id(0);
    uint n = get_local_size(0);
    for (uint j = lid; j <= mask; j += n)
        buf[j] = table[j];
    barrier(CLK_LOCAL_MEM_FENCE);

    /* four independent chains, a quarter of the table apart, so that each
     * work-item has four reads in flight and the local memory, not the
     * latency of one chain, sets the pace */
    uint quarter = (mask + 1) / 4;
    uint i0 = start[lid] & mask;
    uint i1 = (i0 + quarter) & mask;
    uint i2 = (i0 + 2 * quarter) & mask;
    uint i3 = (i0 + 3 * quarter) & mask;
    uint acc = 0;
    for (int k = 0; k < iterations; k++) {
        uint v0 = buf[i0];
        uint v1 = buf[i1];
        uint v2 = buf[i2];
        uint v3 = buf[i3];
        acc += (v0 >> 16) + (v1 >> 16) + (v2 >> 16) + (v3 >> 16);
        i0 = v0 & mask;
        i1 = v1 & mask;
        i2 = v2 & mask;
        i3 = v3 & mask;
    }
    out[get_global_id(0)] = acc * 65599u + i0 + 3u * i1 + 5u * i2 + 7u * i3;
}
