/* peak.cl: compute peak (recipes/peak.lua), clpeak's method with a result the
   host can predict.

   Each work-item runs two independent chains of dependent multiply-adds,
   x = x * a + a and y = y * a + a, 32 steps each per iteration of the loop,
   on values of type T (float, float4, double8, int16 ...). a is read from a
   buffer (the host writes 1), so no compiler can fold the chain. Two
   distinct registers per multiply-add, as clpeak's x = y * x + y: with a
   third (x * a + b) NVIDIA's float at width 1 reached 44 of 66 TFLOPS on an
   H100, at 65 with two (register bank conflicts). Every lane starts at its
   own value (x's lanes 0 .. W-1, y's W .. 2W-1), so no compiler can compute
   one lane for all. After N = 32 x iterations
   steps lane l holds l + N exactly (integers below 2^24 in float), and the
   work-item writes the sum of its lanes: a number the host predicts, so a
   kernel that skipped steps fails verification instead of reporting a peak.

   Defines: S (the scalar type: float, double, int, half), W (the vector
   width: 1, 2, 4, 8, 16), INTEGER for int, FP64 or FP16 for the pragmas. */
#ifdef FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#ifdef FP16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#endif

#define VEC_(s, w) s##w
#define VEC(s, w) VEC_(s, w)
#if W == 1
#define T S
#define INIT_X ((T)(0))
#define INIT_Y ((T)(1))
#define SUM(v) (v)
#elif W == 2
#define T VEC(S, 2)
#define INIT_X ((T)(0, 1))
#define INIT_Y ((T)(2, 3))
#define SUM(v) ((v).s0 + (v).s1)
#elif W == 4
#define T VEC(S, 4)
#define INIT_X ((T)(0, 1, 2, 3))
#define INIT_Y ((T)(4, 5, 6, 7))
#define SUM(v) ((v).s0 + (v).s1 + (v).s2 + (v).s3)
#elif W == 8
#define T VEC(S, 8)
#define INIT_X ((T)(0, 1, 2, 3, 4, 5, 6, 7))
#define INIT_Y ((T)(8, 9, 10, 11, 12, 13, 14, 15))
#define SUM(v) ((v).s0 + (v).s1 + (v).s2 + (v).s3 + (v).s4 + (v).s5 + (v).s6 + (v).s7)
#elif W == 16
#define T VEC(S, 16)
#define INIT_X ((T)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))
#define INIT_Y ((T)(16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31))
#define SUM(v) ((v).s0 + (v).s1 + (v).s2 + (v).s3 + (v).s4 + (v).s5 + (v).s6 + (v).s7 + \
                (v).s8 + (v).s9 + (v).sa + (v).sb + (v).sc + (v).sd + (v).se + (v).sf)
#endif

#ifdef INTEGER
#define MAD(x, a, b) ((x) * (a) + (b))
#else
#define MAD(x, a, b) mad(x, a, b)
#endif

/* one step of each chain; 32 of each per iteration */
#define STEP x = MAD(x, a, a); y = MAD(y, a, a);
#define STEP4 STEP STEP STEP STEP
#define STEP16 STEP4 STEP4 STEP4 STEP4
#define STEP32 STEP16 STEP16

__kernel void peak(__global S *out, __global const S *ab, uint iterations)
{
	T a = (T)(ab[0]);
	T x = INIT_X, y = INIT_Y;
	for (uint i = 0; i < iterations; i++) {
		STEP32
	}
	out[get_global_id(0)] = SUM(x) + SUM(y);
}
