/* The timer-resolution probe of the timing recipe: NVIDIA OpenCL Best
 * Practices Guide (2010), section 2.1.2 "Using OpenCL GPU Timers" ("The
 * resolution of the GPU timer is approximately half a microsecond").
 *
 * spin: one work-item runs `iterations` steps of a 32-bit linear congruential
 * generator (Numerical Recipes' constants) from `seed` and writes the last
 * value to out[slot], so that every launch of a series leaves its own result.
 * Each step depends on the one before, so the kernel's duration grows by a
 * few nanoseconds per iteration and the compiler cannot shorten the loop (the
 * trip count is a run-time argument). Launched with a growing count, its
 * event durations show the steps the device's clock can tell apart. The CPU
 * reference replays the recurrence with uint arithmetic (mod 2^32).
 *
 * Launch 1 work-item.
 */
__kernel void spin(__global uint *out,
                   int slot,
                   uint seed,
                   int iterations)
{
    uint x = seed;
    for (int k = 0; k < iterations; k++)
        x = x * 1664525u + 1013904223u;
    out[slot] = x;
}
