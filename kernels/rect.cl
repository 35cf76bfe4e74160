/* Row kernels on pitched 2-D arrays: OpenCL optimisation slides, "Padding 2D
 * arrays to avoid unaligned accesses" (clEnqueueWriteBufferRect into a
 * padded device array): "Pad GPU buffers to avoid unaligned access and skip
 * edge checking conditionals".
 *
 * A rows x width array of floats stored with a row pitch of `pitch` floats
 * (pitch >= width): element (x, y) is at y * pitch + x. Launch a 2-D range
 * {gx, rows}; rows of `pitch` floats start on aligned addresses only when
 * pitch * 4 is a multiple of the alignment (128 bytes: pitch % 32 == 0).
 */

/* The reference: the same floats as one contiguous 1-D copy (as copy.cl's
 * copy, here so that this file is all the recipe builds). */
__kernel void linearCopy(__global float *out,
                         __global const float *in)
{
    size_t i = get_global_id(0);
    out[i] = in[i];
}

/* With the edge check: launch gx >= width (rounded up to the work-group
 * size); work-items past the row's end do nothing, so the padding of `out`
 * is left as it was. */
__kernel void rowCopy(__global float *out,
                      __global const float *in,
                      int width,
                      int pitch)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    if (x < width)
        out[y * pitch + x] = in[y * pitch + x];
}

/* Without it: launch gx == pitch exactly (a padded pitch that is a multiple
 * of the work-group size); the padding is copied too, harmlessly. */
__kernel void rowCopyPadded(__global float *out,
                            __global const float *in,
                            int pitch)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    out[y * pitch + x] = in[y * pitch + x];
}
