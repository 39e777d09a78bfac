#!/usr/bin/env python3
"""The peer search engine on the very documents and queries of the index benchmark.

    Benchmarks/tantivy_same_corpus.py EXPORT_DIR WORK_DIR

EXPORT_DIR is what `searchlight-bench index --export DIR` wrote: corpus.jsonl (one JSON
array per line: id, title, description, keywords, body) and queries.json (query sets by
name). Indexes the corpus in Tantivy (BM25, field boosts title 10, keywords 5,
description 3, body 1; the words of a query OR'ed, as Searchlight ranks them, and again all
required), then runs each query set on
one thread, top 10, after one unmeasured pass (as the Swift side is measured warm), and
prints one JSON object: documents/s and p50/p99 per set. Needs `pip install tantivy`.
"""
import json, os, shutil, sys, time
import tantivy

export, work = sys.argv[1], sys.argv[2]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
sb = tantivy.SchemaBuilder()
for field in ("title", "description", "keywords", "body"):
    sb.add_text_field(field, stored=False)
sb.add_integer_field("id", stored=True)
schema = sb.build()
index = tantivy.Index(schema, path=work)
writer = index.writer(heap_size=512_000_000, num_threads=2)
started = time.perf_counter()
count = 0
with open(os.path.join(export, "corpus.jsonl")) as corpus:
    for line in corpus:
        i, title, description, keywords, body = json.loads(line)
        writer.add_document(tantivy.Document(id=i, title=title, description=description, keywords=keywords, body=body))
        count += 1
writer.commit()
writer.wait_merging_threads()
indexing = time.perf_counter() - started
index.reload()
searcher = index.searcher()
with open(os.path.join(export, "queries.json")) as f:
    sets = json.load(f)
boosts = {"title": 10.0, "keywords": 5.0, "description": 3.0, "body": 1.0}
report = {"engine": "tantivy", "version": getattr(tantivy, "__version__", "?"), "docs": count, "docs_per_s": round(count / indexing)}

def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))]

for name, queries in sets.items():
    for mode, conjunction in (("", False), ("_and", True)):
        parsed = [index.parse_query(q, list(boosts), field_boosts=boosts, conjunction_by_default=conjunction) for q in queries]
        for q in parsed:
            searcher.search(q, 10).hits
        latencies = []
        for q in parsed:
            t = time.perf_counter()
            searcher.search(q, 10).hits
            latencies.append((time.perf_counter() - t) * 1000)
        report[f"{name}{mode}_p50_ms"] = round(pct(latencies, 0.5), 3)
        report[f"{name}{mode}_p99_ms"] = round(pct(latencies, 0.99), 3)
print(json.dumps(report), flush=True)
