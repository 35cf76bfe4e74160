/* The measurement harness's checks (lua/clua/harness.lua), on the device so
 * that they cost a pass over the bytes at the device's bandwidth, not a read
 * back to the host: the first 4-byte word of a range that is not the poison,
 * or that differs from an input's pristine copy. Each work-item walks the
 * words i = gid, gid + global size, ... and stops at its first difference;
 * the smallest of those is the range's first (*first holds UINT_MAX when
 * there is none). */

__kernel void first_not(__global const uint *a, uint off, uint n, uint pattern, __global uint *first) {
  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) {
    if (a[off + i] != pattern) {
      atomic_min(first, i);
      return;
    }
  }
}

__kernel void first_diff(__global const uint *a, __global const uint *b, uint n, __global uint *first) {
  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) {
    if (a[i] != b[i]) {
      atomic_min(first, i);
      return;
    }
  }
}

/* An output checked on the device (R:measure's `device` option, the helper
 * R:device_strided): the words out[off + i], 0 <= i < n, must equal
 * in[off + i] where i is a multiple of s and hold `pattern` (the poison)
 * everywhere else, bit for bit. *first gets the smallest i that does not. */
__kernel void first_strided(__global const uint *out, __global const uint *in, uint off, uint n, uint s,
                            uint pattern, __global uint *first) {
  for (uint i = get_global_id(0); i < n; i += get_global_size(0)) {
    uint want = i % s == 0 ? in[off + i] : pattern;
    if (out[off + i] != want) {
      atomic_min(first, i);
      return;
    }
  }
}
