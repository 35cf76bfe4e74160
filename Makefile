# clua: the interpreter with OpenCL built in.
#
#   make                    build/clua (Lua 5.4 static, OpenCL through the ICD loader)
#   make asan               build/asan/clua (AddressSanitizer + UndefinedBehaviorSanitizer)
#   make run                set-up, build, run recipes/overlap.lua on the default device
#   make test               set-up, build both, every spec under busted with each binary;
#                           ends with one line "N passed, N failed"
#   make install PREFIX=…   PREFIX/bin/clua and PREFIX/share/clua/{lua,kernels,recipes}
#   make bundle             bundle/: clua, its Lua library and the pure-Lua packages it
#                           needs, for a Linux x86-64 machine with no Lua installed
#   make setup              install the Debian packages that are missing (.ci/setup)
#   make clean              remove build/ and bundle/

PREFIX     ?= /usr/local
DESTDIR    ?=
PKG_CONFIG ?= pkg-config
BUILD      := build
SPECS      ?= spec

# Every C file of host/ goes into the one binary.
SRC := $(wildcard host/*.c)

# Recursive (=) so that nothing runs pkg-config before `make setup` has installed it.
LUA_PC     = $(shell $(PKG_CONFIG) --exists lua5.4 2>/dev/null && echo lua5.4 || echo lua54)
LUA_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(LUA_PC) 2>/dev/null)
LUA_A      = $(shell $(PKG_CONFIG) --variable=libdir $(LUA_PC) 2>/dev/null)/liblua5.4.a
CL_CFLAGS  = $(shell $(PKG_CONFIG) --cflags OpenCL 2>/dev/null)
CL_LIBS    = $(or $(shell $(PKG_CONFIG) --libs OpenCL 2>/dev/null),-lOpenCL)

CPPFLAGS_CLUA = -Ihost -D_POSIX_C_SOURCE=200809L $(LUA_CFLAGS) $(CL_CFLAGS) $(CPPFLAGS)
CFLAGS_CLUA   = -std=c11 -Wall -Wextra -MMD -MP
OPT           = -O2
ASAN_OPT      = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
                -fno-sanitize-recover=undefined
# -Wl,-E exports Lua's API from the binary, so Debian's Lua C modules (lfs,
# system, term: what busted loads) resolve their lua_* symbols against it.
LDLIBS_CLUA   = -Wl,-E $(LUA_A) $(CL_LIBS) -ldl -lm

OBJ      := $(SRC:host/%.c=$(BUILD)/obj/%.o)
ASAN_OBJ := $(SRC:host/%.c=$(BUILD)/asan/obj/%.o)

.PHONY: all asan run test setup install clean bundle check-lua

all: $(BUILD)/clua

asan: $(BUILD)/asan/clua

$(BUILD)/clua: $(OBJ) | check-lua
	$(CC) $(OPT) $(LDFLAGS) -o $@ $(OBJ) $(LDLIBS_CLUA) $(LDLIBS)

$(BUILD)/asan/clua: $(ASAN_OBJ) | check-lua
	$(CC) $(ASAN_OPT) $(LDFLAGS) -o $@ $(ASAN_OBJ) $(LDLIBS_CLUA) $(LDLIBS)

$(BUILD)/obj/%.o: host/%.c | $(BUILD)/obj
	$(CC) $(CPPFLAGS_CLUA) $(CFLAGS_CLUA) $(OPT) $(CFLAGS) -c -o $@ $<

$(BUILD)/asan/obj/%.o: host/%.c | $(BUILD)/asan/obj
	$(CC) $(CPPFLAGS_CLUA) $(CFLAGS_CLUA) $(ASAN_OPT) $(CFLAGS) -c -o $@ $<

$(BUILD)/obj $(BUILD)/asan/obj:
	mkdir -p $@

check-lua:
	@test -f "$(LUA_A)" || { echo "liblua5.4.a not found ($(LUA_A)): run 'make setup'" >&2; exit 1; }

-include $(OBJ:.o=.d) $(ASAN_OBJ:.o=.d)

# ---------------------------------------------------------------- set-up, run, test

setup:
	@sh .ci/setup

run: setup
	@$(MAKE) --no-print-directory all
	$(BUILD)/clua recipes/overlap.lua

# .ci/test runs busted once per binary (the ASan run with LeakSanitizer on and
# spec/lsan.supp) and prints the summed "N passed, N failed" last.
test: setup
	@$(MAKE) --no-print-directory all asan
	@.ci/test $(BUILD)/clua $(BUILD)/asan/clua -- $(SPECS)

# ---------------------------------------------------------------- install

install: $(BUILD)/clua
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/clua
	install -m 755 $(BUILD)/clua $(DESTDIR)$(PREFIX)/bin/clua
	rm -rf $(DESTDIR)$(PREFIX)/share/clua/lua $(DESTDIR)$(PREFIX)/share/clua/kernels \
	       $(DESTDIR)$(PREFIX)/share/clua/recipes
	cp -R lua kernels recipes $(DESTDIR)$(PREFIX)/share/clua/

# ---------------------------------------------------------------- bundle

# The pure-Lua Debian packages the recipes use (.ci/bundle adds lua-penlight
# when something under lua/, recipes/ or bench/ requires "pl.…").
BUNDLE_DEBS ?= lua-argparse lua-dkjson
BUNDLE_MAX_KB := 20480

bundle: $(BUILD)/clua
	@.ci/bundle "$(BUILD)/clua" "$(BUNDLE_MAX_KB)" $(BUNDLE_DEBS)

clean:
	rm -rf $(BUILD) bundle

# ---------------------------------------------------------------- benchmark

# Host-side cost per empty-kernel enqueue: clua's q:launch beside the plain C
# program build/bench/launch (with and without an event), same device, same run.
.PHONY: bench-launch
bench-launch: $(BUILD)/clua
	@$(MAKE) --no-print-directory -f bench/Makefile
	$(BUILD)/clua bench/launch.lua
