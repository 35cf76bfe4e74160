/* Work-efficient (Blelloch) exclusive prefix sum of uints: the GPU course's
 * lecture "Example of bank conflicts removal in Scan" (seeds/001, after
 * M. Harris, S. Sengupta, J. D. Owens, "Parallel Prefix Sum (Scan) with CUDA",
 * GPU Gems 3, ch. 39), with the padding macro CONFLICT_FREE_OFFSET.
 *
 * A work-group of B work-items scans one block of 2B elements in local memory:
 * an up-sweep (reduce) builds partial sums in place, the last element is
 * cleared, a down-sweep turns the tree into the exclusive scan. At step d the
 * work-items read temp[offset*(2*thid+1)-1] and temp[offset*(2*thid+2)-1]: a
 * stride of 2*offset words, so at offset 16 (32 banks) every work-item of a
 * warp is in the same bank. The padded kernels insert one word every NUM_BANKS
 * words (CONFLICT_FREE_OFFSET(i) = i >> LOG_NUM_BANKS), and the "zero
 * conflicts" form also one every NUM_BANKS^2 words.
 *
 * The lecture's ZERO_BANK_CONFLICTS macro reads
 *     ((index) >> LOG_NUM_BANKS + (index) >> (2 * LOG_NUM_BANKS))
 * where + binds tighter than >>, so it computes
 * index >> (LOG_NUM_BANKS + index) >> (2 * LOG_NUM_BANKS): 0 for every index
 * (undefined once the shift count reaches 32), no padding at all (the same
 * erratum as GPU Gems 3's listing); ZERO_CONFLICT_OFFSET below has the
 * parentheses it needs.
 *
 * A large array: scan every block (writing each block's total to `sums`), scan
 * the totals the same way (recursively), and add each block's scanned total
 * back to its elements (uniform_add).
 *
 * LOG_NUM_BANKS (build option): 5 for 32 banks (NVIDIA since Fermi; the
 * lecture's compute capability 1.x had 16 banks, LOG_NUM_BANKS 4).
 */
#ifndef LOG_NUM_BANKS
#define LOG_NUM_BANKS 5
#endif
#define NUM_BANKS (1 << LOG_NUM_BANKS)

#define NO_OFFSET(index) 0
#define CONFLICT_FREE_OFFSET(index) ((index) >> LOG_NUM_BANKS)
#define ZERO_CONFLICT_OFFSET(index) (((index) >> LOG_NUM_BANKS) + ((index) >> (2 * LOG_NUM_BANKS)))

/* pad: 0 none, 1 CONFLICT_FREE_OFFSET, 2 ZERO_CONFLICT_OFFSET (a constant in
 * each kernel below, so the compiler keeps only one form). */
static inline uint pad_offset(uint index, int pad)
{
    return pad == 0 ? NO_OFFSET(index) : pad == 1 ? CONFLICT_FREE_OFFSET(index) : ZERO_CONFLICT_OFFSET(index);
}

/* Local words a block of m elements needs with padding `pad`. */
#define TEMP_WORDS(m, pad) ((m) + pad_offset((m) - 1, pad) + 1)

/* Scans block get_group_id(0) of `in` (2B elements from 2B * group, zeros
 * past n) into `out`, and writes the block's total to sums[group]. `temp`
 * holds TEMP_WORDS(2B, pad) uints. in and out may be the same buffer. */
static inline void scan_block(__global const uint *in, __global uint *out, __global uint *sums,
                              uint n, __local uint *temp, int pad)
{
    uint thid = get_local_id(0);
    uint B = get_local_size(0);
    uint m = 2 * B;
    size_t base = get_group_id(0) * (size_t)m;

    /* Load: work-item thid takes elements thid and thid + B (coalesced). */
    uint ai = thid, bi = thid + B;
    uint bankOffsetA = pad_offset(ai, pad);
    uint bankOffsetB = pad_offset(bi, pad);
    temp[ai + bankOffsetA] = base + ai < n ? in[base + ai] : 0;
    temp[bi + bankOffsetB] = base + bi < n ? in[base + bi] : 0;

    /* Up-sweep: build the sum tree in place. */
    uint offset = 1;
    for (uint d = B; d > 0; d >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (thid < d) {
            uint a = offset * (2 * thid + 1) - 1;
            uint b = offset * (2 * thid + 2) - 1;
            a += pad_offset(a, pad);
            b += pad_offset(b, pad);
            temp[b] += temp[a];
        }
        offset *= 2;
    }

    /* The block's total, then clear the last element. */
    if (thid == 0) {
        uint last = m - 1 + pad_offset(m - 1, pad);
        sums[get_group_id(0)] = temp[last];
        temp[last] = 0;
    }

    /* Down-sweep: traverse down the tree, building the exclusive scan. */
    for (uint d = 1; d < m; d *= 2) {
        offset >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (thid < d) {
            uint a = offset * (2 * thid + 1) - 1;
            uint b = offset * (2 * thid + 2) - 1;
            a += pad_offset(a, pad);
            b += pad_offset(b, pad);
            uint t = temp[a];
            temp[a] = temp[b];
            temp[b] += t;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    if (base + ai < n) out[base + ai] = temp[ai + bankOffsetA];
    if (base + bi < n) out[base + bi] = temp[bi + bankOffsetB];
}

/* One kernel per padding; launch n/2 rounded up to whole work-groups of B
 * work-items, with `temp` of TEMP_WORDS(2B, pad) * 4 bytes. */
__kernel void scan_plain(__global const uint *in, __global uint *out, __global uint *sums, uint n,
                         __local uint *temp)
{
    scan_block(in, out, sums, n, temp, 0);
}

__kernel void scan_padded(__global const uint *in, __global uint *out, __global uint *sums, uint n,
                          __local uint *temp)
{
    scan_block(in, out, sums, n, temp, 1);
}

__kernel void scan_zero_conflicts(__global const uint *in, __global uint *out, __global uint *sums,
                                  uint n, __local uint *temp)
{
    scan_block(in, out, sums, n, temp, 2);
}

/* Adds incr[group] to the 2B elements of block `group` (below n): the scanned
 * block totals added back to the scanned blocks. Same launch as the scans. */
__kernel void uniform_add(__global uint *data, __global const uint *incr, uint n)
{
    uint B = get_local_size(0);
    size_t base = get_group_id(0) * (size_t)(2 * B);
    uint add = incr[get_group_id(0)];
    size_t i = base + get_local_id(0);
    if (i < n) data[i] += add;
    if (i + B < n) data[i + B] += add;
}
