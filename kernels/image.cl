// Image (texture) reads vs global-memory reads: NVIDIA OpenCL Best Practices
// Guide 3.2.4 "Texture Memory" (3.2.4.1 textured fetch vs global memory read,
// 3.2.4.2 filtering, Table 3.4); OpenCL slides "Texture Memory" (the scale
// kernel with CLK_FILTER_LINEAR).
//
// A W x H image of floats, row-major in global memory, or a CL_R / CL_FLOAT
// image2d_t. Each pattern comes twice, *_global and *_image, computing the
// same values; out-of-range coordinates clamp to the edge (by hand in global
// memory, by a CLK_ADDRESS_CLAMP_TO_EDGE sampler for images). The 2D kernels
// run on a grid rounded up to whole work-groups and skip the extra items.

#define CLAMPX(x) clamp((x), 0, W - 1)
#define CLAMPY(y) clamp((y), 0, H - 1)
#define G(px, py) in[CLAMPY(py) * W + CLAMPX(px)]
#define I(px, py) read_imagef(in, s, (int2)((px), (py))).x

// copy: out = in (row-major: coalesced global reads)
__kernel void copy_global(__global const float *in, __global float *out, int W, int H) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x < W && y < H) out[y * W + x] = in[y * W + x];
}
__kernel void copy_image(__read_only image2d_t in, sampler_t s, __global float *out, int W, int H) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x < W && y < H) out[y * W + x] = I(x, y);
}

// 3x3 average: nine reads with 2D locality
__kernel void avg3_global(__global const float *in, __global float *out, int W, int H) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x >= W || y >= H) return;
  float sum = 0.0f;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) sum += G(x + dx, y + dy);
  out[y * W + x] = sum * (1.0f / 9.0f);
}
__kernel void avg3_image(__read_only image2d_t in, sampler_t s, __global float *out, int W, int H) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x >= W || y >= H) return;
  float sum = 0.0f;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) sum += I(x + dx, y + dy);
  out[y * W + x] = sum * (1.0f / 9.0f);
}

// shifted by one pixel: out[y][x] = in[y][x + 1] (misaligned global reads)
__kernel void shift_global(__global const float *in, __global float *out, int W, int H) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x < W && y < H) out[y * W + x] = G(x + 1, y);
}
__kernel void shift_image(__read_only image2d_t in, sampler_t s, __global float *out, int W, int H) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x < W && y < H) out[y * W + x] = I(x + 1, y);
}

// transposed read (a column walk): out is H wide and W high, out[y][x] = in[x][y];
// neighbouring work-items read down a column (uncoalesced in global memory)
__kernel void column_global(__global const float *in, __global float *out, int W, int H) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x < H && y < W) out[y * H + x] = in[x * W + y];
}
__kernel void column_image(__read_only image2d_t in, sampler_t s, __global float *out, int W, int H) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x < H && y < W) out[y * H + x] = I(y, x);
}

// scattered: out[i] = in[(i * P) mod (W H)]: consecutive work-items read P pixels apart
__kernel void scatter_global(__global const float *in, __global float *out, int W, int H, uint P) {
  uint i = get_global_id(0), n = (uint)W * (uint)H;
  if (i < n) out[i] = in[(uint)(((ulong)i * P) % n)];
}
__kernel void scatter_image(__read_only image2d_t in, sampler_t s, __global float *out, int W, int H, uint P) {
  uint i = get_global_id(0), n = (uint)W * (uint)H;
  if (i >= n) return;
  uint j = (uint)(((ulong)i * P) % n);
  out[i] = I((int)(j % (uint)W), (int)(j / (uint)W));
}

// Bilinear interpolation at (x + dx, y + dy) in pixel units (pixel centres at
// integers), clamped to the edge: by hand from global memory, by hand from an
// image (four nearest reads), and by the sampler (CLK_FILTER_LINEAR, whose
// pixel centres are at +0.5).
#define LERP2(t00, t10, t01, t11, a, b) \
  ((1.0f - (a)) * (1.0f - (b)) * (t00) + (a) * (1.0f - (b)) * (t10) + (1.0f - (a)) * (b) * (t01) + (a) * (b) * (t11))
__kernel void bilinear_global(__global const float *in, __global float *out, int W, int H, float dx, float dy) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x >= W || y >= H) return;
  float fx = x + dx, fy = y + dy;
  float x0 = floor(fx), y0 = floor(fy);
  float a = fx - x0, b = fy - y0;
  int i = (int)x0, j = (int)y0;
  out[y * W + x] = LERP2(G(i, j), G(i + 1, j), G(i, j + 1), G(i + 1, j + 1), a, b);
}
__kernel void bilinear_image_manual(__read_only image2d_t in, sampler_t s, __global float *out, int W, int H,
                                    float dx, float dy) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x >= W || y >= H) return;
  float fx = x + dx, fy = y + dy;
  float x0 = floor(fx), y0 = floor(fy);
  float a = fx - x0, b = fy - y0;
  int i = (int)x0, j = (int)y0;
  out[y * W + x] = LERP2(I(i, j), I(i + 1, j), I(i, j + 1), I(i + 1, j + 1), a, b);
}
__kernel void bilinear_image_linear(__read_only image2d_t in, sampler_t s, __global float *out, int W, int H,
                                    float dx, float dy) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x >= W || y >= H) return;
  out[y * W + x] = read_imagef(in, s, (float2)(x + dx + 0.5f, y + dy + 0.5f)).x;
}
