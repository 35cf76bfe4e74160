/* A student's strided copy for recipes/stride.lua --kernel (docs/examples/stride.md):
 * odata[i * stride] = idata[i * stride] for every work-item i, as strideCopy
 * (Listing 3.6), with the index computed in size_t (the guide's int product
 * overflows past 2^31 floats) and the input declared const: the accesses
 * themselves cannot be changed, the stride is the data's. */
__kernel void strideCopy(__global float *odata,
                         __global const float *idata,
                         int stride)
{
    size_t xid = get_global_id(0) * (size_t)stride;
    odata[xid] = idata[xid];
}
