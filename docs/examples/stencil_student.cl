/* A student's Jacobi sweep for recipes/stencil.lua (assignment mode,
 * docs/examples/stencil.md): one work-item per point of the N x N grid,
 * launched on {G, G} work-items in 16 x 16 groups, G = N rounded up to 16.
 * Built with -DUSE_DOUBLE for --type double: `real` follows it. The
 * neighbours come from global memory (the caches catch the reuse); the
 * coefficients are read once into registers and the division by the centre
 * weight is a multiplication by its reciprocal (c[0] = 4: exact). */
#ifdef USE_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
#else
typedef float real;
#endif

__kernel __attribute__((reqd_work_group_size(16, 16, 1)))
void jacobi(__constant const real *c, __global const real *u, __global const real *f,
            __global real *out, int N)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= N || y >= N) return;              /* the rounded-up part of the launch */
    size_t i = (size_t)y * N + x;
    if (x == 0 || y == 0 || x == N - 1 || y == N - 1) {
        out[i] = u[i];                          /* Dirichlet boundary: carried */
        return;
    }
    real w = c[1], e = c[2], n = c[3], s = c[4], h2 = c[5], inv = (real)1 / c[0];
    out[i] = (-h2 * f[i] - (w * u[i - 1] + e * u[i + 1] + n * u[i - N] + s * u[i + N])) * inv;
}
