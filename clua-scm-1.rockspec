-- The cl module and clua's measurement library for a stock Lua 5.4:
--
--   luarocks --lua-version 5.4 make --local      (in the checkout; Debian's luarocks)
--   eval "$(luarocks --lua-version 5.4 path)"
--   lua5.4 -e 'print(require "cl".device())'
--
-- make module builds cl.so from host/ (Makefile); make module-install puts
-- it in LIBDIR, the clua.* modules in LUADIR and kernels/ and recipes/ in
-- LIBDIR/clua/. The clua.* modules want dkjson, the recipes argparse and the
-- grader LuaFileSystem, which Debian ships as lua-dkjson, lua-argparse and
-- lua-filesystem (and LuaRocks as dkjson, argparse and luafilesystem). They
-- are not listed as dependencies so that an offline `luarocks make` over
-- Debian's packages works.
rockspec_format = "3.0"
package = "clua"
version = "scm-1"
source = {
  url = "git+https://github.com/clua/clua.git",
}
description = {
  summary = "OpenCL for Lua, with a measurement library for GPU performance experiments",
  detailed = [[
The cl module binds OpenCL (platforms, devices, contexts, queues, buffers,
images, programs, kernels, events, typed host arrays) with errors that name
the call, the OpenCL error and the argument at fault; clua.* is the
measurement library (timing, statistics, verification, tables, CSV/JSON,
plots, timelines) that clua's recipes are written with.]],
  license = "MIT",
}
dependencies = {
  "lua >= 5.4, < 5.5",
}
external_dependencies = {
  OPENCL = { header = "CL/cl.h", library = "OpenCL" },
}
build = {
  type = "make",
  build_target = "module",
  build_variables = {
    CFLAGS = "$(CFLAGS)",
    LUA_INCDIR = "$(LUA_INCDIR)",
    CPPFLAGS = "-I$(OPENCL_INCDIR)",
    LDFLAGS = "-L$(OPENCL_LIBDIR)",
  },
  install_target = "module-install",
  install_variables = {
    LUADIR = "$(LUADIR)",
    LIBDIR = "$(LIBDIR)",
  },
}
