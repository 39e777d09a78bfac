#!/usr/bin/env bash
# Crawl throughput end to end (fetch + extract + index + WARC) next to `curl --parallel`
# fetching the same URLs from the same nginx in the same run; then, with `frontier`, a
# crawl over a 1,000,000-URL frontier with its memory sampled every second.
#
# usage: Benchmarks/crawl.sh [web|frontier|all]   (HOSTS=20 PAGES=500 KB=40 PORT=18080 ROUNDS=3)
# Needs nginx (apt-get install -y nginx-light) and python3. Prints one JSON object per
# measurement on stdout; progress goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-all}
hosts=${HOSTS:-20}; pages=${PAGES:-500}; kb=${KB:-40}; port=${PORT:-18080}; rounds=${ROUNDS:-3}
bench=${BENCH:-../shared/bench}
work=${WORK:-/tmp/searchlight-crawl-bench}
mkdir -p "$work"
command -v nginx >/dev/null || { echo "nginx is missing: apt-get install -y nginx-light" >&2; exit 1; }

echo "building searchlight (release)…" >&2
swift build -c release --product searchlight >/dev/null
searchlight=$PWD/.build/release/searchlight
nginx_pid=""
stop_nginx() { if [ -n "$nginx_pid" ]; then kill "$nginx_pid" 2>/dev/null || true; nginx_pid=""; sleep 0.3; fi; }
trap stop_nginx EXIT

# Runs "$@" and prints "SECONDS PEAK_RSS_KB" on fd 3 (sampled from /proc every 0.2 s,
# the children included).
measure() {
  local start end peak=0 rss pid
  start=$(date +%s.%N)
  "$@" &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
    [ "${rss:-0}" -gt "$peak" ] && peak=$rss
    sleep 0.2
  done
  wait "$pid"
  end=$(date +%s.%N)
  echo "$(echo "$end - $start" | bc) $peak" >&3
}

