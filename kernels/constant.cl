// Constant memory: NVIDIA OpenCL Best Practices Guide 3.2.5 "Constant Memory";
// OpenCL slides "Constant Memory" (__constant params read by every work-item).
//
// Every work-item sums `iters` reads of a small table of TABLE uints (a power
// of two, a few KiB: it stays in the constant cache, and in L1 for __global),
// held in one of three places:
//   program_*:  a program-scope __constant array, initialised from the build
//               option -DTABLE_VALUES=v0,v1,... (the seed's "constant memory
//               declared at file scope");
//   constant_*: a __constant kernel argument (the OpenCL slides' `params`);
//   global_*:   a __global const kernel argument.
//   *_uniform: table[j]: the index is the loop counter, the same address for
//              every work-item at each step (uniform, known to the compiler);
//   *_spread:  table[(j + lid % spread) & (TABLE-1)]: `spread` different
//              addresses among the work-items of a warp at each step
//              (spread 1: one address, uniform only at run time).
// The sums wrap modulo 2^32, so the CPU reference is exact.
#ifndef TABLE
#define TABLE 1024
#endif
#define MASK (TABLE - 1)

#ifdef TABLE_VALUES
__constant uint ctable[TABLE] = {TABLE_VALUES};

__kernel void program_uniform(__global uint *out, uint iters) {
  uint sum = 0;
  for (uint j = 0; j < iters; j++) sum += ctable[j & MASK];
  out[get_global_id(0)] = sum;
}

__kernel void program_spread(__global uint *out, uint iters, uint spread) {
  uint r = (uint)get_local_id(0) % spread;
  uint sum = 0;
  for (uint j = 0; j < iters; j++) sum += ctable[(j + r) & MASK];
  out[get_global_id(0)] = sum;
}
#endif

__kernel void constant_uniform(__constant uint *table, __global uint *out, uint iters) {
  uint sum = 0;
  for (uint j = 0; j < iters; j++) sum += table[j & MASK];
  out[get_global_id(0)] = sum;
}

__kernel void constant_spread(__constant uint *table, __global uint *out, uint iters, uint spread) {
  uint r = (uint)get_local_id(0) % spread;
  uint sum = 0;
  for (uint j = 0; j < iters; j++) sum += table[(j + r) & MASK];
  out[get_global_id(0)] = sum;
}

__kernel void global_uniform(__global const uint *table, __global uint *out, uint iters) {
  uint sum = 0;
  for (uint j = 0; j < iters; j++) sum += table[j & MASK];
  out[get_global_id(0)] = sum;
}

__kernel void global_spread(__global const uint *table, __global uint *out, uint iters, uint spread) {
  uint r = (uint)get_local_id(0) % spread;
  uint sum = 0;
  for (uint j = 0; j < iters; j++) sum += table[(j + r) & MASK];
  out[get_global_id(0)] = sum;
}
