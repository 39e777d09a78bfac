#!/usr/bin/env bash
# /v1/search throughput and latency with wrk (64 connections) against `searchlight serve`
# on a 100k-item index, next to the same queries run in process on as many threads, in the
# same run: one-off queries (each asked once, so no result cache helps) with the cache off;
# a 300-query rotation with the cache off and on; then wrk runs while `searchlight crawl`
# writes to the same index (one-off queries and the rotation, with the cache off and on).
#
# usage: Benchmarks/serve.sh
#   (ITEMS=100000 THREADS=4 SERVER_THREADS=4 DURATION=30 WRITE_DURATION=60 PORT=18090 WEB_PORT=18080
#    CRAWL_NICE=0: the crawl's niceness, as a scheduled crawl beside a search service would run;
#    CRAWL_DELAY=0.1: seconds between two requests to one of its 20 hosts, which sets its pace)
# Needs wrk and nginx (apt-get install -y wrk nginx-light) and python3. Prints one JSON
# object per measurement on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
items=${ITEMS:-100000}; threads=${THREADS:-4}; server_threads=${SERVER_THREADS:-4}; duration=${DURATION:-30}; write_duration=${WRITE_DURATION:-60}
port=${PORT:-18090}; web_port=${WEB_PORT:-18080}
bench=${BENCH:-../shared/bench}
work=${WORK:-/tmp/searchlight-serve-bench}
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk" >&2; exit 1; }

echo "building (release)…" >&2
swift build -c release --product searchlight >/dev/null
swift build -c release --product searchlight-bench >/dev/null
searchlight=$PWD/.build/release/searchlight
mkdir -p "$work"
if [ ! -f "$work/data/distinct-queries.txt" ]; then
  rm -rf "$work/data"
  echo "making a $items-item index…" >&2
  .build/release/searchlight-bench serve-index "$work/data" --items "$items" >&2
fi

cat > "$work/queries.lua" <<'LUA'
-- Each wrk thread walks the query list from its own starting point: for the one-off list,
-- thread i takes the i-th of as many slices, so no query is asked twice (the list is long
-- enough for the run; past its end a thread starts its slice again).
local queries = {}
local next = 0
local first, size = 0, 0
local counter = 0
local threads = {}
local function encode(text)
  return (text:gsub("[^%w%-%._~]", function(c) return string.format("%%%02X", string.byte(c)) end))
end
function setup(thread)
  thread:set("index", counter)
  counter = counter + 1
  table.insert(threads, thread)
end
function init(args)
  for line in io.lines(args[1]) do table.insert(queries, encode(line)) end
  local count = tonumber(args[2] or "2")
  if args[3] == "slices" then
    size = math.floor(#queries / count)
    first = index * size
    next = first
  else
    next = math.random(#queries)
  end
end
function request()
  if size > 0 then
    next = next + 1
    if next > first + size then next = first + 1 end
  else
    next = next % #queries + 1
  end
  return wrk.format("GET", "/v1/search?q=" .. queries[next])
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "seconds": %.2f, "requestsPerSecond": %.1f, "p50Ms": %.2f, "p99Ms": %.2f, '
    .. '"socketErrors": %d, "non2xx": %d, "timeouts": %d}\n',
    summary.requests, summary.duration / 1e6, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    e.connect + e.read + e.write, e.status, e.timeout))
end
LUA

