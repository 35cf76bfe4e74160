/* A student's C = AB for recipes/matmul.lua (assignment mode, docs/examples/matmul.md).
 * A is M x TILE_DIM, B is TILE_DIM x N, C is M x N, row-major floats; launched
 * on {N, M} work-items in TILE_DIM x TILE_DIM groups, one work-item per
 * element of C. The row of A comes from global memory (the work-items of a
 * row of the group read the same words: one cached load for all of them),
 * the column of B is read coalesced (neighbouring work-items, neighbouring
 * words), the loop is unrolled (TILE_DIM is a build define) and accumulates
 * with fma. No local memory and no barrier. */
__kernel __attribute__((reqd_work_group_size(TILE_DIM, TILE_DIM, 1)))
void matmul(__global const float *a, __global const float *b, __global float *c, int N)
{
    int x = get_global_id(0), y = get_global_id(1);
    __global const float *arow = a + (size_t)y * TILE_DIM;
    __global const float *bcol = b + x;
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < TILE_DIM; i++)
        sum = fma(arow[i], bcol[(size_t)i * N], sum);
    c[(size_t)y * N + x] = sum;
}
