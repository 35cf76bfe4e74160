/* C = A A^T: NVIDIA OpenCL Best Practices Guide (2010), section 3.2.2.3
 * "Shared Memory in Matrix Multiplication (C = AA^T)", Listings 3.10-3.11 and
 * Table 3.3. A is M x TILE_DIM (row-major floats), C is M x M; TILE_DIM is a
 * build define (the guide's 16; the device's warp width for the modern
 * version). Launch {M, M} work-items in groups of {TILE_DIM, TILE_DIM}, M a
 * multiple of TILE_DIM.
 *
 * Listing 3.11 as printed reads the transposed tile from
 *   a[(get_group_id(0) * get_num_groups(0) + y) * TILE_DIM + x]
 * which is the CUDA original's blockIdx.x * blockDim.x mistranslated: the rows
 * of A that column block get_group_id(0) needs start at
 * get_group_id(0) * get_local_size(0). The kernels below use the latter (the
 * printed form reads the wrong rows, and past the end of A).
 */
#ifndef TILE_DIM
#define TILE_DIM 16
#endif

/* The kernels run in TILE_DIM x TILE_DIM groups, and say so. On an H100
 * (driver 580.159.04) NVIDIA's OpenCL reports CL_KERNEL_WORK_GROUP_SIZE 256
 * for them with or without the attribute, and runs 32 x 32 groups all the
 * same: the recipe tries the launch rather than trusting the figure. */
#define TILED __attribute__((reqd_work_group_size(TILE_DIM, TILE_DIM, 1)))

/* Listing 3.10: a[col * TILE_DIM + i] is read with a stride of TILE_DIM floats
 * between neighbouring work-items (uncoalesced on the guide's hardware). */
__kernel TILED void simpleMultiply(__global const float *a,
                             __global float *c,
                             int M)
{
    int row = get_global_id(1);
    int col = get_global_id(0);
    float sum = 0.0f;
    for (int i = 0; i < TILE_DIM; i++)
        sum += a[row * TILE_DIM + i] * a[col * TILE_DIM + i];
    c[row * M + col] = sum;
}

/* Listing 3.11: both operands read coalesced; the second one is written into
 * the columns of a local tile (transposedTile[x][y]), so that the inner loop
 * reads it along rows. PAD is 0 for the listing, 1 for the guide's fix
 * (transposedTile[TILE_DIM][TILE_DIM + 1]): with 16 (or 32) banks of 32-bit
 * words, a column of a TILE_DIM-wide tile sits in one bank, and the column
 * write is a TILE_DIM-way bank conflict; one word of padding per row makes
 * the stride TILE_DIM + 1, which visits every bank once. */
#define COALESCED_MULTIPLY(NAME, PAD)                                          \
__kernel TILED void NAME(__global const float *a,                              \
                         __global float *c,                                    \
                         int M)                                                \
{                                                                              \
    __local float aTile[TILE_DIM][TILE_DIM];                                   \
    __local float transposedTile[TILE_DIM][TILE_DIM + (PAD)];                  \
    int row = get_global_id(1);                                                \
    int col = get_global_id(0);                                                \
    float sum = 0.0f;                                                          \
    int x = get_local_id(0);                                                   \
    int y = get_local_id(1);                                                   \
    aTile[y][x] = a[row * TILE_DIM + x];                                       \
    transposedTile[x][y] =                                                     \
        a[(get_group_id(0) * get_local_size(0) + y) * TILE_DIM + x];           \
    barrier(CLK_LOCAL_MEM_FENCE);                                              \
    for (int i = 0; i < TILE_DIM; i++)                                         \
        sum += aTile[y][i] * transposedTile[i][x];                             \
    c[row * M + col] = sum;                                                    \
}

COALESCED_MULTIPLY(coalescedMultiply, 0)
COALESCED_MULTIPLY(coalescedMultiplyPadded, 1)
