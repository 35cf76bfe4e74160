/* The hypotenuse kernel of the copy/compute overlap pipeline: NVIDIA OpenCL
 * Best Practices Guide (2010), section 3.1.3 "Overlapping Transfers and Device
 * Computation" (the oclCopyComputeOverlap SDK sample).
 *
 * c[i] = sqrt(a[i]^2 + b[i]^2), made heavier by `iterations` Newton steps for
 * the square root, h <- (h + s/h) / 2, started from sqrt(s). sqrt(s) is the
 * fixed point of that step, so the result stays within a few ulp of
 * sqrt(a*a + b*b) for any number of iterations and a CPU check with a relative
 * tolerance of 1e-5 holds; the compiler cannot delete the loop, since each
 * step depends on the previous one and on data, and the trip count is a
 * run-time argument. Inputs must be positive (s > 0), or s/h divides by zero.
 *
 * Launch n work-items (the pipeline launches each half with a global work
 * offset); `iterations` = 64 is the baseline's default.
 */
__kernel void hypotenuse(__global const float *a,
                         __global const float *b,
                         __global float *c,
                         int iterations)
{
    size_t i = get_global_id(0);
    float x = a[i];
    float y = b[i];
    float s = x * x + y * y;
    float h = sqrt(s);
    for (int k = 0; k < iterations; k++)
        h = 0.5f * (h + s / h);
    c[i] = h;
}
