#!/usr/bin/env python3
"""The peer search engine on the very documents and queries of the index benchmark.

    Benchmarks/tantivy_same_corpus.py EXPORT_DIR WORK_DIR [--cjk-bigrams]

EXPORT_DIR is what `searchlight-bench index --export DIR` wrote: corpus.jsonl (one JSON
array per line: id, title, description, keywords, body) and queries.json (query sets by
name). Indexes the corpus in Tantivy (BM25, field boosts title 10, keywords 5,
description 3, body 1; the words of a query OR'ed, as Searchlight ranks them, and again all
required), then runs each query set on
one thread, top 10, after one unmeasured pass (as the Swift side is measured warm), and
prints one JSON object: documents/s and p50/p99 per set. Needs `pip install tantivy`.

Tantivy's default tokenizer keeps a run of CJK characters whole, so on this corpus (words
between spaces) its CJK queries are single-term lookups. With --cjk-bigrams it also indexes
the corpus the way Searchlight and Lucene's CJK analyzer do — each CJK run as overlapping
bigrams (a one-character run as itself), other words whole and lower-cased, pre-tokenized,
with positions — and runs the CJK set again there: a two-character word is one term, a
longer one a phrase of its bigrams, the words OR'ed (`cjk_bigram_*`).
"""
import json, os, shutil, sys, time
import tantivy
from tantivy_corpus import BOOSTS, build

export, work = sys.argv[1], sys.argv[2]
index, count, indexing = build(export, work)
searcher = index.searcher()
with open(os.path.join(export, "queries.json")) as f:
    sets = json.load(f)
report = {"engine": "tantivy", "version": getattr(tantivy, "__version__", "?"), "docs": count, "docs_per_s": round(count / indexing)}

def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))]

for name, queries in sets.items():
    for mode, conjunction in (("", False), ("_and", True)):
        parsed = [index.parse_query(q, list(BOOSTS), field_boosts=BOOSTS, conjunction_by_default=conjunction) for q in queries]
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

if "--cjk-bigrams" in sys.argv:
    import re

    def cjk(ch):
        o = ord(ch)
        return 0x3040 <= o <= 0x30FF or 0x3400 <= o <= 0x4DBF or 0x4E00 <= o <= 0x9FFF or 0xAC00 <= o <= 0xD7FF or 0x20000 <= o <= 0x3FFFF

    def terms(word):
        """One word's tokens: CJK runs as bigrams, other runs whole."""
        out = []
        for run in re.findall(r"[^\W_]+", word.lower()):
            pieces, current, kind = [], "", None
            for ch in run:
                k = cjk(ch)
                if kind is not None and k != kind:
                    pieces.append((current, kind))
                    current = ""
                current += ch
                kind = k
            if current:
                pieces.append((current, kind))
            for text, is_cjk in pieces:
                if is_cjk and len(text) > 1:
                    out += [text[i:i + 2] for i in range(len(text) - 1)]
                else:
                    out.append(text)
        return out

    def pretokenized(text):
        tokens, position = [], 0
        for word in text.split():
            for term in terms(word):
                tokens.append(tantivy.Token(term, position, 0, 0))
                position += 1
        return tantivy.PreTokenizedString(text, tokens)

    bigram_dir = work + "-cjk-bigrams"
    shutil.rmtree(bigram_dir, ignore_errors=True)
    os.makedirs(bigram_dir)
    sb = tantivy.SchemaBuilder()
    for field in ("title", "description", "keywords", "body"):
        sb.add_text_field(field, stored=False, tokenizer_name="raw", index_option="position")
    sb.add_integer_field("id", stored=True)
    bigram_schema = sb.build()
    bigram_index = tantivy.Index(bigram_schema, path=bigram_dir)
    writer = bigram_index.writer(heap_size=512_000_000, num_threads=2)
    with open(os.path.join(export, "corpus.jsonl")) as corpus:
        for line in corpus:
            i, title, description, keywords, body = json.loads(line)
            document = tantivy.Document(id=i)
            for field, text in (("title", title), ("description", description), ("keywords", keywords), ("body", body)):
                document.add_pre_tokenized_text(field, pretokenized(text))
            writer.add_document(document)
    writer.commit()
    writer.wait_merging_threads()
    bigram_index.reload()
    bigram_searcher = bigram_index.searcher()

    def bigram_query(text):
        shoulds = []
        for word in text.split():
            words = terms(word)
            for field, boost in BOOSTS.items():
                inner = (tantivy.Query.term_query(bigram_schema, field, words[0]) if len(words) == 1
                         else tantivy.Query.phrase_query(bigram_schema, field, words))
                shoulds.append((tantivy.Occur.Should, tantivy.Query.boost_query(inner, boost)))
        return tantivy.Query.boolean_query(shoulds)

    parsed = [bigram_query(q) for q in sets["cjk"]]
    for q in parsed:
        bigram_searcher.search(q, 10).hits
    latencies = []
    for q in parsed:
        t = time.perf_counter()
        bigram_searcher.search(q, 10).hits
        latencies.append((time.perf_counter() - t) * 1000)
    print(json.dumps({"engine": "tantivy-cjk-bigrams", "cjk_bigram_p50_ms": round(pct(latencies, 0.5), 3),
                      "cjk_bigram_p99_ms": round(pct(latencies, 0.99), 3)}), flush=True)
