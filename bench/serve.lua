-- serve.lua - bench/serve.sh's requests, for wrk (not a test).
--
--   wrk -t T -c C -d D -s bench/serve.lua URL -- ENDPOINT RUNS RECORDS
--
-- Each request's path is drawn anew (a generator seeded by the thread's number, so a run draws
-- the same paths), pages of 20 as rag-serve's page asks for them:
--   runs     /api/runs?offset=O&limit=20                the run list, O a page of the RUNS runs
--   records  /api/runs/runI/records?offset=O&limit=20   a run's records (by seq), I of 1..RUNS,
--                                                       O a page of its RECORDS records
--   filter   /api/runs?offset=0&limit=20&label=vK&since=2026-11-DD
--                                                       the run list filtered by a label (K of 1..4)
--                                                       and a day (DD of 01..28)
-- Counts the replies that are not 200; at the end prints one line:
--   serve-result REQUESTS NON200 SOCKET_ERRORS P50_MS P99_MS MAX_MS REQ_PER_S SECONDS
-- (socket errors: connect, read, write and timeouts, which wrk leaves out of the latencies).
local threads = {}

function setup(thread)
	table.insert(threads, thread)
	thread:set("id", #threads)
end

local endpoint, runs, records, run_pages, rec_pages
non200 = 0

function init(args)
	endpoint, runs, records = args[1], tonumber(args[2]), tonumber(args[3])
	if not (endpoint == "runs" or endpoint == "records" or endpoint == "filter") or not runs or not records then
		error("serve.lua: arguments ENDPOINT (runs, records, filter) RUNS RECORDS")
	end
	run_pages = math.floor((runs + 19) / 20)
	rec_pages = math.floor((records + 19) / 20)
	math.randomseed(7919 * id)
end

function request()
	local path
	if endpoint == "runs" then
		path = string.format("/api/runs?offset=%d&limit=20", 20 * (math.random(run_pages) - 1))
	elseif endpoint == "records" then
		path = string.format("/api/runs/run%d/records?offset=%d&limit=20", math.random(runs),
			20 * (math.random(rec_pages) - 1))
	else
		path = string.format("/api/runs?offset=0&limit=20&label=v%d&since=2026-11-%02d", math.random(4),
			math.random(28))
	end
	return wrk.format("GET", path)
end

function response(status, headers, body)
	if status ~= 200 then non200 = non200 + 1 end
end

function done(summary, latency, requests)
	local bad, e = 0, summary.errors
	for _, t in ipairs(threads) do bad = bad + t:get("non200") end
	local secs = summary.duration / 1e6
	io.write(string.format("serve-result %d %d %d %.3f %.3f %.3f %.1f %.3f\n", summary.requests, bad,
		e.connect + e.read + e.write + e.timeout, latency:percentile(50) / 1000,
		latency:percentile(99) / 1000, latency.max / 1000, summary.requests / secs, secs))
end
