-- cl events: status, command, profiling times (queued <= submit <= start <=
-- end, duration >= 0), wait and cl.wait, markers and barriers, and user events
-- that hold a queue until they complete.
local cl = require("cl")

local function err_of(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  return tostring(err)
end

local function pending(status) return status == "queued" or status == "submitted" end

describe("cl events", function()
  local ctx, q, k
  setup(function()
    ctx = cl.context()
    q = ctx:queue()
    k = ctx:program_file("copy.cl"):build():kernel("copy")
  end)

  it("name their command and report their status", function()
    local a = cl.array("float", 256):ramp()
    local b1, b2 = ctx:buffer(1024), ctx:buffer(1024)
    local cmds = {
      write_buffer = q:write(b1, a), read_buffer = q:read(b1, a), copy_buffer = q:copy(b1, b2),
      fill_buffer = q:fill(b1, 0), ndrange_kernel = q:launch(k:args(b2, b1), 256),
      write_buffer_rect = q:write_rect(b1, a, { region = { 16, 2, 1 } }),
      read_buffer_rect = q:read_rect(b1, a, { region = { 16, 2, 1 } }),
      copy_buffer_rect = q:copy_rect(b1, b2, { region = { 16, 2, 1 } }),
      marker = q:marker(), barrier = q:barrier(),
    }
    local v, m = q:map(b1)
    cmds.map_buffer = m
    cmds.unmap = q:unmap(v)
    cmds.user = ctx:user_event()
    q:finish()
    for name, e in pairs(cmds) do
      assert.equal(name, e.command)
      if name ~= "user" then
        assert.equal("complete", e.status, name)
        assert.matches("^cl.event: " .. name .. ", complete %(0x", tostring(e))
        assert.is_false(e.user)
      end
    end
    assert.is_true(cmds.user.user)
    assert.equal("submitted", cmds.user.status)
    cmds.user:complete()
    assert.equal("complete", cmds.user.status)
  end)

  it("give ordered profiling times in ns", function()
    local n = 1 << 20
    local src, dst = ctx:buffer(4 * n), ctx:buffer(4 * n)
    local events = {
      q:write(src, cl.array("float", n):random(1), { blocking = false }),
      q:launch(k:args(dst, src), n),
      q:copy(dst, src),
      q:read(dst, cl.array("float", n), { blocking = false }),
      q:marker(),
    }
    for i, e in ipairs(events) do
      local t = { e.queued, e.submit, e.start, e["end"] } -- each waits for completion
      assert.equal("complete", e.status)
      for j = 1, 4 do assert.is_true(math.type(t[j]) == "integer", j) end
      assert.is_true(t[1] <= t[2], ("event %d: queued %d > submit %d"):format(i, t[1], t[2]))
      assert.is_true(t[2] <= t[3], ("event %d: submit %d > start %d"):format(i, t[2], t[3]))
      assert.is_true(t[3] <= t[4], ("event %d: start %d > end %d"):format(i, t[3], t[4]))
      assert.equal(t[4] - t[3], e.duration)
      assert.is_true(e.duration >= 0)
    end
    -- in-order: each command starts after the one before it ended
    for i = 2, 4 do assert.is_true(events[i].start >= events[i - 1]["end"], i) end
    assert.is_true(events[2].duration > 0)
  end)

  it("wait returns the event; cl.wait takes an event or a list", function()
    local b = ctx:buffer(4096)
    local e1 = q:fill(b, 1)
    assert.equal(e1, e1:wait())
    local e2, e3 = q:fill(b, 2), q:marker()
    cl.wait({ e2, e3 })
    assert.equal("complete", e2.status)
    assert.equal("complete", e3.status)
    cl.wait(q:marker())
    cl.wait({})
    assert.matches("cl.wait: wait[2] must be a cl.event, got number", err_of(cl.wait, { e1, 5 }), 1, true)
    assert.matches("table expected, got string", err_of(cl.wait, "x"), 1, true)
  end)

  it("a launch's event and its queue let go of the command in either order", function()
    -- The queue borrows the handle of its newest launch's event (no retain and
    -- release per launch); whichever is released first, the other still works
    -- and nothing is left behind.
    local function live() return cl.debug_counts().event.live end
    local b = ctx:buffer(1024)
    local src = ctx:buffer(cl.array("float", 256):ramp())
    k:args(b, src)
    collectgarbage()
    q:finish()
    local before = live()
    -- the event first: the queue still waits for the command
    local q1 = ctx:queue()
    local e = q1:launch(k, 256)
    e:release()
    q1:finish()
    local r = cl.array("float", 256)
    q1:read(b, r)
    assert.are.equal(255, r[255])
    -- the queue first: the event still answers
    local e2 = q1:launch(k, 256)
    q1:release()
    assert.are.equal(e2, e2:wait())
    assert.are.equal("complete", e2.status)
    assert.is_true(e2.duration >= 0)
    e2:release()
    -- both left to the collector, in one cycle
    local q2 = ctx:queue()
    q2:launch(k, 256)
    q2:launch(k, 256, nil, { event = false })
    q2:launch(k, 256) -- its event dropped at once
    q2 = nil -- luacheck: ignore
    collectgarbage()
    collectgarbage()
    -- the collected queue's newest command waits, retained, until it ends and
    -- a queue call sweeps it (docs/notes/reliability.md: orphans)
    local t0 = cl.now()
    repeat q:finish() until live() == before or cl.now() - t0 > 5e9
    assert.are.equal(before, live())
  end)

  describe("left to the collector (no finalizer each: host/evpool.c)", function()
    local function live() return cl.debug_counts().event.live end
    local empty
    setup(function() empty = ctx:program_file("copy.cl"):build():kernel("empty") end)

    it("are released by a full collection, in either collector mode", function()
      for _, mode in ipairs({ "incremental", "generational" }) do
        local old = collectgarbage(mode)
        q:finish()
        collectgarbage()
        local before = live()
        for _ = 1, 5000 do q:launch(empty, 1) end
        q:marker():wait() -- not q:finish(), which may step the collector
        assert.is_true(live() > before, "the dropped events are not released before a collection")
        q:finish() -- the queue lets its newest command's handle go
        collectgarbage()
        assert.are.equal(before, live(), mode)
        collectgarbage(old)
      end
    end)

    it("are released by q:finish() once many were made since it last collected", function()
      local old = collectgarbage("generational")
      q:finish()
      collectgarbage()
      local before = live()
      for _ = 1, 100 do q:launch(empty, 1) end
      q:marker():wait()
      local kept = {}
      for i = 1, 300 do
        q:launch(empty, 1)
        kept[i % 3] = q:launch(empty, 1) -- three of the last ones stay reachable
      end
      q:finish() -- 700 events made: a young collection frees the dropped ones, which releases them
      assert.is_true(live() - before <= 3 + 2, ("%d events live after q:finish()"):format(live() - before))
      for i = 0, 2 do assert.are.equal("complete", kept[i].status) end
      kept = nil -- luacheck: ignore
      collectgarbage()
      assert.are.equal(before, live())
      collectgarbage(old)
    end)

    it("are all released when q:finish() runs in a finalizer", function()
      q:finish()
      collectgarbage()
      local before, done = live(), 0
      for _ = 1, 5 do
        setmetatable({}, { __gc = function()
          for _ = 1, 300 do q:launch(empty, 1) end
          q:finish()
          done = done + 1
        end })
        for _ = 1, 300 do q:launch(empty, 1) end
        collectgarbage()
      end
      q:finish()
      collectgarbage()
      collectgarbage()
      assert.are.equal(5, done)
      assert.are.equal(before, live())
    end)

    it("stay held while reachable, however many collections pass", function()
      local kept = {}
      for i = 1, 600 do kept[i] = q:launch(empty, 1) end
      for _ = 1, 3 do
        for _ = 1, 2000 do q:launch(empty, 1) end -- their slots are reused
        collectgarbage()
      end
      cl.wait(kept)
      for i = 1, 600, 37 do assert.are.equal("complete", kept[i].status) end
      assert.are.equal("ndrange_kernel", kept[600].command)
      local before = live()
      kept = nil -- luacheck: ignore
      collectgarbage()
      assert.are.equal(before - 600, live())
    end)

    it("leave their memory to new objects of any kind, which it serves intact", function()
      -- The blocks of collected events wait on the allocator hook's list and
      -- serve the next blocks of their size, events or not (host/evpool.c).
      local function text(i) return string.rep(string.char(65 + i % 26), i % 97) end
      local made = {}
      for round = 1, 3 do
        for _ = 1, 3000 do q:launch(empty, 1) end
        q:finish()
        collectgarbage()
        for i = 1, 1500 do made[#made + 1] = { text(i), { i, i * 2 }, function() return i end } end
        for _ = 1, 500 do q:launch(empty, 1) end
        collectgarbage()
        for j, m in ipairs(made) do
          local i = (j - 1) % 1500 + 1
          assert.are.equal(text(i), m[1], ("round %d, object %d"):format(round, j))
          assert.are.same({ i, i * 2 }, m[2])
          assert.are.equal(i, m[3]())
        end
      end
      local kept = {}
      for i = 1, 200 do kept[i] = q:launch(empty, 1) end -- events from those blocks again
      cl.wait(kept)
      for i = 1, 200, 13 do assert.are.equal("ndrange_kernel", kept[i].command) end
    end)

    it("once released explicitly, are not released again by the collector", function()
      q:finish()
      collectgarbage()
      local counts = cl.debug_counts().event
      local e = q:launch(empty, 1)
      e:wait()
      e:release()
      e:release()
      e = nil -- luacheck: ignore
      q:finish() -- the queue held the handle as its newest command's
      collectgarbage()
      local after = cl.debug_counts().event
      assert.are.equal(counts.created + 1, after.created)
      assert.are.equal(counts.released + 1, after.released)
    end)

    it("reached only from an object being finalized, stay usable there, and are released once freed", function()
      -- The collector frees such an event's memory only after the holder's
      -- finalizer has run, and the event is released then (host/evpool.c);
      -- a new event made in the finalizer never takes its slot.
      q:finish()
      collectgarbage()
      local before = live()
      local seen, holders = {}, {}
      for i = 1, 20 do
        local e = q:launch(empty, 1)
        holders[i] = setmetatable({}, { __gc = function()
          local fresh = q:launch(empty, 1)
          local ok, status = pcall(function() return e.status end)
          local waited, err = pcall(e.wait, e)
          seen[#seen + 1] = { ok = ok, status = status, waited = waited, err = not waited and err or nil,
                              same = rawequal(e, fresh), command = e.command, fresh = fresh.command }
        end })
      end
      collectgarbage()
      assert.are.equal(20, #holders)
      holders = nil -- luacheck: ignore
      collectgarbage()
      collectgarbage()
      assert.are.equal(20, #seen)
      for _, s in ipairs(seen) do
        assert.is_true(s.ok, s.status)
        assert.is_true(s.waited, s.err)
        assert.are.equal("ndrange_kernel", s.command)
        assert.are.equal("ndrange_kernel", s.fresh)
        assert.is_false(s.same)
      end
      q:finish()
      collectgarbage()
      collectgarbage()
      assert.are.equal(before, live())
    end)
  end)

  describe("user events", function()
    it("hold a queue: a write waiting on one has not happened until it completes", function()
      local b = ctx:buffer(64)
      q:fill(b, -1)
      q:finish()
      local side = ctx:queue() -- a second queue to look with
      local gate = ctx:user_event()
      local w = q:write(b, cl.array("int", 16):ramp(1), { blocking = false, wait = { gate } })
      local after = q:marker() -- in order: behind the held write
      local r = cl.array("int", 16)
      side:read(b, r)
      assert.same({ -1, -1, -1, -1 }, r:totable(0, 4))
      for i = 0, 15 do assert.equal(-1, r[i]) end
      assert.is_true(pending(w.status), w.status)
      assert.is_true(pending(after.status), after.status)
      assert.equal("submitted", gate.status)
      gate:complete()
      w:wait()
      after:wait()
      assert.equal("complete", w.status)
      side:read(b, r)
      for i = 0, 15 do assert.equal(i + 1, r[i]) end
    end)

    it("hold a launch, a marker and a barrier with wait lists", function()
      local src, dst = ctx:buffer(cl.array("float", 64):fill(3)), ctx:buffer(256)
      local side = ctx:queue()
      side:fill(dst, 0.0)
      local gate = ctx:user_event()
      local e = q:launch(k:args(dst, src), 64, nil, { wait = { gate } })
      local m = q:marker({ gate })
      local ba = q:barrier(gate)
      local r = cl.array("float", 64)
      side:read(dst, r)
      assert.equal(0, r[63])
      assert.is_true(pending(e.status) and pending(m.status) and pending(ba.status))
      gate:set_status("complete")
      cl.wait({ e, m, ba })
      side:read(dst, r)
      for i = 0, 63 do assert.equal(3, r[i]) end
    end)

    it("fail the commands waiting on them when set to an error", function()
      local b = ctx:buffer(16)
      local gate = ctx:user_event()
      local w = q:write(b, cl.array("int", 4), { blocking = false, wait = { gate } })
      gate:set_status(-5)
      assert.equal("CL_OUT_OF_RESOURCES", gate.status)
      -- waiting on it raises, naming the method and the error the command ended with
      local err = err_of(w.wait, w)
      assert.matches("^event:wait: ", err)
      assert.matches(w.status, err, 1, true)
      assert.matches("^CL_", w.status)
      err = err_of(cl.wait, { w })
      assert.matches("^cl.wait: ", err)
      assert.matches(w.status, err, 1, true)
    end)

    it("dropped while holding commands, fail them instead of holding them forever", function()
      local b = ctx:buffer(16)
      local w
      do
        local gate = ctx:user_event()
        w = q:write(b, cl.array("int", 4), { blocking = false, wait = { gate } })
      end
      collectgarbage()
      collectgarbage()
      assert.has_error(function() w:wait() end)
      assert.matches("^CL_", w.status)
    end)

    it("complete once, and only user events complete", function()
      local gate = ctx:user_event()
      assert.equal(gate, gate:complete())
      assert.matches("event:complete: clSetUserEventStatus failed: CL_INVALID_OPERATION (a user event can be completed once)",
        err_of(gate.complete, gate), 1, true)
      assert.matches('"complete" or a negative error code expected', err_of(gate.set_status, ctx:user_event(), 1), 1, true)
      local m = q:marker()
      assert.matches("event:complete: only user events can be completed", err_of(m.complete, m), 1, true)
      assert.matches("event.start: user events have no profiling times", err_of(function() return gate.start end), 1, true)
      assert.matches("event.duration: user events have no profiling times", err_of(function() return gate.duration end), 1, true)
    end)
  end)

  it("a queue released while a user event holds its commands does not block", function()
    local gate = ctx:user_event()
    local b = ctx:buffer(64)
    local w
    do
      local q2 <close> = ctx:queue()
      w = q2:write(b, cl.array("int", 16):fill(4), { blocking = false, wait = { gate } })
    end -- q2 released here, its write still held
    collectgarbage()
    collectgarbage()
    assert.is_true(pending(w.status))
    gate:complete()
    w:wait()
    local r = cl.array("int", 16)
    q:read(b, r)
    for i = 0, 15 do assert.equal(4, r[i]) end
  end)
end)
