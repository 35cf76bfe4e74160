/* Divergence: NVIDIA OpenCL Best Practices Guide (2010), 6.1 "Branching and
 * Divergence" and 6.2 "Branch Predication"; OpenCL slides "Conditionals" (a
 * warp executes both branches when its work-items disagree; no penalty when
 * different warps take different branches).
 *
 * Every work-item runs one of two paths of STEPS dependent integer steps on its
 * input (different instruction sequences, so the compiler cannot merge them):
 *   path A: x = x * 1664525 + 1013904223, then x = x * 22695477 + 1 (two LCGs)
 *   path B: x = (x ^ (x >> 15)) * 2246822519                         (a hash step)
 * chosen by
 *   divergent   get_local_id(0) % 2            (every warp holds both: serialised)
 *   aligned     (get_local_id(0) / WARP) % 2   (whole warps agree: no divergence;
 *               WARP is the device's warp width, a build-time define, so the
 *               division is a shift as in the divergent kernel's % 2)
 *   predicated  both paths computed by every work-item, then select() on
 *               get_local_id(0) % 2 (no branch at all, as 6.2 describes for
 *               short branches, at the price of executing both)
 * Odd local ids (or odd warps) take path A, even ones path B. STEPS is a
 * build-time define: long (hundreds of steps: the branch dominates) or short
 * (a couple of steps, which the compiler may predicate by itself).
 */
#ifndef STEPS
#define STEPS 256
#endif
#ifndef WARP
#define WARP 32
#endif

static uint path_a(uint x)
{
    for (int k = 0; k < STEPS; k++) {
        x = x * 1664525u + 1013904223u;
        x = x * 22695477u + 1u;
    }
    return x;
}

static uint path_b(uint x)
{
    for (int k = 0; k < STEPS; k++)
        x = (x ^ (x >> 15)) * 2246822519u;
    return x;
}

__kernel void divergent(__global const uint *in, __global uint *out)
{
    size_t i = get_global_id(0);
    uint x = in[i];
    if (get_local_id(0) % 2)
        x = path_a(x);
    else
        x = path_b(x);
    out[i] = x;
}

__kernel void aligned(__global const uint *in, __global uint *out)
{
    size_t i = get_global_id(0);
    uint x = in[i];
    if ((get_local_id(0) / WARP) % 2)
        x = path_a(x);
    else
        x = path_b(x);
    out[i] = x;
}

__kernel void predicated(__global const uint *in, __global uint *out)
{
    size_t i = get_global_id(0);
    uint x = in[i];
    uint a = path_a(x);
    uint b = path_b(x);
    out[i] = select(b, a, (uint)(get_local_id(0) % 2));
}
