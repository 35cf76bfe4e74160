/* A student's chase for recipes/banks.lua --kernel (docs/examples/banks.md):
 * the same four chains through the table as chase (kernels/banks.cl), held
 * in one uint4 (chain c in component c), and the table copied into local
 * memory four words at a time (vload4/vstore4: W is a multiple of 4). The
 * reads themselves keep the pattern: each read's address is the previous
 * read's word, so nothing can be skipped. */
__kernel void chase(__global const uint *table,
                    __global const uint *start,
                    __global uint *out,
                    uint mask,
                    int iterations,
                    __local uint *buf)
{
    uint lid = get_local_id(0);
    uint n = get_local_size(0);
    uint W = mask + 1;
    for (uint j = lid; j < W / 4; j += n)
        vstore4(vload4(j, table), j, buf);
    barrier(CLK_LOCAL_MEM_FENCE);

    uint q = W / 4;
    uint4 i = ((uint4)(0, q, 2 * q, 3 * q) + start[lid]) & mask;
    uint4 acc = (uint4)(0);
    for (int k = 0; k < iterations; k++) {
        uint4 v = (uint4)(buf[i.s0], buf[i.s1], buf[i.s2], buf[i.s3]);
        acc += v >> 16;
        i = v & mask;
    }
    uint a = acc.s0 + acc.s1 + acc.s2 + acc.s3;
    out[get_global_id(0)] = a * 65599u + i.s0 + 3u * i.s1 + 5u * i.s2 + 7u * i.s3;
}
