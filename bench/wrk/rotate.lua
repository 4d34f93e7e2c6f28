-- wrk script of the Rowbase benchmark (bench/wrk-load.ts writes its input and reads its output).
-- Usage: wrk -t1 -cN -dS -s bench/wrk/rotate.lua URL -- REQUESTS_FILE
-- REQUESTS_FILE holds ready-made HTTP/1.1 requests (headers and body), each preceded by a line
-- with its length in bytes. Every thread walks the list in order from its own starting point,
-- so ids, filter values and bodies rotate. done() prints one line of JSON: the requests, the
-- errors and the latency percentiles (microseconds) of the whole run.

local requests = {}
local cursor = 1

local function load(file)
  local f = assert(io.open(file, "rb"))
  local text = f:read("*a")
  f:close()
  local list = {}
  local at = 1
  while at <= #text do
    local newline = string.find(text, "\n", at, true)
    if not newline then break end
    local length = tonumber(string.sub(text, at, newline - 1))
    list[#list + 1] = string.sub(text, newline + 1, newline + length)
    at = newline + 1 + length
  end
  return list
end

local thread_count = 0
function setup(thread)
  thread:set("thread_index", thread_count)
  thread_count = thread_count + 1
end

function init(args)
  requests = load(args[1])
  local index = tonumber(thread_index) or 0
  cursor = (index * 7919) % #requests + 1
end

function request()
  local r = requests[cursor]
  cursor = cursor + 1
  if cursor > #requests then cursor = 1 end
  return r
end

function done(summary, latency, _)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"bytes":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%.1f}}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
