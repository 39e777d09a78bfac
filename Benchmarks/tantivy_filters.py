#!/usr/bin/env python3
"""Tantivy's side of `searchlight-bench filter-profile`: the same filtered, faceted and `near`
searches over an index built by `tantivy_scale.py build … --attributes` (the same documents
with the same attributes, as fast fields).

    Benchmarks/tantivy_filters.py INDEX_DIR QUERIES_JSON SET [--rounds 3]

Each query of the set is searched unfiltered and under each filter, the cases of a query one
after the other, round by round; the first round (which reads each filter's columns for the
first time) is not measured, its first query's time reported apart — as filter-profile does.
BM25 with the index benchmark's field boosts, words OR'ed, top 10, one thread. How each case
is asked, as a Tantivy user would:
- a filter is a `Must` clause beside the text query, scored 0 (`const_score_query`);
- facets are a `terms` aggregation over the fast fields (`Searcher.aggregate`) beside the
  top-10 search: tantivy-py runs them as two passes (Rust could collect both in one), so the
  aggregation's own time is reported apart as well;
- `near` is a box (two fast-field range queries) around the circle: Tantivy has no circle
  filter, and the box holds 4/π the circle's items;
- there is no `sort=distance` (no geo sort in Tantivy): those two cases are not run.
Prints one JSON line per case: p50/p99 ms, the p99 against the unfiltered one, the first use.
"""
import json, math, sys, time
import tantivy
from tantivy_corpus import BOOSTS


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))]


directory, queries_file, name = sys.argv[1], sys.argv[2], sys.argv[3]
rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 3
queries = json.load(open(queries_file))[name]
index = tantivy.Index.open(directory)
schema = index.schema
searcher = index.searcher()


def term(field, value):
    return tantivy.Query.term_query(schema, field, value, index_option="basic")


def box(number, radius, moving):
    """The box around filter-profile's circle for query `number` (its centre moves with
    the query when `moving`)."""
    step = (number % 97) * 0.05 if moving else 0
    lat, lon = 45 + step / 2, 5 + step
    dlat = radius / 111.195
    dlon = dlat / math.cos(math.radians(lat))
    return [tantivy.Query.range_query(schema, "lat", tantivy.FieldType.Float, lat - dlat, lat + dlat),
            tantivy.Query.range_query(schema, "lon", tantivy.FieldType.Float, lon - dlon, lon + dlon)]


FACETS = {"contentType": {"terms": {"field": "content_type", "size": 10}},
          "domain": {"terms": {"field": "host", "size": 10}}}
# (label, the filter clauses of query number n, facets asked)
cases = [
    ("none", lambda n: [], False),
    ("contentType (10 %)", lambda n: [term("content_type", "public.type3")], False),
    ("domain (1 %)", lambda n: [term("domain", "site7.shop.example")], False),
    ("domain and subdomains (100 %)", lambda n: [term("domain", "shop.example")], False),
    ("hasApp ios (20 %)", lambda n: [term("has_app", "ios")], False),
    ("installedOnly, 1 of 50 apps (0.4 %)", lambda n: [term("app", "ios:5")], False),
    ("contentType + hasApp (2 %)", lambda n: [term("content_type", "public.type5"), term("has_app", "ios")], False),
    ("facets contentType and domain, no filter", lambda n: [], True),
    ("facets contentType and domain, contentType (10 %)", lambda n: [term("content_type", "public.type3")], True),
    ("near, 10 km, one place (0.04 %)", lambda n: box(n, 10, False), False),
    ("near, 50 km, one place (0.9 %)", lambda n: box(n, 50, False), False),
    ("near, 10 km, a place per query (0.04 %)", lambda n: box(n, 10, True), False),
]
only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
cases = [case for case in cases if only is None or case[0] == "none" or only in case[0]]

latencies = [[] for _ in cases]
aggregations = [[] for _ in cases]
first = [0.0] * len(cases)
found = [0] * len(cases)
for turn in range(rounds):
    for number, text in enumerate(queries):
        for position, (label, clauses, faceted) in enumerate(cases):
            t = time.perf_counter()
            query = index.parse_query(text, list(BOOSTS), field_boosts=BOOSTS)
            filters = clauses(number)
            if filters:
                query = tantivy.Query.boolean_query([(tantivy.Occur.Must, query)] + [
                    (tantivy.Occur.Must, tantivy.Query.const_score_query(clause, 0.0)) for clause in filters])
            hits = searcher.search(query, 10).hits
            aggregated = time.perf_counter()
            if faceted:
                searcher.aggregate(query, FACETS)
            done = time.perf_counter()
            ms = (done - t) * 1000
            if turn == 0 and number == 0:
                first[position] = ms
            if turn > 0:
                latencies[position].append(ms)
                aggregations[position].append((done - aggregated) * 1000)
            if turn == 0:
                found[position] += len(hits)

unfiltered = None
for position, (label, clauses, faceted) in enumerate(cases):
    p99 = pct(latencies[position], 0.99)
    if label == "none":
        unfiltered = p99
    line = {"engine": "tantivy", "set": name, "filter": label, "queries": len(queries),
            "p50_ms": round(pct(latencies[position], 0.5), 3), "p99_ms": round(p99, 3),
            "p99_vs_unfiltered": round(p99 / unfiltered, 3) if unfiltered else 1,
            "first_query_ms": round(first[position], 3), "results_per_query": found[position] / len(queries)}
    if faceted:
        line["aggregation_p50_ms"] = round(pct(aggregations[position], 0.5), 3)
        line["aggregation_p99_ms"] = round(pct(aggregations[position], 0.99), 3)
    print(json.dumps(line), flush=True)