web_benchmark() {
  local web="$work/web-$hosts-$pages-$kb"
  if [ ! -d "$web" ]; then
    python3 "$bench/synthweb.py" "$web" --hosts "$hosts" --pages "$pages" --kb "$kb" --scheme http --origin-suffix ":$port" >&2
  fi
  nginx_pid=$(bash "$bench/serve_web.sh" "$web" "$port" "$work/nginx")
  local resolve=() seeds=() curlconfig="$work/curl.conf" count=0
  : > "$curlconfig"
  for dir in "$web"/*/; do
    local host
    host=$(basename "$dir")
    resolve+=(--resolve "$host:$port:127.0.0.1")
    seeds+=("http://$host:$port/")
    for file in "$dir"items/*.html "$dir"index.html; do
      echo "url = \"http://$host:$port/${file#"$dir"}\"" >> "$curlconfig"
      echo "output = \"/dev/null\"" >> "$curlconfig"
      count=$((count + 1))
    done
  done
  for round in $(seq 1 "$rounds"); do
    local data="$work/data"
    rm -rf "$data"
    # The baseline: curl fetching every page, 32 at once, nothing else.
    exec 3>"$work/measure"
    measure curl --silent --parallel --parallel-max 32 --connect-to "::127.0.0.1:$port" --config "$curlconfig"
    exec 3>&-
    read -r curl_seconds _ < "$work/measure"
    # Searchlight: robots.txt, sitemaps, every page fetched, extracted, indexed and archived.
    exec 3>"$work/measure"
    measure "$searchlight" crawl "${seeds[@]}" --data "$data" --delay 0 --concurrency 32 --allow-private \
      "${resolve[@]}" --max-pages-per-host 100000 --json > "$work/report.json"
    exec 3>&-
    read -r seconds peak < "$work/measure"
    python3 - "$work/report.json" "$seconds" "$peak" "$curl_seconds" "$count" "$round" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
seconds, peak, curl_seconds, count, round_ = float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
fetched = report["fetched"]
print(json.dumps({
    "benchmark": "crawl-web", "round": round_, "pages": fetched, "indexed": report["indexed"],
    "seconds": round(seconds, 2), "pagesPerSecond": round(fetched / seconds, 1),
    "peakRSSMB": round(peak / 1024, 1), "curlPages": count, "curlSeconds": round(curl_seconds, 2),
    "curlPagesPerSecond": round(count / curl_seconds, 1), "ratioToCurl": round((fetched / seconds) / (count / curl_seconds), 3),
    "skipped": report["skipped"],
}))
PY
  done
  stop_nginx
}

frontier_benchmark() {
  # One host whose sitemap index lists 20 sitemaps × 50,000 URLs; every URL answers with
  # the same small page, so the crawl has a million URLs to choose from.
  local web="$work/huge" host="huge.test"
  if [ ! -d "$web/$host" ]; then
    mkdir -p "$web/$host"
    python3 - "$web/$host" "$port" <<'PY'
import sys
root, port = sys.argv[1], sys.argv[2]
origin = f"http://huge.test:{port}"
with open(f"{root}/robots.txt", "w") as f:
    f.write(f"User-agent: *\nSitemap: {origin}/sitemap-index.xml\n")
with open(f"{root}/sitemap-index.xml", "w") as f:
    f.write('<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')
    for s in range(20):
        f.write(f"<sitemap><loc>{origin}/sitemap-{s}.xml</loc></sitemap>\n")
    f.write("</sitemapindex>\n")
for s in range(20):
    # At the root: a sitemap may only list URLs under its own folder.
    with open(f"{root}/sitemap-{s}.xml", "w") as f:
        f.write('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')
        for i in range(s * 50000, (s + 1) * 50000):
            f.write(f"<url><loc>{origin}/p/{i}</loc></url>\n")
        f.write("</urlset>\n")
for name in ("page.html", "index.html"):
    with open(f"{root}/{name}", "w") as f:
        f.write("<!DOCTYPE html><html><head><title>A page of a million</title></head><body><p>River stone garden.</p></body></html>")
PY
  fi
  mkdir -p "$work/nginx-huge"
  cat > "$work/nginx-huge/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx-huge/nginx.pid;
error_log $work/nginx-huge/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 100000;
  types { text/html html; application/xml xml; text/plain txt; }
  server {
    listen 127.0.0.1:$port default_server;
    root $web/$host;
    location /p/ { default_type text/html; try_files /page.html =404; }
  }
}
CONF
  nginx -c "$work/nginx-huge/nginx.conf" -p "$work/nginx-huge"
  sleep 0.3
  nginx_pid=$(cat "$work/nginx-huge/nginx.pid")
  local data="$work/data-huge" seconds=${FRONTIER_SECONDS:-120}
  rm -rf "$data"
  "$searchlight" crawl "http://$host:$port/" --data "$data" --delay 0 --per-host 8 --concurrency 32 --allow-private \
    --resolve "$host:$port:127.0.0.1" --max-pages-per-host 10000000 --max-time "$seconds" --no-warc --json > "$work/report-huge.json" &
  local pid=$! samples=() rss
  while kill -0 "$pid" 2>/dev/null; do
    rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
    samples+=("${rss:-0}")
    sleep 1
  done
  wait "$pid"
  local urls
  urls=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('select count(*) from urls').fetchone()[0])" "$data/frontier.sqlite")
  python3 - "$work/report-huge.json" "$urls" "${samples[@]}" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
rss = [int(x) / 1024 for x in sys.argv[3:] if int(x) > 0]
quarter = max(1, len(rss) // 4)
print(json.dumps({
    "benchmark": "crawl-frontier", "frontierURLs": int(sys.argv[2]), "sitemapURLs": report["sitemapURLs"],
    "fetched": report["fetched"], "seconds": report["seconds"], "pagesPerSecond": report["pagesPerSecond"],
    "rssMBFirstQuarterMax": round(max(rss[:quarter]), 1), "rssMBLastQuarterMax": round(max(rss[-quarter:]), 1),
    "rssMBPeak": round(max(rss), 1), "rssMBEverySecond": [round(x) for x in rss],
}))
PY
  stop_nginx
}

case $mode in
  web) web_benchmark ;;
  frontier) frontier_benchmark ;;
  all) web_benchmark; frontier_benchmark ;;
  *) echo "usage: Benchmarks/crawl.sh [web|frontier|all]" >&2; exit 64 ;;
esac
