/* Matrix transpose through local memory: the OpenCL optimisation slides
 * (seed 002), "Using local memory to optimize global memory performance" and
 * "Local memory banks", with a plain copy of the same matrix as the ceiling.
 *
 * a is height x width (row-major floats), c is its width x height transpose.
 * Launch {width, height} work-items in square groups of {T, T} (width and
 * height multiples of T); the tiled kernels take the tile as a __local
 * argument of T*T floats (T*(T+1) for the padded one), as the slides do with
 * clSetKernelArg(kernel, 3, 256 * sizeof(float), NULL).
 *
 * Built with -DTILE=T, the kernels declare reqd_work_group_size(T, T, 1). On
 * an H100 (driver 580.159.04) NVIDIA's OpenCL reports CL_KERNEL_WORK_GROUP_SIZE
 * 256 for them with or without the attribute, and runs 32 x 32 groups all the
 * same: the recipe tries the launch rather than trusting the figure.
 *
 * The slides' listing sets tx, ty to get_local_size(0), get_local_size(1)
 * where get_local_id is meant, and writes c[x + y*height] after setting
 * x = tx + group(1) * size(1): the kernels below are that listing with the
 * local ids.
 */
#ifdef TILE
#define TILED __attribute__((reqd_work_group_size(TILE, TILE, 1)))
#else
#define TILED
#endif

/* The ceiling: the same matrix copied, both sides coalesced. */
__kernel TILED void copy2d(__global float *c,
                     __global const float *a,
                     int width, int height)
{
    int x = get_global_id(0), y = get_global_id(1);
    c[x + y * width] = a[x + y * width];
}

/* The slides' first transpose: the read is coalesced, the write strided by
 * height floats between neighbouring work-items ("Not coalesced"). */
__kernel TILED void transposeNaive(__global float *c,
                             __global const float *a,
                             int width, int height)
{
    int x = get_global_id(0), y = get_global_id(1);
    c[y + x * height] = a[x + y * width];
}

/* Through a local tile: read a row of the tile, write a row of the
 * transposed tile, both coalesced. The tile is read down its columns, a
 * stride of T words: a T-way bank conflict where T is a multiple of the
 * bank count ("Bad"). */
__kernel TILED void transposeLocal(__global float *c,
                             __global const float *a,
                             int width, int height,
                             __local float *tile)
{
    int x = get_global_id(0), y = get_global_id(1);
    int tx = get_local_id(0), ty = get_local_id(1);
    int t = get_local_size(0);
    tile[tx + ty * t] = a[x + y * width];
    barrier(CLK_LOCAL_MEM_FENCE);
    x = tx + get_group_id(1) * get_local_size(1);
    y = ty + get_group_id(0) * get_local_size(0);
    c[x + y * height] = tile[ty + tx * t];
}

/* The same with one word of padding per row of the tile: the column read has
 * a stride of T + 1 words, which visits every bank once ("Good"). */
__kernel TILED void transposeLocalPadded(__global float *c,
                                   __global const float *a,
                                   int width, int height,
                                   __local float *tile)
{
    int x = get_global_id(0), y = get_global_id(1);
    int tx = get_local_id(0), ty = get_local_id(1);
    int t = get_local_size(0) + 1;
    tile[tx + ty * t] = a[x + y * width];
    barrier(CLK_LOCAL_MEM_FENCE);
    x = tx + get_group_id(1) * get_local_size(1);
    y = ty + get_group_id(0) * get_local_size(0);
    c[x + y * height] = tile[ty + tx * t];
}
