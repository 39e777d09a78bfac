#!/usr/bin/env python3
"""`searchlight serve`'s memory on a large index while every kind of search runs.

    Benchmarks/serve_memory.py SEARCHLIGHT DATA_DIR QUERIES_JSON [--port 18097] [--per-set 200]

Starts `searchlight serve --data DATA_DIR --cache-seconds 0` (DATA_DIR/index.sqlite: e.g.
`searchlight-bench serve-index` or `scale_curve.py`'s ours-N folder), then asks over HTTP,
one at a time, PER_SET queries of each set of QUERIES_JSON (what `serve-index --export`
wrote) plain, with `facets=contentType,domain`, filtered by `contentType`, and near a place
(a new place each time, 10 km) — the content types and places `searchlight-bench
serve-index --attributes` gives its items (`public.type0`…`9`, a square of 10° from 40° N,
0° E); on an index without them the filter and the circle match nothing — sampling the server's `/proc/PID/status` after each
request. Prints one JSON object: the peak resident memory split as Linux counts it —
anonymous (the process's own: caches, heaps; what the documented ceiling bounds) and
file-backed (mapped segment and SQLite pages: the page cache's, which the kernel takes back
under pressure) — and p50/p99 per kind of search.
"""
from serve_process import start_serve
import http.client, json, os, random, signal, subprocess, sys, time, urllib.parse

searchlight, data, queries_file = sys.argv[1], sys.argv[2], sys.argv[3]
port = int(sys.argv[sys.argv.index("--port") + 1]) if "--port" in sys.argv else 18097
per_set = int(sys.argv[sys.argv.index("--per-set") + 1]) if "--per-set" in sys.argv else 200
sets = json.load(open(queries_file))


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))] if values else None


def memory(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "RssAnon", "RssFile", "VmHWM"):
                fields[name] = int(value.split()[0]) / 1024
    return fields


peak = {"VmRSS": 0, "RssAnon": 0, "RssFile": 0}
latencies = {}
server = start_serve(searchlight, data, port, timeout=600)
try:
    started = memory(server.pid)
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    places = random.Random(7)
    for name in ("standard", "frequent", "cjk"):
        for kind in ("plain", "facets", "filter", "near"):
            for query in sets[name][:per_set]:
                parameters = {"q": query, "limit": "10"}
                if kind == "facets":
                    parameters["facets"] = "contentType,domain"
                elif kind == "filter":
                    parameters["contentType"] = "public.type3"
                elif kind == "near":
                    parameters["near"] = f"{places.uniform(40, 50):.4f},{places.uniform(0, 10):.4f}"
                t = time.perf_counter()
                connection.request("GET", "/v1/search?" + urllib.parse.urlencode(parameters))
                response = connection.getresponse()
                response.read()
                if response.status != 200:
                    sys.exit(f"{kind} {query}: {response.status}")
                latencies.setdefault(f"{name}_{kind}", []).append((time.perf_counter() - t) * 1000)
                now = memory(server.pid)
                for key in peak:
                    peak[key] = max(peak[key], now.get(key, 0))
finally:
    server.send_signal(signal.SIGTERM)
    server.wait(timeout=60)

report = {"benchmark": "serve-memory", "data": data, "after_start_rss_mb": round(started.get("VmRSS", 0), 1),
          "peak_rss_mb": round(peak["VmRSS"], 1), "peak_anonymous_mb": round(peak["RssAnon"], 1),
          "peak_file_backed_mb": round(peak["RssFile"], 1)}
for key, values in latencies.items():
    report[f"{key}_p50_ms"] = round(pct(values, 0.5), 2)
    report[f"{key}_p99_ms"] = round(pct(values, 0.99), 2)
print(json.dumps(report), flush=True)
