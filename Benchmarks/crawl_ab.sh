#!/usr/bin/env bash
# Two builds of searchlight crawling the same web in turns, CPU-seconds per page of each, so
# that a change is judged against its baseline in one run (a shared 2-core machine drifts by
# 10-20 % between runs; alternating spreads the drift over both). The web is crawl_cpu.sh's:
# 20 hosts x 500 pages of ~40 KB from the Zipf-vocabulary generator, nginx on loopback.
#
# usage: Benchmarks/crawl_ab.sh BASE_BINARY NEW_BINARY [ROUNDS] [-- extra crawl flags]
# (a baseline binary: `git worktree add /tmp/base REV && swift build -c release` there)
# Prints one line per crawl, then each binary's median; needs nginx-light and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
base=$1; new=$2; rounds=${3:-3}
shift $(( $# >= 3 ? 3 : $# )); [ "${1:-}" = "--" ] && shift
extra=("$@")
bench=${BENCH:-../shared/bench}
work=$(mktemp -d); chmod 755 "$work"
. Benchmarks/served_web.sh
serve_synthetic_web "$work"
trap 'kill "$nginx_pid" 2>/dev/null || true; rm -rf "$work"' EXIT

crawl() {  # $1: binary, $2: label; prints "label us_per_page user sys pages_per_s rss_mb indexed"
  rm -rf "$work/data"
  /usr/bin/time -f "%U %S %e %M" -o "$work/time" "$1" crawl "${seeds[@]}" --data "$work/data" "${args[@]}" --allow-private \
    --delay 0 --per-host 8 --concurrency 64 --max-pages 20000 --json ${extra[@]+"${extra[@]}"} > "$work/report.json" 2>/dev/null
  python3 - "$2" "$work/time" "$work/report.json" <<'PY'
import json, sys
user, system, wall, rss = open(sys.argv[2]).read().split()
indexed = json.load(open(sys.argv[3]))["indexed"]
per = lambda seconds: float(seconds) / indexed * 1e6
print(f"{sys.argv[1]} {per(user) + per(system):.0f} {per(user):.0f} {per(system):.0f} {indexed / float(wall):.0f} {int(rss) // 1024} {indexed}")
PY
}

for _ in $(seq "$rounds"); do
  crawl "$base" base
  crawl "$new" new
done | tee "$work/rows" | awk '{printf "%s: %s us CPU/page (user %s, sys %s), %s pages/s, peak RSS %s MB, %s indexed\n", $1, $2, $3, $4, $5, $6, $7}'
python3 - "$work/rows" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
median = {label: statistics.median(float(r[1]) for r in rows if r[0] == label) for label in ("base", "new")}
print(f"median us CPU/page: base {median['base']:.0f}, new {median['new']:.0f} ({median['new'] / median['base'] - 1:+.1%})")
PY
