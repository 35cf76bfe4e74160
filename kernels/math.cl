/* Instruction optimizations: NVIDIA OpenCL Best Practices Guide (2010), chapter 5:
 * 5.1 Arithmetic Instructions (-cl-mad-enable, -cl-fast-relaxed-math), 5.1.1
 * Division and Modulo Operations (i / n, i % n vs i >> log2(n), i & (n - 1)),
 * 5.1.2 Reciprocal Square Root (1.0f / sqrt(x) vs rsqrt(x)), 5.1.3 Other
 * Arithmetic Instructions (1.0 vs 1.0f: double constants promote single
 * precision arithmetic to double), 5.1.4 Math Libraries (sin(x) vs
 * native_sin(x), ...); OpenCL slides "Special instructions".
 *
 * Each kernel evaluates one expression F of x for its own input and writes it
 * (the output the recipe checks against a double-precision CPU reference), and
 * evaluates F another reps - 1 times on arguments stepped from x (xk += step),
 * summed into a sink. The sink only decides between writing the sum or the
 * first result through a comparison with `magic`, which the host sets to a
 * value the sum can never take (-3e38 for floats; 0 for the integer sink, made
 * odd), so the compiler must compute every evaluation but the output is F(x).
 * The cost of a repetition is F plus one add for the argument and one for the
 * sink: the `identity` kernel (F(x) = x) measures that overhead alone.
 *
 * Float kernels: (in, out, step, reps, magic, p); p is pow's exponent, from an
 * argument so that the compiler cannot specialise it. Integer kernels: (in,
 * out, n, shift, mask, reps, magic) with n = 1 << shift and mask = n - 1, all
 * arguments, so the compiler cannot turn i / n into a shift by itself (it does
 * when n is a literal, 5.1.1).
 */

#define FLOAT_KERNEL(NAME, F)                                                   \
__kernel void NAME(__global const float *in, __global float *out, float step,   \
                   int reps, float magic, float p)                              \
{                                                                               \
    size_t i = get_global_id(0);                                                \
    float x0 = in[i];                                                           \
    float y, s, xk = x0;                                                        \
    { float x = x0; y = (F); }                                                  \
    s = y;                                                                      \
    for (int k = 1; k < reps; k++) {                                            \
        xk += step;                                                             \
        { float x = xk; s += (F); }                                             \
    }                                                                           \
    out[i] = (s == magic) ? s : y;                                              \
}

#define INT_KERNEL(NAME, Q, R)                                                  \
__kernel void NAME(__global const uint *in, __global uint *out, uint n,        \
                   uint shift, uint mask, int reps, uint magic)                 \
{                                                                               \
    size_t i = get_global_id(0);                                                \
    uint x0 = in[i];                                                            \
    uint y, s, xk = x0;                                                         \
    { uint x = x0; y = (Q) * 65599u + (R); }                                    \
    s = y;                                                                      \
    for (int k = 1; k < reps; k++) {                                            \
        xk += 0x9E3779B9u;                                                      \
        { uint x = xk; s += (Q) ^ (R); }                                        \
    }                                                                           \
    out[i] = ((s | 1u) == magic) ? s : y;                                       \
}

/* the overhead: argument step and sink only */
FLOAT_KERNEL(identity, x)

/* 5.1.4: full-precision functions and their native_ counterparts */
FLOAT_KERNEL(f_sin, sin(x))
FLOAT_KERNEL(f_cos, cos(x))
FLOAT_KERNEL(f_exp, exp(x))
FLOAT_KERNEL(f_log, log(x))
FLOAT_KERNEL(f_pow, pow(x, p))
FLOAT_KERNEL(f_sqrt, sqrt(x))
FLOAT_KERNEL(native_sin_, native_sin(x))
FLOAT_KERNEL(native_cos_, native_cos(x))
FLOAT_KERNEL(native_exp_, native_exp(x))
FLOAT_KERNEL(native_log_, native_log(x))
FLOAT_KERNEL(native_pow_, native_powr(x, p))
FLOAT_KERNEL(native_sqrt_, native_sqrt(x))

/* 5.1.2: reciprocal square root */
FLOAT_KERNEL(recip_sqrt, 1.0f / sqrt(x))
FLOAT_KERNEL(f_rsqrt, rsqrt(x))
FLOAT_KERNEL(native_rsqrt_, native_rsqrt(x))

/* 5.1.3 (and 5.1's -cl-mad-enable): a cubic by Horner's rule with
 * single-precision constants; with double constants below */
FLOAT_KERNEL(poly_float, ((0.1234567891234f * x + 0.9876543210987f) * x + 1.4142135623731f) * x
                         + 0.5772156649015f)

#ifdef HAS_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
FLOAT_KERNEL(poly_double, ((0.1234567891234 * x + 0.9876543210987) * x + 1.4142135623731) * x
                          + 0.5772156649015)
#endif

/* 5.1.1: division and modulo by a power of two */
INT_KERNEL(divmod, x / n, x % n)
INT_KERNEL(shiftmask, x >> shift, x & mask)
