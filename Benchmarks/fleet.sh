#!/usr/bin/env bash
# The shared PostgreSQL store (issue 16) measured on this machine, in one run:
#   1. claims: a 200,000-URL frontier on 200 hosts, two workers claiming blocks (`fleet-claims`);
#   2. follow: 50,000 items written through the store, a search node applying the log (`fleet-follow`);
#   3. crawl: the synthetic web (20 hosts × 500 pages, nginx) crawled once on the embedded
#      SQLite store and once by two `searchlight crawl --store` workers together.
#
# usage: Benchmarks/fleet.sh   (PGPORT=55433 PORT=18080 HOSTS=20 PAGES=500 KB=40 WORKERS=2)
# Needs postgresql, nginx-light and python3. Prints one JSON object per measurement.
set -euo pipefail
cd "$(dirname "$0")/.."
pgport=${PGPORT:-55433}; port=${PORT:-18080}; hosts=${HOSTS:-20}; pages=${PAGES:-500}; kb=${KB:-40}; workers=${WORKERS:-2}
bench=${BENCH:-../shared/bench}
work=${WORK:-/tmp/searchlight-fleet-bench}
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
command -v nginx >/dev/null || { echo "nginx is missing: apt-get install -y nginx-light" >&2; exit 1; }
[ -x "$pgbin/postgres" ] || { echo "postgresql is missing: apt-get install -y postgresql" >&2; exit 1; }

echo "building (release)…" >&2
swift build -c release --product searchlight >/dev/null
swift build -c release --product searchlight-bench >/dev/null
searchlight=$PWD/.build/release/searchlight
benchbin=$PWD/.build/release/searchlight-bench

rm -rf "$work"; mkdir -p "$work"
# PostgreSQL refuses to run as root: the cluster belongs to the postgres user then.
as=(); if [ "$(id -u)" -eq 0 ]; then as=(runuser -u postgres --); chown postgres "$work"; fi
"${as[@]}" "$pgbin/initdb" -D "$work/pg" -U searchlight --auth=trust >/dev/null
"${as[@]}" "$pgbin/postgres" -D "$work/pg" -p "$pgport" -k "$work" -c listen_addresses=127.0.0.1 -c fsync=on \
  -c max_connections=50 > "$work/pg.log" 2>&1 &
pg_pid=$!
nginx_pid=""
cleanup() {
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null || true
  kill "$pg_pid" 2>/dev/null || true
  wait "$pg_pid" 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 50); do "$pgbin/pg_isready" -q -h 127.0.0.1 -p "$pgport" && break; sleep 0.2; done
store() { "$pgbin/createdb" -h 127.0.0.1 -p "$pgport" -U searchlight "$1"; echo "postgres://searchlight@127.0.0.1:$pgport/$1"; }

"$benchbin" fleet-claims "$(store claims)" --urls 200000 --hosts 200 --workers "$workers" --block 64
"$benchbin" fleet-follow "$(store follow)" --items 50000 --dir "$work"

web="$work/web"
python3 "$bench/synthweb.py" "$web" --hosts "$hosts" --pages "$pages" --kb "$kb" --scheme http --origin-suffix ":$port" >&2
nginx_pid=$(bash "$bench/serve_web.sh" "$web" "$port" "$work/nginx")
resolve=(); seeds=()
for dir in "$web"/*/; do
  host=$(basename "$dir")
  resolve+=(--resolve "$host:$port:127.0.0.1")
  seeds+=("http://$host:$port/")
done
common=(--delay 0 --concurrency 32 --allow-private --max-pages-per-host 100000 --json "${resolve[@]}")

start=$(date +%s.%N)
"$searchlight" crawl "${seeds[@]}" --data "$work/single" "${common[@]}" > "$work/single.json"
single=$(echo "$(date +%s.%N) - $start" | bc)

shared=$(store crawl)
start=$(date +%s.%N)
pids=()
for w in $(seq "$workers"); do
  "$searchlight" crawl "${seeds[@]}" --store "$shared" --data "$work/worker$w" "${common[@]}" > "$work/worker$w.json" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
fleet=$(echo "$(date +%s.%N) - $start" | bc)

python3 - "$work" "$workers" "$single" "$fleet" <<'PY'
import json, sys
work, workers, single, fleet = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
one = json.load(open(f"{work}/single.json"))
reports = [json.load(open(f"{work}/worker{w}.json")) for w in range(1, workers + 1)]
fetched = sum(r["fetched"] for r in reports)
indexed = sum(r["indexed"] for r in reports)
print(json.dumps({
    "benchmark": "fleet-crawl", "workers": workers,
    "sqlite_pages": one["fetched"], "sqlite_indexed": one["indexed"], "sqlite_seconds": round(single, 2),
    "sqlite_pages_per_s": round(one["fetched"] / single, 1),
    "fleet_pages": fetched, "fleet_indexed": indexed, "fleet_seconds": round(fleet, 2),
    "fleet_pages_per_s": round(fetched / fleet, 1),
    "fleet_per_worker": [r["fetched"] for r in reports],
    "ratio_fleet_to_sqlite": round((fetched / fleet) / (one["fetched"] / single), 3),
}))
PY
