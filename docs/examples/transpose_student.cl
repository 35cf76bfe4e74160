/* A student's transpose for recipes/transpose.lua (assignment mode):
 *
 *   build/clua recipes/transpose.lua --kernel docs/examples/transpose_student.cl
 *
 * The padded local tile of the slides, with the tile declared in the kernel
 * (TILE comes from the recipe's build, -DTILE=T) instead of passed as a
 * __local argument.
 */
__kernel void transpose(__global float *c, __global const float *a, int width, int height)
{
    __local float tile[TILE][TILE + 1];
    int tx = get_local_id(0), ty = get_local_id(1);
    tile[ty][tx] = a[get_global_id(0) + get_global_id(1) * width];
    barrier(CLK_LOCAL_MEM_FENCE);
    int x = tx + get_group_id(1) * TILE;
    int y = ty + get_group_id(0) * TILE;
    c[x + y * height] = tile[tx][ty];
}
