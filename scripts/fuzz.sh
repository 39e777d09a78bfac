#!/usr/bin/env bash
# Fuzzes Searchlight's parsers of untrusted input with libFuzzer and AddressSanitizer.
#
#   scripts/fuzz.sh [--seconds N] [--jobs N] [TARGET ...]    (default: every target, 60 s each)
#
# Builds the `searchlight-fuzz` product instrumented (--sanitize fuzzer --sanitize address,
# in .build-fuzz, apart from the normal build), then runs each target for N seconds on a
# working copy of its seed corpus (Fuzz/Corpus/TARGET; the seeds in the repository are never
# changed). A crash, a leak, a timeout of a single input (10 s) or more than 2 GB of memory
# stops with the input saved under .build-fuzz/artifacts/TARGET/ and a non-zero exit.
# Targets: markup json-strict json-lenient robots sitemap association push-item query url
# media-type date engagement-token http-framing postings shard-answer devtools indexnow.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60
jobs=1
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
if [ ${#targets[@]} -eq 0 ]; then
  targets=(markup json-strict json-lenient robots sitemap association push-item query url media-type date engagement-token http-framing postings shard-answer devtools indexnow)
fi
build=.build-fuzz
swift build -c release --build-path "$build" --product searchlight-fuzz \
  --sanitize fuzzer --sanitize address -Xswiftc -DFUZZING -Xswiftc -g >&2
binary="$build/release/searchlight-fuzz"
status=0
for target in "${targets[@]}"; do
  seeds="Fuzz/Corpus/$target"
  [ -d "$seeds" ] || { echo "no seed corpus for '$target' ($seeds)" >&2; exit 64; }
  work="$build/corpus/$target"
  artifacts="$build/artifacts/$target"
  mkdir -p "$work" "$artifacts"
  max_len=4096
  case "$target" in markup|sitemap) max_len=65536 ;; json-*|push-item|association|robots|shard-answer) max_len=16384 ;; esac
  echo "fuzzing $target for ${seconds}s" >&2
  log="$build/$target.log"
  # With -jobs libFuzzer writes fuzz-N.log into the working directory: only ask for it
  # when there is more than one job, and then from the build folder.
  parallel=()
  [ "$jobs" -gt 1 ] && parallel=(-jobs="$jobs" -workers="$jobs")
  if SEARCHLIGHT_FUZZ_TARGET="$target" ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
      "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" \
      "${parallel[@]}" -print_final_stats=1 -artifact_prefix="$artifacts/" "$work" "$seeds" > "$log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | awk '{s += $2} END {print s + 0}')
    echo "$target: ${runs} inputs in ${seconds}s, no crash" >&2
  else
    echo "$target: FAILED; see $log and $artifacts" >&2
    tail -40 "$log" >&2
    status=1
  fi
done
exit $status