server_pid=""; nginx_pid=""; crawl_pid=""
cleanup() {
  for pid in $crawl_pid $server_pid $nginx_pid; do kill "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

# 1. The same queries in process: the floor the HTTP figures are compared with.
.build/release/searchlight-bench search-in-process "$work/data" --threads "$threads" --seconds "$duration" --queries distinct-queries.txt
.build/release/searchlight-bench search-in-process "$work/data" --threads "$threads" --seconds "$duration"

# 2. Over HTTP, with the result cache off (every request searches the index) and on (the
# default), in turn; with the cache on, each query is asked once first (the cold misses
# are then the in-process figure) and the cache's counters are printed.
start_server() {  # $1: --cache-seconds
  "$searchlight" serve --data "$work/data" --listen "127.0.0.1:$port" --threads "$server_threads" --cache-seconds "$1" >&2 &
  server_pid=$!
  sleep 1
}
stop_server() { kill "$server_pid"; wait "$server_pid" || true; server_pid=""; }
cache_figures() {  # $1: name; the result cache's counters from /metrics
  curl -s "http://127.0.0.1:$port/metrics" | awk -v name="$1" '
    /^searchlight_search_cache_requests_total/ { split($1, a, "\""); v[a[2]] = $2 }
    /^searchlight_search_cache_refreshes_total/ { r = $2 }
    /^searchlight_search_cache_changes_total/ { split($1, a, "\""); c[a[2]] = $2 }
    END { printf "{\"benchmark\": \"%s\", \"hits\": %d, \"staleHits\": %d, \"misses\": %d, \"backgroundRefreshes\": %d, \"answersKept\": %d, \"answersTouched\": %d}\n", name, v["hit"], v["stale"], v["miss"], r, c["kept"], c["touched"] }'
}
warm_up() {  # every query once, as a service that has been up a while has seen them
  while read -r query; do curl -s -o /dev/null -G --data-urlencode "q=$query" "http://127.0.0.1:$port/v1/search"; done < "$work/data/queries.txt"
}
run_wrk() {  # $1: name, $2: seconds, $3: cache seconds, $4: queries file (default the rotation), $5: "slices" for one-off
  wrk -t2 -c64 -d"$2s" --timeout 5s -s "$work/queries.lua" "http://127.0.0.1:$port" -- "$work/data/${4:-queries.txt}" 2 "${5:-}" \
    | grep '^{' | sed "s/^{/{\"benchmark\": \"$1\", \"cacheSeconds\": $3, \"connections\": 64, /"
}
start_server 0
run_wrk wrk-search-one-off "$duration" 0 distinct-queries.txt slices
run_wrk wrk-search "$duration" 0
stop_server
start_server 60
warm_up
cache_figures cache-after-warm-up
run_wrk wrk-search "$duration" 60
cache_figures cache
stop_server

# 3. Over HTTP while a crawl writes to the same index (a slow, polite crawl of the
# synthetic web, so that it writes for the whole run), cache off and on: one-off queries
# (their quiet figure is wrk-search-one-off above), then the rotation.
web="$work/web"
if [ ! -d "$web" ]; then python3 "$bench/synthweb.py" "$web" --hosts 20 --pages 500 --kb 40 --scheme http --origin-suffix ":$web_port" >&2; fi
nginx_pid=$(bash "$bench/serve_web.sh" "$web" "$web_port" "$work/nginx")
seeds=(); resolve=()
for dir in "$web"/*/; do
  host=$(basename "$dir"); seeds+=("http://$host:$web_port/"); resolve+=(--resolve "$host:$web_port:127.0.0.1")
done
for cache in 0 60; do
  start_server "$cache"
  [ "$cache" = 0 ] || warm_up
  rm -f "$work/data/frontier.sqlite"*
  nice -n "${CRAWL_NICE:-0}" "$searchlight" crawl "${seeds[@]}" --data "$work/data" --delay "${CRAWL_DELAY:-0.1}" --per-host 1 --allow-private --no-warc "${resolve[@]}" \
    --max-time "$((write_duration + 10))" --json > "$work/crawl-report.json" &
  crawl_pid=$!
  sleep 2
  run_wrk wrk-search-one-off-while-crawling "$((write_duration / 2))" "$cache" distinct-queries.txt slices
  run_wrk wrk-search-while-crawling "$((write_duration / 2))" "$cache"
  [ "$cache" = 0 ] || cache_figures cache
  wait "$crawl_pid" || true
  crawl_pid=""
  python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(json.dumps({'benchmark': 'concurrent-crawl', 'fetched': r['fetched'], 'indexed': r['indexed'], 'seconds': r['seconds']}))" "$work/crawl-report.json"
  stop_server
done
