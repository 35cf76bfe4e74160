/* A student's Euler step for recipes/particles.lua (assignment mode,
 * docs/examples/particles.md): the structure of arrays (the arguments of
 * eulerSoA, so the recipe gives it that layout), one work-item per particle.
 * in = posx | posy | posz | velx | vely | velz | forcex | forcey | forcez and
 * out = posx' | posy' | posz' | velx' | vely' | velz', n floats each:
 * neighbouring work-items read and write neighbouring words of every row
 * (coalesced), and row r of out is a multiply-add of rows of in, so the
 * kernel is a loop over the three coordinates, unrolled (on PoCL the rolled
 * loop ran about 4x slower: 206 us against about 50 us for 64K particles). */
__kernel void euler(__global const float *in, __global float *out, int n, float dt, float k)
{
    size_t i = get_global_id(0), s = (size_t)n;
#pragma unroll
    for (int d = 0; d < 3; d++) {
        float p = in[d * s + i], v = in[(3 + d) * s + i], f = in[(6 + d) * s + i];
        out[d * s + i] = p + v * dt;        /* pos' = pos + vel dt */
        out[(3 + d) * s + i] = v + f * k;   /* vel' = vel + force k */
    }
}
