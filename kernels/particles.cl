/* One Euler step of non-interacting particles in five memory layouts:
 * "Advanced CUDA - optimizing to get 20x performance", "Particle Simulation
 * Example" (struct particleStruct { float3 pos; float3 vel; float3 force; }),
 * "Coalesced Memory Access" (float3 arrays) and "Better Coalesced Access"
 * (Option 1, structure of arrays); the lecture's "Global Memory alignment"
 * (structures aligned to 16 bytes, one load instruction).
 *
 *   pos' = pos + vel * dt        vel' = vel + force * k     (k = dt / mass)
 *
 * Inputs are read from `in`, results written to `out` (the force is an input
 * only), so every repetition computes the same step. Launch n work-items, one
 * per particle. A CUDA float3 is 12 bytes: here it is three packed floats,
 * read and written with vload3/vstore3 (an OpenCL float3 is 16 bytes).
 */

/* Array of structs, 9 packed floats (36 bytes) per particle:
 * in[9i..9i+8] = pos.xyz, vel.xyz, force.xyz; out: pos.xyz, vel.xyz written,
 * out's force fields left alone. */
__kernel void eulerAoS(__global const float *in, __global float *out, float dt, float k)
{
    size_t i = get_global_id(0);
    float3 p = vload3(3 * i, in);
    float3 v = vload3(3 * i + 1, in);
    float3 f = vload3(3 * i + 2, in);
    vstore3(p + v * dt, 3 * i, out);
    vstore3(v + f * k, 3 * i + 1, out);
}

/* Structure of float3 arrays (the slides' "float3 pos[N], vel[N], force[N]"):
 * in = pos[n] | vel[n] | force[n], 12 bytes each; out = pos[n] | vel[n]. */
__kernel void eulerSoA3(__global const float *in, __global float *out, int n, float dt, float k)
{
    size_t i = get_global_id(0);
    float3 p = vload3(i, in);
    float3 v = vload3(n + i, in);
    float3 f = vload3(2 * (size_t)n + i, in);
    vstore3(p + v * dt, i, out);
    vstore3(v + f * k, n + i, out);
}

/* Structure of arrays of floats ("Better Coalesced Access", option 1):
 * in = posx | posy | posz | velx | vely | velz | forcex | forcey | forcez,
 * n floats each; out = posx | posy | posz | velx | vely | velz. */
__kernel void eulerSoA(__global const float *in, __global float *out, int n, float dt, float k)
{
    size_t i = get_global_id(0);
    size_t s = (size_t)n;
    float px = in[i], py = in[s + i], pz = in[2 * s + i];
    float vx = in[3 * s + i], vy = in[4 * s + i], vz = in[5 * s + i];
    float fx = in[6 * s + i], fy = in[7 * s + i], fz = in[8 * s + i];
    out[i] = px + vx * dt;
    out[s + i] = py + vy * dt;
    out[2 * s + i] = pz + vz * dt;
    out[3 * s + i] = vx + fx * k;
    out[4 * s + i] = vy + fy * k;
    out[5 * s + i] = vz + fz * k;
}

/* Array of structs padded to float4 (48 bytes, aligned to 16): one 16-byte
 * load or store per field. The w lanes are padding (zero in, zero out). */
typedef struct {
    float4 pos;
    float4 vel;
    float4 force;
} Particle4;

__kernel void eulerAoS4(__global const Particle4 *in, __global Particle4 *out, float dt, float k)
{
    size_t i = get_global_id(0);
    float4 p = in[i].pos;
    float4 v = in[i].vel;
    float4 f = in[i].force;
    out[i].pos = p + v * dt;
    out[i].vel = v + f * k;
}

/* Structure of float4 arrays: in = pos[n] | vel[n] | force[n], 16 bytes
 * each; out = pos[n] | vel[n]. */
__kernel void eulerSoA4(__global const float4 *in, __global float4 *out, int n, float dt, float k)
{
    size_t i = get_global_id(0);
    float4 p = in[i];
    float4 v = in[n + i];
    float4 f = in[2 * (size_t)n + i];
    out[i] = p + v * dt;
    out[n + i] = v + f * k;
}
