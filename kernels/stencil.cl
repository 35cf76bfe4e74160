// 2D Poisson relaxation with a 5-point stencil (Jacobi sweeps): "Advanced
// CUDA - optimizing to get 20x performance", Finite Differences example
// (16x16 blocks in shared memory, 14x14 computed; the stencil in constant
// memory: __constant__ double stencil[5] = {4, -1, -1, -1, -1}).
//
// A u = -h2 f, A's row the stencil s = {4, -1, -1, -1, -1} (centre, west,
// east, north, south); one Jacobi sweep on an N x N grid is
//   out[y][x] = (-h2 f[y][x] - (s1 w + s2 e + s3 n + s4 s)) / s0
// on interior points, and out = u on the boundary (Dirichlet): every point of
// `out` is written. c = {s0, s1, s2, s3, s4, h2} lives in COEF memory
// (__constant unless built with -DCOEF=__global).
#ifdef USE_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
#else
typedef float real;
#endif
#ifndef COEF
#define COEF __constant
#endif
#ifndef TILE
#define TILE 16
#endif

#define SWEEP(c, w, e, n, s, f) ((-(c)[5] * (f) - ((c)[1] * (w) + (c)[2] * (e) + (c)[3] * (n) + (c)[4] * (s))) / (c)[0])

// Global memory: every work-item reads its four neighbours from global memory.
__kernel void jacobi_global(COEF const real *c, __global const real *u, __global const real *f,
                            __global real *out, int N) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x >= N || y >= N) return;
  int i = y * N + x;
  if (x == 0 || y == 0 || x == N - 1 || y == N - 1) out[i] = u[i];
  else out[i] = SWEEP(c, u[i - 1], u[i + 1], u[i - N], u[i + N], f[i]);
}

// Local memory: a TILE x TILE group computes TILE x TILE points from a
// (TILE+2)^2 tile; the edge work-items also load the halo (not the corners).
__kernel void jacobi_local(COEF const real *c, __global const real *u, __global const real *f,
                           __global real *out, int N) {
  __local real t[TILE + 2][TILE + 2];
  int lx = get_local_id(0), ly = get_local_id(1);
  int x = get_global_id(0), y = get_global_id(1);
  int cx = min(x, N - 1), cy = min(y, N - 1);  // work-items past the grid load a clamped copy
  t[ly + 1][lx + 1] = u[cy * N + cx];
  if (lx == 0) t[ly + 1][0] = u[cy * N + max(cx - 1, 0)];
  if (lx == TILE - 1) t[ly + 1][TILE + 1] = u[cy * N + min(cx + 1, N - 1)];
  if (ly == 0) t[0][lx + 1] = u[max(cy - 1, 0) * N + cx];
  if (ly == TILE - 1) t[TILE + 1][lx + 1] = u[min(cy + 1, N - 1) * N + cx];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (x >= N || y >= N) return;
  int i = y * N + x;
  if (x == 0 || y == 0 || x == N - 1 || y == N - 1) out[i] = t[ly + 1][lx + 1];
  else out[i] = SWEEP(c, t[ly + 1][lx], t[ly + 1][lx + 2], t[ly][lx + 1], t[ly + 2][lx + 1], f[i]);
}

// The seed's scheme: a TILE x TILE group loads a TILE x TILE tile (one point
// each, overlapping its neighbours' by one), and only the (TILE-2)^2 centre
// computes. Group (gx, gy) covers points (gx*(TILE-2) .. +TILE-3, same in y).
__kernel void jacobi_overlap(COEF const real *c, __global const real *u, __global const real *f,
                             __global real *out, int N) {
  __local real t[TILE][TILE];
  int lx = get_local_id(0), ly = get_local_id(1);
  int x = (int)get_group_id(0) * (TILE - 2) + lx - 1, y = (int)get_group_id(1) * (TILE - 2) + ly - 1;
  int cx = clamp(x, 0, N - 1), cy = clamp(y, 0, N - 1);
  t[ly][lx] = u[cy * N + cx];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lx == 0 || ly == 0 || lx == TILE - 1 || ly == TILE - 1 || x >= N || y >= N) return;
  int i = y * N + x;
  if (x == 0 || y == 0 || x == N - 1 || y == N - 1) out[i] = t[ly][lx];
  else out[i] = SWEEP(c, t[ly][lx - 1], t[ly][lx + 1], t[ly - 1][lx], t[ly + 1][lx], f[i]);
}
