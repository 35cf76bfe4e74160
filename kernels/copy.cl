/* Global-memory copy kernels: NVIDIA OpenCL Best Practices Guide (2010),
 * section 3.2.1.3 "Effects of Misaligned Accesses" (Listing 3.5, offsetCopy)
 * and section 3.2.1.4 "Strided Accesses" (Listing 3.6, strideCopy), plus a
 * plain copy and an empty kernel for the launch-cost measurement.
 *
 * Used by bench/baseline.c, bench/launch.c and the clua recipes alike, so the
 * C baseline and clua run the very same kernels. All float, 1-D.
 */

/* Listing 3.5, as in the guide: both the read and the write are shifted by
 * `offset` elements. Launch n work-items on buffers of at least n + offset
 * floats; it copies elements [offset, offset + n). */
__kernel void offsetCopy(__global float *odata,
                         __global float *idata,
                         int offset)
{
    int xid = get_global_id(0) + offset;
    odata[xid] = idata[xid];
}

/* Listing 3.6, as in the guide: work-item i copies element i * stride.
 * Launch n work-items on buffers of at least n * stride floats; only n floats
 * are read and n written (the "useful bytes" of the guide's Figure 3.9). */
__kernel void strideCopy(__global float *odata,
                         __global float *idata,
                         int stride)
{
    int xid = get_global_id(0) * stride;
    odata[xid] = idata[xid];
}

/* A plain coalesced copy: odata[i] = idata[i] for n work-items. */
__kernel void copy(__global float *odata,
                   __global const float *idata)
{
    size_t i = get_global_id(0);
    odata[i] = idata[i];
}

/* Does nothing: the cost of a launch (enqueue, dispatch, round trip). */
__kernel void empty(void)
{
}
