#!/usr/bin/env bash
# What rendering costs (issue 41): a site of N client-rendered shells (each fetches its
# recipe as JSON and writes title, banner, JSON-LD and text into #root), crawled once with
# --render auto (every page is a shell, so every page renders) and once with --render never,
# from a static server on 127.0.0.1. Prints wall time, the machine's CPU seconds over the run
# (/proc/stat, so Chromium's renderer processes count), pages rendered, and the browser's
# peak memory (the proportional set size of every chromium process, sampled every 0.5 s).
# usage: Benchmarks/render.sh BINARY [PAGES]
set -euo pipefail
binary=$(realpath "$1")
pages=${2:-200}
work=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/site/r" "$work/site/data"
{
  echo '<!doctype html><html><head><title>Recipes</title></head><body><main><h1>All recipes</h1>'
  for i in $(seq 1 "$pages"); do echo "<a href=\"/r/$i.html\">Recipe $i</a>"; done
  echo '</main></body></html>'
} > "$work/site/index.html"
cat > "$work/site/app.js" <<'JS'
const id = location.pathname.match(/(\d+)/)[1];
fetch('/data/' + id + '.json').then(r => r.json()).then(recipe => {
  document.title = recipe.name;
  const meta = document.createElement('meta');
  meta.name = 'apple-itunes-app';
  meta.content = 'app-id=123456789, app-argument=tarts://recipe/' + id;
  document.head.appendChild(meta);
  const ld = document.createElement('script');
  ld.type = 'application/ld+json';
  ld.textContent = JSON.stringify({'@context': 'https://schema.org', '@type': 'Recipe', name: recipe.name});
  document.head.appendChild(ld);
  document.getElementById('root').innerHTML = '<article><h1>' + recipe.name + '</h1><p>' + recipe.text + '</p></article>';
});
JS
for i in $(seq 1 "$pages"); do
  echo '<!doctype html><html><head><title>Loading</title><script src="/app.js" defer></script></head><body><div id="root"></div></body></html>' > "$work/site/r/$i.html"
  printf '{"name": "Recipe %d", "text": "Step one of recipe %d: rub the butter into the flour. Step two: add the fruit, fold, rest and bake until golden."}' "$i" "$i" > "$work/site/data/$i.json"
done
port=$((20000 + RANDOM % 20000))
(cd "$work/site" && exec python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>&1) &
server=$!
for _ in $(seq 1 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done

cpu() { awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat; }
peak_browser() {
  local peak=0
  while kill -0 "$1" 2>/dev/null; do
    local rss
    rss=$(for pid in $(pgrep -x chromium); do cat /proc/$pid/smaps_rollup 2>/dev/null; done | awk '/^Pss:/{s+=$2} END {print s+0}')
    [ "$rss" -gt "$peak" ] && peak=$rss
    sleep 0.5
  done
  echo "$peak"
}
for mode in never auto; do
  data="$work/data-$mode"
  start_cpu=$(cpu); start=$(date +%s.%N)
  "$binary" crawl "http://127.0.0.1:$port/" --data "$data" --allow-private --delay 0 --per-host 4 --no-warc --no-sitemaps --no-trap-detection \
    --render "$mode" --json --progress none > "$work/report-$mode.json" &
  crawl=$!
  peak=$(peak_browser "$crawl")
  wait "$crawl"
  end=$(date +%s.%N); end_cpu=$(cpu)
  python3 - "$work/report-$mode.json" "$mode" "$start" "$end" "$start_cpu" "$end_cpu" "$peak" <<'PY'
import json, os, sys
report = json.load(open(sys.argv[1]))
mode, start, end, c0, c1, peak = sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
cpu = (c1 - c0) / os.sysconf("SC_CLK_TCK")
print(f"--render {mode}: {report['fetched']} fetched, {report['indexed']} indexed, {report['rendered']} rendered, "
      f"failures {report['renderFailures']}, wall {end - start:.2f} s, machine CPU {cpu:.2f} s, "
      f"render time {report['renderSeconds']:.1f} s, browser peak PSS {peak / 1024:.0f} MiB")
PY
done
