-- atomics: atomic add throughput on global and local memory by contention.
-- The seed's "atomics may be used for integer types" (OpenCL slides, "How we
-- sum elements of a vector with GPU?"): how fast are they, and how fast when
-- many work-items hit one address? Every work-item adds 1 to a counter K
-- times; div work-items share a counter: all of them (one address), a
-- work-group, a warp of 32, or none (all distinct). Types: int, uint, long
-- (cl_khr_int64_base_atomics), float through compare-exchange, and int through
-- OpenCL C 2.0/3.0 atomic_fetch_add_explicit where the compiler takes it.
local cl = require("cl")
local recipe = require("clua.recipe")

local R = recipe.new{
  name = "atomics",
  description = [[Atomic add throughput on global and local memory by contention (one address, one per
    work-group, one per warp, all distinct) for int, uint, long, float (compare-exchange) and C11 atomics.]],
  seed = "OpenCL slides \"How we sum elements of a vector with GPU?\" (\"atomics may be used for integer types\")",
  options = function(p)
    p:int("--items", "Work-items per launch (default 2^20 on a GPU, 2^14 on a CPU, 2^12 with --quick).")
    p:int("--per", "Atomic adds per work-item (default 16, 4 with --quick, 2 with --check-size).", nil, "K")
    p:int("--local", "Work-group size.", "256")
  end,
}

R:main(function(R, dev, info)
  local L = math.min(R.args["local"], info.max_work_group_size)
  local W = math.min(info.warp_size or 32, L)
  local n = math.tointeger((R.args.items or (R.quick and 2^12 or info.type == "GPU" and 2^20 or 2^14)) // L * L)
  local K, q = R.args.per or (R.check_size and 2 or R.quick and 4 or 16), R.queue
  if n < L or K < 1 then error(("--items must be at least --local (%d), --per at least 1"):format(L), 0) end

  local has64 = (" " .. table.concat(info.extensions, " ") .. " "):find(" cl_khr_int64_base_atomics ", 1, true) ~= nil
  local types = { { "int", "int" }, { "uint", "uint" }, has64 and { "long", "long" } or nil }
  types[#types + 1] = { "float", "float", "float (compare-exchange)" }
  local prog = R:program("atomics.cl")
  -- C11 atomics: the device's OpenCL C 3.0 (else 2.0) compiler, if it takes them.
  local c11, why
  for _, std in ipairs({ "CL3.0", "CL2.0" }) do
    -- built, and a kernel made of it (Oclgrind 21.10 builds C11 atomics and cannot make the kernels)
    local ok, p = pcall(function()
      local built = R:program("atomics.cl", { C11 = 1 }, "-cl-std=" .. std)
      built:kernel("global_c11_int")
      return built
    end)
    if ok then c11 = p; types[#types + 1] = { "c11_int", "int", "int (C11 " .. std .. ", relaxed)" }; break end
    why = why or tostring(p):match("[^\n]*")
  end

  -- Contention: div work-items on each counter. The one-address rows run
  -- 1/16 of the work-items (serialised by definition, and float's sums of 1
  -- stay exact up to 2^24), float's compare-exchange 1/1024 (on an H100 each
  -- success costs about 6 µs when 65536 work-items contend for the word).
  local LEVELS = {
    { "one address", global = true, items = n // 16, cas_items = math.max(L, n // 1024) },
    { "one per work-group", div = L },
    { ("one per warp (%d)"):format(W), div = W },
    { "all distinct", div = 1 },
  }
  local t = R:table{ title = ("Atomic adds: %d work-items x %d adds, work-groups of %d"):format(n, K, L), id = "atomics",
    columns = { { name = "memory", key = true }, { name = "contention", key = true }, { name = "type", key = true },
      { name = "work-items" }, { name = "per address" }, R:time_columns("µs"),
      { name = "rate", unit = "Gatomic/s", format = "%.2f", compare = true } } }
  for _, space in ipairs({ "global", "local" }) do
    for _, lv in ipairs(LEVELS) do
      if space == "global" or not lv.global then
        for _, ty in ipairs(types) do
          local items = (ty[1] == "float" and lv.cas_items) or lv.items or n
          local div = lv.div or items
          local k = (ty[1] == "c11_int" and c11 or prog):kernel(space .. "_" .. ty[1])
          local out, zero = R:output("counters", ty[2], items // div), cl.array(ty[2], 1)
          if space == "global" then k:args(out, cl.uint(div), cl.uint(K))
          else k:args(out, cl.uint(div), cl.uint(K), cl["local"](L // div * zero.size)) end
          local label = ("%s, %s, %s"):format(space, lv[1], ty[3] or ty[1])
          -- Contract: each of the items // div counters ends at div * K, exactly.
          local res = R:measure{ label = label, ops = items * K, roofline = false, bound = false,
            outputs = { { out, expect = function() return div * K end, exact = true } },
            run = function()
              if space == "global" then q:fill(out, zero) end
              return q:launch(k, items, L)
            end }
          R:add_row(t, res, { memory = space, contention = lv[1], type = ty[3] or ty[1], ["work-items"] = items,
            ["per address"] = div * K, rate = res.rate / 1e9 })
        end
      end
    end
  end
  t:note("rate: atomic adds (work-items x adds) / time; every counter verified exactly (= work-items on it x adds)")
  t:note("global: the counters zeroed before each launch (not timed); local: each work-group's counters in local "
    .. "memory, zeroed by the group and stored to global memory at its end (timed)")
  t:note(("one per warp: %d consecutive work-items on one address (%s)"):format(W, info.warp_size
    and "the device's warp" or "no warp size reported: 32"))
  if not has64 then t:note("no long row: the device lacks cl_khr_int64_base_atomics") end
  if not c11 then t:note("no C11 row: neither -cl-std=CL3.0 nor CL2.0 builds them: " .. why) end
  R:emit(t)
end)
