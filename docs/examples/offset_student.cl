/* A student's offset copy for recipes/offset.lua --kernel (docs/examples/offset.md):
 * the same copy as offsetCopy (Listing 3.5), odata[i] = idata[i] for
 * offset <= i < offset + n, but with the work aligned: work-item g copies
 * element base + g, base = offset rounded down to 32 floats (128 bytes), so
 * that every group starts on a 128-byte boundary whatever the offset. The
 * first (offset - base) work-items would copy elements below `offset`: they
 * take the ones the shift leaves at the end instead, n further on. */
__kernel void offsetCopy(__global float *odata,
                         __global const float *idata,
                         int offset)
{
    int n = get_global_size(0);
    int base = offset & ~31;
    int i = base + get_global_id(0);
    if (i < offset)
        i += n; /* base + n .. offset + n - 1 */
    odata[i] = idata[i];
}
