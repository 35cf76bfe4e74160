/* The template's kernels (recipes/template.lua): copy this file to
 * kernels/NAME.cl with the recipe, and replace the kernels with yours.
 *
 * triad: c = a + scalar * b, one element per work-item (BabelStream's triad,
 * the STREAM benchmark's). The global size is rounded up to a multiple of the
 * work-group size, so the work-items past n do nothing.
 */
__kernel void triad(__global float *c, __global const float *a,
                    __global const float *b, float scalar, uint n)
{
    size_t i = get_global_id(0);
    if (i < n)
        c[i] = a[i] + scalar * b[i];
}

/* triad4: the same with a float4 per work-item (n / 4 work-items; the recipe
 * makes n a multiple of 4): fewer, wider loads and stores. */
__kernel void triad4(__global float4 *c, __global const float4 *a,
                     __global const float4 *b, float scalar, uint n4)
{
    size_t i = get_global_id(0);
    if (i < n4)
        c[i] = a[i] + scalar * b[i];
}
