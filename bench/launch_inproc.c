/* launch_inproc: a Lua C module for clua that runs the plain C program's
   launch loop (bench/common.c launch_enqueue_us, the loop of build/bench/launch)
   inside clua's own process, so that bench/launch_inproc.lua can hold
   q:launch against the same C loop in the same process, on its own OpenCL
   objects or on clua's queue and kernel: what the Lua layer costs, apart from
   what a process of its own (its heap, its libraries, its history) does to
   the driver.

     local C = require "launch_inproc"          -- build/bench/launch_inproc.so
     C.setup("0:0", "kernels")                  -- a context, queue and `empty` kernel of its own
     C.loop(n, batches, held [, q, k])          -- median us per enqueue, and CPU us
     C.one()                                    -- one enqueue on its own queue, no event
     C.finish(); local h = C.hold(); C.unhold(h)

   Built by bench/Makefile against host/handles.h, the header made for such
   modules; the clua program exports the Lua API and those functions
   (-Wl,-E), which it calls. */
#include "../bench/common.h"
#include "handles.h"

#include <lauxlib.h>
#include <lua.h>

static cl_context ctx;
static cl_command_queue queue;
static cl_program prog;
static cl_kernel kernel;

static void own_objects(lua_State *L)
{
    if (!queue)
        luaL_error(L, "launch_inproc: call setup(device, kernel_dir) first");
}

static int l_setup(lua_State *L)
{
    const char *sel = luaL_checkstring(L, 1), *kdir = luaL_checkstring(L, 2);
    if (queue)
        return luaL_error(L, "launch_inproc: setup was called already");
    cl_device_id dev = pick_device(sel);
    cl_int err;
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err);
    queue = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    CHECK(err);
    prog = build_program_as_clua(ctx, dev, kdir, "copy.cl");
    kernel = clCreateKernel(prog, "empty", &err);
    CHECK(err);
    return 0;
}

/* loop(n, batches, held [, q, k]): on clua's queue and kernel when given. */
static int l_loop(lua_State *L)
{
    lua_Integer n = luaL_checkinteger(L, 1), batches = luaL_checkinteger(L, 2);
    int held = lua_toboolean(L, 3);
    luaL_argcheck(L, n >= 1 && n <= 100000000, 1, "1 to 10^8 launches");
    luaL_argcheck(L, batches >= 1 && batches <= 64, 2, "1 to 64 batches");
    cl_command_queue q = queue;
    cl_kernel k = kernel;
    if (!lua_isnoneornil(L, 4)) {
        q = clua_queue_handle(L, 4);
        k = clua_kernel_handle(L, 5);
    } else {
        own_objects(L);
    }
    double per[64], cpu[64];
    double m = launch_enqueue_us(q, k, (int)n, 1, (int)batches, per, cpu, held);
    lua_pushnumber(L, m);
    lua_pushnumber(L, median(cpu, (int)batches));
    return 2;
}

/* One enqueue from Lua through the least C there is: the Lua call's own cost. */
static int l_one(lua_State *L)
{
    const size_t global = 1;
    if (!queue)
        own_objects(L);
    CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
    return 0;
}

static int l_finish(lua_State *L)
{
    own_objects(L);
    CHECK(clFinish(queue));
    return 0;
}

static held_queue holding; /* the batch's held queue, between l_hold and l_unhold */

static int l_hold(lua_State *L)
{
    own_objects(L);
    holding = hold(queue);
    lua_pushlightuserdata(L, holding.user);
    return 1;
}

static int l_unhold(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TLIGHTUSERDATA);
    if (lua_touserdata(L, 1) != holding.user)
        return luaL_error(L, "launch_inproc.unhold: not the queue's hold");
    unhold(queue, holding);
    holding.user = holding.marker = NULL;
    return 0;
}

int luaopen_launch_inproc(lua_State *L)
{
    static const luaL_Reg f[] = {{"setup", l_setup}, {"loop", l_loop},     {"one", l_one},
                                 {"finish", l_finish}, {"hold", l_hold}, {"unhold", l_unhold},
                                 {NULL, NULL}};
    luaL_newlib(L, f);
    return 1;
}
