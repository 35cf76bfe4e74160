/* What cl.c gathers into the cl module: each type's registration (defined
   in its own file) and the module functions the type files define. */
#ifndef CLUA_OPEN_H
#define CLUA_OPEN_H

#include <lua.h>

/* In luaopen_cl's order: a type that adds methods to another comes after it. */
void clua_open_device(lua_State *L);
void clua_open_context(lua_State *L);
void clua_open_queue(lua_State *L);    /* adds ctx:queue */
void clua_open_buffer(lua_State *L);   /* adds ctx:buffer */
void clua_open_program(lua_State *L);  /* adds ctx:program, ctx:program_file */
void clua_open_event(lua_State *L);    /* adds ctx:user_event */
void clua_open_kernel(lua_State *L);   /* adds p:kernel */
void clua_open_launch(lua_State *L);   /* q:launch and q:launcher */
void clua_open_array(lua_State *L);
void clua_open_image(lua_State *L);    /* adds ctx:image2d, ctx:sampler, q:write_image, q:read_image */
void clua_open_scalars(lua_State *L);  /* kernel.c: cl.int, cl.float, ..., cl.localmem into the module table on top */

/* cl.platforms, cl.devices, cl.device (device.c), cl.context (context.c),
   cl.array (array.c), cl.wait (event.c), cl.nvml and d:nvml (nvml.c). */
int clua_platforms(lua_State *L);
int clua_devices(lua_State *L);
int clua_device(lua_State *L);
int clua_context(lua_State *L);
int clua_array(lua_State *L);
int clua_wait(lua_State *L);
int clua_nvml(lua_State *L);

#endif
