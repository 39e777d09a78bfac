#!/usr/bin/env python3
"""One-off searches over HTTP with the result cache off, next to Tantivy in process, on the
very same items and queries.

    Benchmarks/served_vs_tantivy.py SEARCHLIGHT SEARCHLIGHT_BENCH WORK_DIR [--items 300000] [--port 18095]
    Benchmarks/served_vs_tantivy.py SEARCHLIGHT SEARCHLIGHT_BENCH WORK_DIR --existing OURS_DIR TANTIVY_DIR QUERIES_JSON

(`--existing`: indexes already built, e.g. `scale_curve.py`'s ours-N, tantivy-N and queries-N.json.
`--drop-caches`: the page cache dropped before the server starts and again before Tantivy's
index opens, so that each engine's first pass starts cold; needs root.)

Makes the index benchmark's corpus (`searchlight-bench serve-index`, and the same documents
exported for Tantivy), then asks 300 one-off queries — 280 of the standard set's 1–2 words
from the 5,000 most frequent, and the 20 most frequent words — one at a time:
  - of `searchlight serve --cache-seconds 0` over HTTP on 127.0.0.1 (a kept-alive
    connection; the time from sending the request to the last byte of the answer), and
  - of Tantivy 0.27 in this process (BM25 over title, description, keywords and body with
    the index benchmark's boosts, the words OR'ed; top 10),
first on the freshly started server and the freshly opened Tantivy index (one-off queries:
every term read for the first time in the process), then again, and prints one JSON object
with p50 and p99 of both passes.
"""
from serve_process import start_serve
import http.client, json, os, signal, subprocess, sys, time, urllib.parse

searchlight, bench, work = sys.argv[1], sys.argv[2], sys.argv[3]
items = int(sys.argv[sys.argv.index("--items") + 1]) if "--items" in sys.argv else 300_000
port = int(sys.argv[sys.argv.index("--port") + 1]) if "--port" in sys.argv else 18095
os.makedirs(work, exist_ok=True)
cold = "--drop-caches" in sys.argv


def drop_caches():
    if cold:
        subprocess.run(["sync"], check=True)
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
existing = sys.argv[sys.argv.index("--existing") + 1:sys.argv.index("--existing") + 4] if "--existing" in sys.argv else None
if existing:
    data, peer_index, queries_file = existing
else:
    data = os.path.join(work, f"served-{items}")
    export = os.path.join(work, f"export-{items}")
    peer_index = os.path.join(work, f"tantivy-{items}")
    queries_file = os.path.join(export, "queries.json")
    if not os.path.exists(os.path.join(data, "index.sqlite")):
        subprocess.run([bench, "serve-index", data, "--items", str(items)], check=True, stdout=subprocess.DEVNULL)
    if not os.path.exists(queries_file):
        subprocess.run([bench, "index", "--sizes", str(items), "--export", export, "--export-only", "--dir", work], check=True,
                       stdout=subprocess.DEVNULL)
sets = json.load(open(queries_file))
queries = sets["standard"][:280] + sets["frequent"][:20]


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))]


drop_caches()
server = start_serve(searchlight, data, port)
try:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def ask(query):
        connection.request("GET", "/v1/search?limit=10&q=" + urllib.parse.quote(query))
        response = connection.getresponse()
        body = response.read()
        if response.status != 200:
            sys.exit(f"{query}: {response.status} {body[:200]}")

    # The first pass on the freshly started server (every term read for the first time in
    # the process), then the measured pass of the same queries.
    first = []
    for query in queries:
        started = time.perf_counter()
        ask(query)
        first.append((time.perf_counter() - started) * 1000)
    served = []
    for query in queries:
        started = time.perf_counter()
        ask(query)
        served.append((time.perf_counter() - started) * 1000)
finally:
    server.send_signal(signal.SIGTERM)
    server.wait(timeout=30)

from tantivy_corpus import BOOSTS, build

import tantivy
if not existing:
    build(export, peer_index)
drop_caches()
index = tantivy.Index.open(peer_index)
searcher = index.searcher()
parsed = [index.parse_query(q, list(BOOSTS), field_boosts=BOOSTS) for q in queries]
peer_first = []
for q in parsed:
    started = time.perf_counter()
    searcher.search(q, 10).hits
    peer_first.append((time.perf_counter() - started) * 1000)
peer = []
for q in parsed:
    started = time.perf_counter()
    searcher.search(q, 10).hits
    peer.append((time.perf_counter() - started) * 1000)

print(json.dumps({
    "benchmark": "served-vs-tantivy", "items": items if not existing else data, "queries": len(queries),
    "searchlight_http_p50_ms": round(pct(served, 0.5), 3), "searchlight_http_p99_ms": round(pct(served, 0.99), 3),
    "tantivy_in_process_p50_ms": round(pct(peer, 0.5), 3), "tantivy_in_process_p99_ms": round(pct(peer, 0.99), 3),
    "p99_ratio": round(pct(served, 0.99) / pct(peer, 0.99), 3),
    "first_pass_searchlight_http_p50_ms": round(pct(first, 0.5), 3), "first_pass_searchlight_http_p99_ms": round(pct(first, 0.99), 3),
    "first_pass_tantivy_p50_ms": round(pct(peer_first, 0.5), 3), "first_pass_tantivy_p99_ms": round(pct(peer_first, 0.99), 3),
    "first_pass_p99_ratio": round(pct(first, 0.99) / pct(peer_first, 0.99), 3),
}), flush=True)
