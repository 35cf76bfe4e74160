/* A student's C = A A^T for recipes/aat.lua (assignment mode, docs/examples/aat.md).
 * A is M x TILE_DIM, C is M x M, row-major floats; launched on {M, M}
 * work-items in TILE_DIM x TILE_DIM groups, one work-item per element of C.
 * Both operands are rows of A, so the group stages its TILE_DIM rows (for y)
 * and its TILE_DIM columns' rows (for x) in local memory with coalesced reads;
 * the second tile is padded by a word per row, so that the reads down its
 * columns in the inner loop hit TILE_DIM different banks. A C element is the
 * dot product of two rows, with fma. */
__kernel __attribute__((reqd_work_group_size(TILE_DIM, TILE_DIM, 1)))
void aat(__global const float *a, __global float *c, int M)
{
    __local float rows[TILE_DIM][TILE_DIM];
    __local float cols[TILE_DIM][TILE_DIM + 1];
    int lx = get_local_id(0), ly = get_local_id(1);
    int x = get_global_id(0), y = get_global_id(1);
    int x0 = get_group_id(0) * TILE_DIM;
    rows[ly][lx] = a[(size_t)y * TILE_DIM + lx];         /* row y of A, element lx */
    cols[ly][lx] = a[(size_t)(x0 + ly) * TILE_DIM + lx]; /* row x0 + ly of A, element lx */
    barrier(CLK_LOCAL_MEM_FENCE);
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < TILE_DIM; i++)
        sum = fma(rows[ly][i], cols[lx][i], sum);
    c[(size_t)y * M + x] = sum;
}
