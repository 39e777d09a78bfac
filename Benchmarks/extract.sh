#!/usr/bin/env bash
# Extraction throughput next to libxml2's bare SAX push parser, same bytes, same run.
# usage: Benchmarks/extract.sh [HOSTS] [PAGES]   (defaults 4 × 300 pages of ~40 KB)
set -euo pipefail
cd "$(dirname "$0")/.."
synthweb="${SYNTHWEB:-../shared/bench/synthweb.py}"
corpus="${CORPUS:-/tmp/searchlight-bench-web}"
if [ ! -d "$corpus" ]; then
  python3 "$synthweb" "$corpus" --hosts "${1:-4}" --pages "${2:-300}" --kb 40 --scheme http --origin-suffix :8080
fi
swift build -c release --product searchlight-bench >/dev/null
.build/release/searchlight-bench extract "$corpus" --rounds "${ROUNDS:-5}"
