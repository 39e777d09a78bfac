#!/usr/bin/env bash
# Where a crawl's CPU goes, by stage (issue 30): the synthetic web of crawl_cpu.sh (20 hosts x
# 500 pages of ~40 KB, nginx on loopback) crawled once under `perf record --call-graph dwarf`,
# each sample placed in the stage of the innermost Searchlight function on its stack
# (Benchmarks/crawl_stages.py: a libc, SQLite, libxml2 or kernel frame counts for the
# Searchlight code that called it; standard-library code for its caller).
#
# usage: Benchmarks/crawl_stages.sh   (FREQ=199; needs nginx-light, linux-perf, python3)
# Prints the table of stages with their share of samples; the raw profile stays in $WORK.
set -euo pipefail
cd "$(dirname "$0")/.."
bench=${BENCH:-../shared/bench}
freq=${FREQ:-199}
work=${WORK:-/tmp/searchlight-crawl-stages}
command -v nginx >/dev/null || { echo "nginx is missing: apt-get install -y nginx-light" >&2; exit 1; }
command -v perf >/dev/null || { echo "perf is missing: apt-get install -y linux-perf" >&2; exit 1; }
echo "building (release)…" >&2
swift build -c release --product searchlight >/dev/null
searchlight=$PWD/.build/release/searchlight

rm -rf "$work"; mkdir -p "$work"; chmod 755 "$work"
. Benchmarks/served_web.sh
serve_synthetic_web "$work"
trap 'kill "$nginx_pid" 2>/dev/null || true' EXIT

perf record -q -F "$freq" --call-graph dwarf,16384 -o "$work/perf.data" -- \
  "$searchlight" crawl "${seeds[@]}" --data "$work/data" "${args[@]}" --allow-private \
  --delay 0 --per-host 8 --concurrency 64 --max-pages 20000 --json > "$work/crawl.json" 2>/dev/null
perf script -i "$work/perf.data" -F comm,ip,sym,dso 2>/dev/null > "$work/stacks.txt"

python3 Benchmarks/crawl_stages.py "$work/stacks.txt" "$work/crawl.json"
