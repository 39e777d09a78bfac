# Sourced by the crawl benchmarks: crawl_cpu.sh's web (20 hosts x 500 pages of ~40 KB from
# the Zipf-vocabulary generator) written under $1/web and served by nginx on a random
# loopback port. Sets `port`, `nginx_pid`, `args` (a --resolve per host) and `seeds`.
# usage: . Benchmarks/served_web.sh WORK_DIR   (needs $bench: ../shared/bench)
serve_synthetic_web() {
  port=$((20000 + RANDOM % 20000))
  python3 "$bench/synthweb.py" "$1/web" --hosts 20 --pages 500 --kb 40 --scheme http --origin-suffix ":$port" >/dev/null
  nginx_pid=$(bash "$bench/serve_web.sh" "$1/web" "$port" "$1/ng")
  args=(); seeds=()
  for h in $(ls "$1/web"); do args+=(--resolve "$h:$port:127.0.0.1"); seeds+=("http://$h:$port/"); done
}
