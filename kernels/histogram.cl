/* Histograms of n 16-bit keys into B = 65536 >> shift bins (recipes/histogram.lua):
 * key k falls in bin k >> shift. The one-launch kernels share the arguments a
 * student's kernel takes: keys, n, shift, hist (B bins, zeroed by the host
 * before each launch; a kernel adds its counts to them), lhist (lbins uints of
 * local memory: B when B bins fit the device's local memory, else 0 and lhist
 * holds one uint). They run a grid-stride loop over the keys.
 */

/* The skewed keys: floor(65536 u^4) of n uniform u in [0, 1], at most 65535, in
 * float (each product correctly rounded: the same keys on every device). */
__kernel void skew_keys(__global const float *u, __global uint *keys, uint n)
{
    uint i = get_global_id(0);
    if (i < n) {
        float u2 = u[i] * u[i];
        keys[i] = min((uint)(65536.0f * (u2 * u2)), 65535u);
    }
}

/* Global atomics: one atomic_inc in global memory per key. */
__kernel void hist_global(__global const uint *keys, uint n, uint shift, __global uint *hist,
                          __local uint *lhist, uint lbins)
{
    for (uint i = get_global_id(0); i < n; i += get_global_size(0))
        atomic_inc(&hist[keys[i] >> shift]);
}

/* Privatised: each work-group counts into its own bins in local memory, then
 * adds its non-zero bins to the global ones (one atomic per bin per group). */
__kernel void hist_local(__global const uint *keys, uint n, uint shift, __global uint *hist,
                         __local uint *lhist, uint lbins)
{
    uint lid = get_local_id(0), L = get_local_size(0);
    for (uint b = lid; b < lbins; b += L) lhist[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = get_global_id(0); i < n; i += get_global_size(0))
        atomic_inc(&lhist[keys[i] >> shift]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < lbins; b += L)
        if (lhist[b]) atomic_add(&hist[b], lhist[b]);
}

/* Sort-based, 1: one step (k, j) of a bitonic sort of a power-of-two array. */
__kernel void bitonic_step(__global uint *a, uint k, uint j)
{
    uint i = get_global_id(0), l = i ^ j;
    if (l > i) {
        uint x = a[i], y = a[l];
        if (((i & k) == 0) == (x > y)) { a[i] = y; a[l] = x; }
    }
}

/* The first index of sorted[0 .. n) holding a key >= v (n if none). */
static uint lower_bound(__global const uint *sorted, uint n, uint v)
{
    uint lo = 0, hi = n;
    while (lo < hi) {
        uint mid = lo + (hi - lo) / 2;
        if (sorted[mid] < v) lo = mid + 1; else hi = mid;
    }
    return lo;
}

/* Sort-based, 2: bin b's count is where its keys end minus where they start,
 * two binary searches in the sorted keys; one work-item per bin. */
__kernel void hist_sorted(__global const uint *sorted, uint n, uint shift, __global uint *hist, uint bins)
{
    uint b = get_global_id(0);
    if (b < bins)
        hist[b] = lower_bound(sorted, n, (b + 1) << shift) - lower_bound(sorted, n, b << shift);
}
