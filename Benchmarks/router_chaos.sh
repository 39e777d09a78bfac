#!/usr/bin/env bash
# Issue 31's fault benchmark: 4 shards x 2 replicas of `searchlight serve --store --shard`
# and a `serve --router` on 127.0.0.1 over a throwaway PostgreSQL cluster; a load of
# one-off queries through the router for DURATION seconds while one replica is SIGKILLed
# every 10 s (and started again on its data folder 5 s later, so it resumes from the log).
# Prints one JSON object: queries answered, failed (not 200), partial, and latency.
#
# usage: Benchmarks/router_chaos.sh   (PGPORT=55434 ITEMS=20000 DURATION=60 CLIENTS=4)
# Needs postgresql and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
pgport=${PGPORT:-55434}; items=${ITEMS:-20000}; seconds=${DURATION:-60}; clients=${CLIENTS:-4}
work=${WORK:-/tmp/searchlight-router-chaos}
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
[ -x "$pgbin/postgres" ] || { echo "postgresql is missing: apt-get install -y postgresql" >&2; exit 1; }

echo "building (release)…" >&2
swift build -c release --product searchlight >/dev/null
searchlight=$PWD/.build/release/searchlight

rm -rf "$work"; mkdir -p "$work"
as=(); if [ "$(id -u)" -eq 0 ]; then as=(runuser -u postgres --); chown postgres "$work"; fi
"${as[@]}" "$pgbin/initdb" -D "$work/pg" -U searchlight --auth=trust >/dev/null
"${as[@]}" "$pgbin/postgres" -D "$work/pg" -p "$pgport" -k "$work" -c listen_addresses=127.0.0.1 -c max_connections=100 \
  > "$work/pg.log" 2>&1 &
pg_pid=$!
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  kill "$pg_pid" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 50); do "$pgbin/pg_isready" -q -h 127.0.0.1 -p "$pgport" && break; sleep 0.2; done
"$pgbin/createdb" -h 127.0.0.1 -p "$pgport" -U searchlight chaos
store="postgres://searchlight@127.0.0.1:$pgport/chaos"

python3 - "$work/items.json" "$items" <<'EOF'
import json, random, sys
random.seed(31)
syllables = "ka ri to mo na se lu pi de ga vo zu bel tor man sin dra quel fen".split()
words = ["".join(random.choice(syllables) for _ in range(random.randint(2, 4))) for _ in range(5000)]
weights = [1 / (rank + 10) for rank in range(len(words))]
def text(n): return " ".join(random.choices(words, weights, k=n))
items = [{"uniqueIdentifier": f"item-{i}", "title": text(4), "contentDescription": text(20), "text": text(200),
          "webURL": f"https://chaos.example/{i}"} for i in range(int(sys.argv[2]))]
json.dump({"items": items}, open(sys.argv[1], "w"))
open(sys.argv[1] + ".queries", "w").write("\n".join(" ".join(random.sample(words[:2000], random.randint(1, 2))) for _ in range(5000)))
EOF
"$searchlight" index add "$work/items.json" --store "$store" --data "$work/admin" >/dev/null

start_node() {  # shard replica port
  local name="s$1r$2"
  "$searchlight" serve --store "$store" --shard "$1/4" --listen "127.0.0.1:$3" --node "$name" --data "$work/$name" \
    --cache-seconds 0 >> "$work/$name.log" 2>&1 &
  echo $!
}
declare -A node_pid
for shard in 0 1 2 3; do
  for replica in 0 1; do
    node_pid["$shard-$replica"]=$(start_node "$shard" "$replica" $((19100 + shard * 2 + replica)))
    pids+=("${node_pid["$shard-$replica"]}")
  done
done
"$searchlight" serve --store "$store" --router --listen 127.0.0.1:19099 --data "$work/router" > "$work/router.log" 2>&1 &
pids+=($!)
for _ in $(seq 600); do
  curl -sf http://127.0.0.1:19099/healthz | grep -q '"replicas":\[2,2,2,2\]' && break; sleep 0.2
done
curl -sf http://127.0.0.1:19099/healthz >&2 || { echo "the router never saw 4 shards of 2 replicas" >&2; exit 1; }

python3 - "$work/items.json.queries" "$seconds" "$clients" > "$work/load.json" <<'EOF' &
import json, sys, threading, time, urllib.parse, urllib.request
queries = open(sys.argv[1]).read().split("\n"); seconds = float(sys.argv[2]); clients = int(sys.argv[3])
lock = threading.Lock(); stats = {"answered": 0, "failed": 0, "partial": 0, "latencies": []}
end = time.time() + seconds
def run(offset):
    i = offset
    while time.time() < end:
        q = queries[i % len(queries)]; i += clients
        started = time.time()
        try:
            with urllib.request.urlopen("http://127.0.0.1:19099/v1/search?q=" + urllib.parse.quote(q), timeout=10) as r:
                body = json.load(r); ok = r.status == 200
        except Exception:
            body, ok = {}, False
        with lock:
            stats["answered"] += 1
            stats["latencies"].append((time.time() - started) * 1000)
            if not ok: stats["failed"] += 1
            elif body.get("partial"): stats["partial"] += 1
threads = [threading.Thread(target=run, args=(n,)) for n in range(clients)]
[t.start() for t in threads]; [t.join() for t in threads]
lat = sorted(stats["latencies"])
print(json.dumps({"benchmark": "router-chaos", "seconds": seconds, "clients": clients, "queries": stats["answered"],
                  "failed": stats["failed"], "partial": stats["partial"],
                  "p50_ms": lat[len(lat) // 2], "p99_ms": lat[int(len(lat) * 0.99)]}))
EOF
load=$!
kills=0
end=$((SECONDS + seconds))
turn=0
# A kill every 10 s: at 5 s, 15 s, 25 s… each replica back 5 s after its kill.
while [ $SECONDS -lt $((end - 5)) ]; do
  sleep 5
  shard=$((turn % 4)); replica=$(((turn / 4) % 2)); turn=$((turn + 1))
  kill -9 "${node_pid["$shard-$replica"]}" 2>/dev/null || true
  kills=$((kills + 1))
  sleep 5
  node_pid["$shard-$replica"]=$(start_node "$shard" "$replica" $((19100 + shard * 2 + replica)))
  pids+=("${node_pid["$shard-$replica"]}")
done
wait "$load"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['items']=int(sys.argv[2]); d['replicas_killed']=int(sys.argv[3]); print(json.dumps(d))" \
  "$work/load.json" "$items" "$kills"
