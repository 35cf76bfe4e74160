/* Matrix multiply C = AB: NVIDIA OpenCL Best Practices Guide (2010), section
 * 3.2.2.2 "Shared Memory in Matrix Multiplication (C = AB)", Listings 3.7-3.9
 * and Table 3.2; and the OpenCL optimisation slides (seed 002), "Multiplication
 * of Matrices": the naive and the local-memory tiled N x N multiply.
 *
 * TILE_DIM is a build define (the guide's 16 for Table 3.2; the device's warp
 * width for the modern version). All matrices are row-major floats.
 *
 * The guide's three kernels compute C (M x N) = A (M x TILE_DIM) B (TILE_DIM x N)
 * with M and N multiples of TILE_DIM; launch {N, M} work-items in groups of
 * {TILE_DIM, TILE_DIM}. Two changes from the printed listings:
 *  - coalescedMultiply has a barrier after writing aTile. The guide leaves it
 *    out because on its hardware only the half warp that wrote a row of aTile
 *    reads it; OpenCL promises nothing of the kind (on a CPU the work-items of
 *    a group run one after another, and since Volta the threads of a warp are
 *    scheduled independently), so without it the kernel reads stale data.
 *  - Listing 3.9 writes aTile[y][threadIdx.x], a CUDA leftover: x here.
 * The local tiles are declared in the kernels rather than passed as arguments.
 */
#ifndef TILE_DIM
#define TILE_DIM 16
#endif

/* Every kernel here runs in TILE_DIM x TILE_DIM groups, and says so. On an
 * H100 (driver 580.159.04) NVIDIA's OpenCL reports CL_KERNEL_WORK_GROUP_SIZE
 * 256 for them with or without the attribute, and runs 32 x 32 groups all the
 * same: the recipe tries the launch rather than trusting the figure. */
#define TILED __attribute__((reqd_work_group_size(TILE_DIM, TILE_DIM, 1)))

/* Listing 3.7: every work-item reads a row of A and a column of B from global memory. */
__kernel TILED void simpleMultiply(__global const float *a,
                             __global const float *b,
                             __global float *c,
                             int N)
{
    int row = get_global_id(1);
    int col = get_global_id(0);
    float sum = 0.0f;
    for (int i = 0; i < TILE_DIM; i++)
        sum += a[row * TILE_DIM + i] * b[i * N + col];
    c[row * N + col] = sum;
}

/* Listing 3.8: the tile of A read once, coalesced, into local memory. */
__kernel TILED void coalescedMultiply(__global const float *a,
                                __global const float *b,
                                __global float *c,
                                int N)
{
    __local float aTile[TILE_DIM][TILE_DIM];
    int row = get_global_id(1);
    int col = get_global_id(0);
    float sum = 0.0f;
    int x = get_local_id(0);
    int y = get_local_id(1);
    aTile[y][x] = a[row * TILE_DIM + x];
    barrier(CLK_LOCAL_MEM_FENCE); /* not in the guide: see above */
    for (int i = 0; i < TILE_DIM; i++)
        sum += aTile[y][i] * b[i * N + col];
    c[row * N + col] = sum;
}

/* Listing 3.9: the tiles of A and B both read once into local memory. */
__kernel TILED void sharedABMultiply(__global const float *a,
                               __global const float *b,
                               __global float *c,
                               int N)
{
    __local float aTile[TILE_DIM][TILE_DIM];
    __local float bTile[TILE_DIM][TILE_DIM];
    int row = get_global_id(1);
    int col = get_global_id(0);
    float sum = 0.0f;
    int x = get_local_id(0);
    int y = get_local_id(1);
    aTile[y][x] = a[row * TILE_DIM + x];
    bTile[y][x] = b[y * N + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = 0; i < TILE_DIM; i++)
        sum += aTile[y][i] * bTile[i][x];
    c[row * N + col] = sum;
}

/* The slides' first multiply: C (N x N) = A B, every operand from global memory.
 * Launch {N, N} (in TILE_DIM x TILE_DIM groups, like the tiled one). */
__kernel TILED void multiplyNaive(__global const float *a,
                            __global const float *b,
                            __global float *c,
                            int N)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    float sum = 0.0f;
    for (int k = 0; k < N; k++)
        sum += a[y * N + k] * b[k * N + x];
    c[y * N + x] = sum;
}

/* The slides' tiled multiply: each work-group walks along a row of tiles of A
 * and a column of tiles of B, staging each pair in local memory, so a block of
 * C needs 2 * TILE_DIM * N global reads instead of 2 * TILE_DIM^2 * N.
 * Launch {N, N} in groups of {TILE_DIM, TILE_DIM}; N a multiple of TILE_DIM. */
__kernel TILED void multiplyTiled(__global const float *a,
                            __global const float *b,
                            __global float *c,
                            int N)
{
    __local float la[TILE_DIM][TILE_DIM];
    __local float lb[TILE_DIM][TILE_DIM];
    int tx = get_local_id(0), ty = get_local_id(1);
    int x = get_global_id(0), y = get_global_id(1);
    float sum = 0.0f;
    for (int k = 0; k < N; k += TILE_DIM) {
        la[ty][tx] = a[y * N + (k + tx)];
        lb[ty][tx] = b[(k + ty) * N + x];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int l = 0; l < TILE_DIM; ++l)
            sum += la[ty][l] * lb[l][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[y * N + x] = sum;
}
