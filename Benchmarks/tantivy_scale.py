#!/usr/bin/env python3
"""Tantivy's side of the scale curve (`scale_curve.py`), one step per process.

    Benchmarks/tantivy_scale.py build EXPORT_DIR INDEX_DIR [--attributes]
    Benchmarks/tantivy_scale.py query INDEX_DIR QUERIES_JSON SET [--rounds 3]

build: indexes EXPORT_DIR/corpus.jsonl (what `searchlight-bench serve-index --export` wrote)
with title, description, keywords and body indexed with positions and stored (as
Searchlight stores its items), the `default` tokenizer, two writer threads; prints the
build's wall and CPU seconds, peak resident memory and the index's bytes. `--attributes`
adds filter-profile's filter attributes as fast fields (for `tantivy_filters.py`).

query: opens the index in this fresh process and runs one query set (BM25 with the index
benchmark's field boosts, words OR'ed, top 10, one thread): the time to open, the first
query, the first pass over the set (every term read for the first time in this process)
and the warm rounds after it, p50/p99 in ms. Drop the page cache before it for a cold start.
"""
import json, os, resource, sys, time
import tantivy
from tantivy_corpus import BOOSTS, build


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))]


def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def folder_bytes(path):
    return sum(os.path.getsize(os.path.join(root, name)) for root, _, names in os.walk(path) for name in names)


if sys.argv[1] == "build":
    export, target = sys.argv[2], sys.argv[3]
    cpu_start = cpu()
    _, count, wall = build(export, target, stored=True, with_attributes="--attributes" in sys.argv)
    used = cpu() - cpu_start
    print(json.dumps({"engine": "tantivy", "items": count, "build_wall_s": round(wall, 1), "build_cpu_s": round(used, 1),
                      "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                      "index_bytes": folder_bytes(target), "bytes_per_item": round(folder_bytes(target) / max(1, count), 1)}))
elif sys.argv[1] == "query":
    directory, queries_file, name = sys.argv[2], sys.argv[3], sys.argv[4]
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 3
    queries = json.load(open(queries_file))[name]
    t = time.perf_counter()
    index = tantivy.Index.open(directory)
    searcher = index.searcher()
    opening = (time.perf_counter() - t) * 1000
    first_pass, warm, first = [], [], None
    for turn in range(rounds):
        for q in queries:
            t = time.perf_counter()
            searcher.search(index.parse_query(q, list(BOOSTS), field_boosts=BOOSTS), 10).hits
            ms = (time.perf_counter() - t) * 1000
            if first is None:
                first = ms
            (first_pass if turn == 0 else warm).append(ms)
    warm = warm or first_pass
    print(json.dumps({"engine": "tantivy", "set": name, "queries": len(queries), "open_ms": round(opening, 2),
                      "first_query_ms": round(first, 2), "first_pass_p50_ms": round(pct(first_pass, 0.5), 3),
                      "first_pass_p99_ms": round(pct(first_pass, 0.99), 3), "p50_ms": round(pct(warm, 0.5), 3),
                      "p99_ms": round(pct(warm, 0.99), 3),
                      "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}))
