/* The minimal template's kernel (recipes/minimal.lua): copy this file beside
 * your copy of the recipe, under the recipe's name (mywork/vscale.lua finds
 * mywork/vscale.cl), and replace the kernel with yours.
 *
 * scale: c = 2 a, one element per work-item. The global size is rounded up
 * to a multiple of the work-group size, so the work-items past n do nothing.
 */
__kernel void scale(__global float *c, __global const float *a, uint n)
{
    size_t i = get_global_id(0);
    if (i < n)
        c[i] = 2.0f * a[i];
}
