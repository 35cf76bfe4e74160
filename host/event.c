/* Events: wait, status, profiling times; user events; cl.wait(list). The
   wait itself, and the wait lists commands take, are wait.c's. */

/***
Events: the status and profiling times of a command; user events; `cl.wait`.
@module cl.event
@usage local e = q:launch(k, n, 256)
e:wait()
print(e.command, e.duration, "ns")
*/
#include "check.h"
#include "objects.h"
#include "events.h"
#include "wait.h"
#include "open.h"
#include "state.h"

#include <string.h>

/***
An event (`cl.event`): what every enqueue returns, and user events
(`context:user_event`). `tostring(e)` is `cl.event: COMMAND, STATUS (0x...)`.
An event's handle is released by `e:release()`, at the end of a `<close>`
scope, or once the collector has found the event unreachable (host/evpool.c).
@type event
*/

/***
Releases the event (also `__close`; a second release does nothing).
@function event:release
*/
static int ev_release(lua_State *L) {
  cevent *e = clua_test_event(L, 1);
  if (!e) e = clua_check_event(L, 1);  /* raises */
  clua_event_drop(e);
  return 0;
}

static int wait_events(lua_State *L, const char *method, cl_uint n, const cl_event *list) {
  cl_int err = clua_wait_list(L, method, n, list);
  if (err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) {
    for (cl_uint i = 0; i < n; i++) {
      cl_int st = 0;
      clGetEventInfo(list[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
      if (st < 0) {
        const char *name = clua_errname(st);
        return clua_clerror(L, method, "clWaitForEvents", err, "event %d ended with %s", (int)i + 1,
                            name ? name : "an error");
      }
    }
  }
  if (err != CL_SUCCESS) return clua_clerror(L, method, "clWaitForEvents", err, NULL);
  return 0;
}

/***
Waits until the command is done (`clWaitForEvents`).
@function event:wait
@treturn cl.event the event itself
@raise `event:wait: clWaitForEvents failed: CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST (event 1 ended with CL_...)`
*/
static int wait_one(lua_State *L, const char *method) {
  cevent *e = clua_check_event(L, 1);
  wait_events(L, method, 1, &e->ev);
  lua_settop(L, 1);
  return 1;
}
static int ev_wait(lua_State *L) { return wait_one(L, "event:wait"); }

int clua_wait(lua_State *L) {
  if (clua_test_event(L, 1)) return wait_one(L, "cl.wait");
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_newtable(L);
  lua_pushvalue(L, 1);
  lua_setfield(L, -2, "wait");
  cl_event *list;
  cl_uint n = clua_waitlist(L, lua_gettop(L), "cl.wait", NULL, &list);
  if (n) wait_events(L, "cl.wait", n, list);
  return 0;
}

/***
Completes a user event (`clSetUserEventStatus`), releasing the commands
that wait for it; `event:set_status` is the same method.
@function event:complete
@tparam[opt="complete"] string|int status `"complete"`, or a negative error code to fail it
@treturn cl.event the event itself
@raise `event:complete: only user events can be completed`;
`event:complete: clSetUserEventStatus failed: ... (a user event can be completed once)`
*/
/***
The same as `event:complete`.
@function event:set_status
@tparam string|int status `"complete"` or a negative error code
@treturn cl.event the event itself
*/
static int ev_complete(lua_State *L) {
  cevent *e = clua_check_event(L, 1);
  if (!e->user) return luaL_error(L, "event:complete: only user events can be completed");
  cl_int st = CL_COMPLETE;
  if (!lua_isnoneornil(L, 2)) {
    if (lua_type(L, 2) == LUA_TSTRING && !strcmp(lua_tostring(L, 2), "complete")) st = CL_COMPLETE;
    else {
      lua_Integer v = luaL_checkinteger(L, 2);
      if (v > 0) luaL_argerror(L, 2, "\"complete\" or a negative error code expected");
      st = (cl_int)v;
    }
  }
  cl_int now = CL_SUBMITTED;  /* checked here: NVIDIA's driver lets a status be set twice */
  clGetEventInfo(e->ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof now, &now, NULL);
  if (now <= CL_COMPLETE)
    return clua_clerror(L, "event:complete", "clSetUserEventStatus", CL_INVALID_OPERATION, "a user event can be completed once");
  cl_int err = clSetUserEventStatus(e->ev, st);
  if (err != CL_SUCCESS) return clua_clerror(L, "event:complete", "clSetUserEventStatus", err, NULL);
  lua_settop(L, 1);
  return 1;
}

static int ctx_user_event(lua_State *L) {
  ccontext *c = clua_check(L, 1, T_CONTEXT);
  cl_int err;
  cl_event ev = clCreateUserEvent(c->ctx, &err);
  if (err != CL_SUCCESS) return clua_clerror(L, "ctx:user_event", "clCreateUserEvent", err, NULL);
  clua_push_user_event(L, ev);
  return 1;
}

static const char *status_name(cl_int st) {
  switch (st) {
    case CL_QUEUED: return "queued";
    case CL_SUBMITTED: return "submitted";
    case CL_RUNNING: return "running";
    case CL_COMPLETE: return "complete";
    default: return clua_errname(st);
  }
}

static const char *command_name(cl_command_type t) {
  switch (t) {
    case CL_COMMAND_NDRANGE_KERNEL: return "ndrange_kernel";
    case CL_COMMAND_TASK: return "task";
    case CL_COMMAND_READ_BUFFER: return "read_buffer";
    case CL_COMMAND_WRITE_BUFFER: return "write_buffer";
    case CL_COMMAND_COPY_BUFFER: return "copy_buffer";
    case CL_COMMAND_READ_BUFFER_RECT: return "read_buffer_rect";
    case CL_COMMAND_WRITE_BUFFER_RECT: return "write_buffer_rect";
    case CL_COMMAND_COPY_BUFFER_RECT: return "copy_buffer_rect";
    case CL_COMMAND_FILL_BUFFER: return "fill_buffer";
    case CL_COMMAND_MAP_BUFFER: return "map_buffer";
    case CL_COMMAND_UNMAP_MEM_OBJECT: return "unmap";
    case CL_COMMAND_MARKER: return "marker";
    case CL_COMMAND_BARRIER: return "barrier";
    case CL_COMMAND_USER: return "user";
    case CL_COMMAND_READ_IMAGE: return "read_image";
    case CL_COMMAND_WRITE_IMAGE: return "write_image";
    case CL_COMMAND_COPY_IMAGE: return "copy_image";
    case CL_COMMAND_MAP_IMAGE: return "map_image";
    default: return "other";
  }
}

/* A profiling time; the field read (e.start) names it in messages. */
static int profile(lua_State *L, cevent *e, cl_profiling_info what, cl_ulong *out) {
  const char *field = lua_pushfstring(L, "event.%s", lua_tostring(L, 2));
  if (e->user) return luaL_error(L, "%s: user events have no profiling times", field);
  wait_events(L, field, 1, &e->ev);
  cl_int err = clGetEventProfilingInfo(e->ev, what, sizeof *out, out, NULL);  /* field stays on the stack */
  if (err == CL_PROFILING_INFO_NOT_AVAILABLE)
    return clua_clerror(L, field, "clGetEventProfilingInfo", err, "the queue was made without profiling");
  if (err != CL_SUCCESS) return clua_clerror(L, field, "clGetEventProfilingInfo", err, NULL);
  return 0;
}

/***
`"queued"`, `"submitted"`, `"running"`, `"complete"`, or the name of the
error the command ended with.
@field status
*/
/***
The command's kind: `"ndrange_kernel"`, `"read_buffer"`, `"write_buffer"`,
`"copy_buffer"`, `"map_buffer"`, `"marker"`, `"user"`, ... (`"other"` when unknown).
@field command
*/
/***
Profiling: when the command was queued (ns, device clock). Reading any
profiling time waits for the event to complete; it raises for a user event
or on a queue made with `profiling = false`.
@field queued
*/
/***
Profiling: when the command was submitted to the device (ns).
@field submit
*/
/***
Profiling: when the command started (ns).
@field start
*/
/***
Profiling: when the command ended (ns); written `e["end"]`, as `end` is a Lua keyword.
@field end
*/
/***
Profiling: `end - start`, ns.
@field duration
*/
/***
Whether this is a user event.
@field user
*/
static int ev_index(lua_State *L) {
  if (clua_index_method(L)) return 1;
  cevent *e = clua_check_event(L, 1);
  const char *k = luaL_checkstring(L, 2);
  cl_ulong t, t2;
  if (!strcmp(k, "status")) {
    clua_keep_sigint();
    cl_int st = 0;
    cl_int err = clGetEventInfo(e->ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
    if (err != CL_SUCCESS) return clua_clerror(L, "event.status", "clGetEventInfo", err, NULL);
    if (st > CL_COMPLETE) clua_flush_events(1, &e->ev);  /* a script polling the status sees it progress */
    const char *name = status_name(st);
    if (name) lua_pushstring(L, name);
    else lua_pushinteger(L, st);
  } else if (!strcmp(k, "command")) {
    cl_command_type ct = 0;
    clGetEventInfo(e->ev, CL_EVENT_COMMAND_TYPE, sizeof ct, &ct, NULL);
    lua_pushstring(L, command_name(ct));
  } else if (!strcmp(k, "queued")) {
    profile(L, e, CL_PROFILING_COMMAND_QUEUED, &t);
    lua_pushinteger(L, (lua_Integer)t);
  } else if (!strcmp(k, "submit")) {
    profile(L, e, CL_PROFILING_COMMAND_SUBMIT, &t);
    lua_pushinteger(L, (lua_Integer)t);
  } else if (!strcmp(k, "start")) {
    profile(L, e, CL_PROFILING_COMMAND_START, &t);
    lua_pushinteger(L, (lua_Integer)t);
  } else if (!strcmp(k, "end")) {
    profile(L, e, CL_PROFILING_COMMAND_END, &t);
    lua_pushinteger(L, (lua_Integer)t);
  } else if (!strcmp(k, "duration")) {
    profile(L, e, CL_PROFILING_COMMAND_START, &t);
    profile(L, e, CL_PROFILING_COMMAND_END, &t2);
    lua_pushinteger(L, (lua_Integer)(t2 - t));
  } else if (!strcmp(k, "user")) {
    lua_pushboolean(L, e->user);
  } else {
    luaL_getmetafield(L, 1, "methods");
    lua_getfield(L, -1, k);
  }
  return 1;
}

static int ev_tostring(lua_State *L) {
  cevent *e = clua_test_event(L, 1);
  if (!e) e = clua_check_event(L, 1);  /* raises */
  if (e->released) {
    lua_pushstring(L, "cl.event (released)");
    return 1;
  }
  cl_command_type ct = 0;
  cl_int st = 0;
  clGetEventInfo(e->ev, CL_EVENT_COMMAND_TYPE, sizeof ct, &ct, NULL);
  clGetEventInfo(e->ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
  const char *sn = status_name(st);
  lua_pushfstring(L, "cl.event: %s, %s (%p)", command_name(ct), sn ? sn : "error", (void *)e->ev);
  return 1;
}

void clua_open_event(lua_State *L) {
  static const luaL_Reg methods[] = {
    {"wait", ev_wait}, {"complete", ev_complete}, {"set_status", ev_complete}, {"release", ev_release}, {NULL, NULL}};
  static const luaL_Reg meta[] = {
    {"__index", ev_index}, {"__close", ev_release}, {"__tostring", ev_tostring}, {NULL, NULL}};
  clua_newtype(L, T_EVENT, methods, meta);
  static const luaL_Reg cmethods[] = {{"user_event", ctx_user_event}, {NULL, NULL}};
  clua_add_methods(L, T_CONTEXT, cmethods);
  clua_open_evpool(L);
}
