/* roofline.cl: mixbench's method (recipes/roofline.lua): one kernel family
   whose arithmetic intensity is set by K, the multiply-adds done on each
   element between reading it and writing it.

   Each work-item reads 4 elements of `in` (a stride of the global size
   apart, so that every access is coalesced), runs K dependent multiply-adds
   x = x * a + a on each (four independent chains; two registers per
   multiply-add, as peak.cl explains), and writes the 4 results
   to `out`: 2K operations per element against one read and one write of it,
   an intensity of K / sizeof(S) operations per byte. a is read from a
   buffer (the host writes 1), so no compiler can fold the chain; element
   i, holding i, becomes i + K exactly, which the host checks. K = 0 is a
   plain copy: the bandwidth roof.

   Defines: S (float, double, int), K, INTEGER for int, FP64 for double. */
#ifdef FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#ifdef INTEGER
#define MAD(x, a, b) ((x) * (a) + (b))
#else
#define MAD(x, a, b) mad(x, a, b)
#endif

__kernel void roofline(__global S *out, __global const S *in, __global const S *ab)
{
	S a = ab[0];
	size_t i = get_global_id(0), n = get_global_size(0);
	S x0 = in[i], x1 = in[i + n], x2 = in[i + 2 * n], x3 = in[i + 3 * n];
	for (int j = 0; j < K; j++) {
		x0 = MAD(x0, a, a);
		x1 = MAD(x1, a, a);
		x2 = MAD(x2, a, a);
		x3 = MAD(x3, a, a);
	}
	out[i] = x0;
	out[i + n] = x1;
	out[i + 2 * n] = x2;
	out[i + 3 * n] = x3;
}

/* The contract, checked on the device (recipes/roofline.lua, R:measure's
   `device` option): out[i] must be i mod BLOCK + K exactly (the input's
   i mod BLOCK after K multiply-adds by 1). *first gets the smallest i that
   is not; the host reads back and names it only then. */
__kernel void roofline_check(__global const S *out, uint n, __global uint *first)
{
	for (uint i = get_global_id(0); i < n; i += get_global_size(0)) {
		if (!(out[i] == (S)((i & (BLOCK - 1)) + K))) {
			atomic_min(first, i);
			return;
		}
	}
}
