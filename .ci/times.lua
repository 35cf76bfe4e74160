-- busted output handler: busted's utfTerminal output, and, where the
-- environment names a file in CLUA_TIMES, one line per spec file and per test
-- appended to it as each ends, tab-separated:
--
--   file  SECONDS  CPU  PATH
--   test  SECONDS  CPU  PATH  FULL NAME
--
-- SECONDS is the wall time; CPU the processor time of busted's process and
-- the children it waited for (/proc/self/stat), which a loaded machine
-- inflates far less.
-- .ci/test passes it (-o .ci/times.lua) and prints the slowest files.
return function(options)
	local busted = require 'busted'
	local handler = require 'busted.outputHandlers.utfTerminal'(options)
	local out = os.getenv 'CLUA_TIMES'
	local f = out and out ~= '' and assert(io.open(out, 'a'))
	if not f then return handler end

	local p = io.popen('getconf CLK_TCK')
	local tck = tonumber((p:read('l'))) or 100
	p:close()
	local function cpu()
		local st = io.open('/proc/self/stat')
		if not st then return 0 end
		local fields = st:read('a'):match('%)%s(.*)')
		st:close()
		local n, sum = 0, 0
		for v in fields:gmatch('%S+') do
			n = n + 1
			if n >= 12 and n <= 15 then sum = sum + tonumber(v) end
		end
		return sum / tck
	end
	local started, cpus, current = {}, {}, '?'
	local function took(e)
		return string.format('%.2f', busted.monotime() - (started[e] or 0)),
			string.format('%.2f', cpu() - (cpus[e] or 0))
	end
	local function line(...)
		f:write(table.concat({ ... }, '\t'), '\n')
		f:flush()
	end
	busted.subscribe({ 'file', 'start' }, function(file)
		current = file.name
		started[file], cpus[file] = busted.monotime(), cpu()
		return nil, true
	end)
	busted.subscribe({ 'file', 'end' }, function(file)
		local wall, used = took(file)
		line('file', wall, used, file.name)
		return nil, true
	end)
	busted.subscribe({ 'test', 'start' }, function(test)
		started[test], cpus[test] = busted.monotime(), cpu()
		return nil, true
	end)
	busted.subscribe({ 'test', 'end' }, function(test)
		local name = handler.getFullName(test):gsub('[\t\n]', ' ')
		local wall, used = took(test)
		line('test', wall, used, current, name)
		return nil, true
	end)
	return handler
end
