#!/usr/bin/env python3
"""Ranking quality on a test collection with relevance judgments, next to peer engines in
the same run.

    Benchmarks/relevance.py COLLECTION_DIR [--binary .build/release/searchlight] [--work /tmp/relevance] [--json]

COLLECTION_DIR is the Cranfield collection as ../shared/peer-data/cranfield/ has it
(cran.all.1400, cran.qry, cranqrel), CACM as ../shared/peer-data/cacm/ has it (cacm.all,
query.text, qrels.text: titles and abstracts, 52 judged natural-language requests), or a
BEIR-style folder (corpus.jsonl with _id, title,
text; queries.jsonl with _id, text; qrels/test.tsv with query-id, corpus-id, score). The
documents go into each engine as title and body; every judged query is sent as its text, as
a person would type it (Searchlight: `index add`, then `GET /v1/search` of a `serve` with the
cache off; Tantivy 0.27 with its `default` and `en_stem` tokenizers, fields title and body,
the query parser's default OR; SQLite FTS5 with `unicode61` and with `porter unicode61`,
bm25 over title and body, the query's words OR'ed). Prints nDCG@10 (graded gains) and
recall@100 per engine, and how many queries each refused. Needs `pip install tantivy`.
The collection is read where it is; nothing of it is written outside --work.
"""
import json, math, os, re, shutil, sqlite3, subprocess, sys, time, urllib.parse, urllib.request

def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default

def load(folder):
    """(docs: {id: (title, body)}, queries: [(qid, text)], gains: {qid: {docid: gain}})"""
    if os.path.exists(os.path.join(folder, "cran.all.1400")):
        return load_cranfield(folder)
    if os.path.exists(os.path.join(folder, "cacm.all")):
        return load_cacm(folder)
    if os.path.exists(os.path.join(folder, "MED.ALL")):
        return load_med(folder)
    if os.path.exists(os.path.join(folder, "LISA.QUE")):
        return load_lisa(folder)
    return load_beir(folder)

def smart_records(path):
    """SMART-format records: `.I id`, then fields opened by a line of `.X` (one capital)."""
    current, field = None, None
    for line in open(path, encoding="latin-1"):
        if line.startswith(".I "):
            if current: yield current
            current, field = {"id": line[3:].strip()}, None
        elif len(line) >= 2 and line[0] == "." and line[1].isupper() and line[2:].strip() == "":
            field = line[1]
            current[field] = ""
        elif field:
            current[field] += line
    if current: yield current

def clean(text):
    """Whitespace runs as one space, control characters (a few CACM records hold them) as spaces,
    so that every engine reads the same words (Searchlight's item contract refuses controls)."""
    return " ".join(re.sub(r"[\x00-\x1f\x7f-\x9f]", " ", text).split())

def load_cacm(folder):
    docs = {str(int(r["id"])): (clean(r.get("T", "")), clean(r.get("W", "")))
            for r in smart_records(os.path.join(folder, "cacm.all"))}
    texts = {str(int(r["id"])): clean(r.get("W", "")) for r in smart_records(os.path.join(folder, "query.text"))}
    gains = {}
    for line in open(os.path.join(folder, "qrels.text")):
        parts = line.split()
        if len(parts) >= 2: gains.setdefault(str(int(parts[0])), {})[str(int(parts[1]))] = 1
    queries = [(qid, texts[qid]) for qid in sorted(gains, key=int) if qid in texts]
    return docs, queries, gains

def load_med(folder):
    """MED: `.I`/`.W` records with no title field (the article's title opens `.W`, ended by a
    line break or by nothing at all, so it cannot be told apart reliably): every document is
    its text alone, with no title, in every engine. Judgments `QID 0 DOCID 1`."""
    docs = {str(int(r["id"])): ("", clean(r.get("W", ""))) for r in smart_records(os.path.join(folder, "MED.ALL"))}
    texts = {str(int(r["id"])): clean(r.get("W", "")) for r in smart_records(os.path.join(folder, "MED.QRY"))}
    gains = {}
    for line in open(os.path.join(folder, "MED.REL")):
        parts = line.split()
        if len(parts) >= 3: gains.setdefault(str(int(parts[0])), {})[str(int(parts[2]))] = 1
    queries = [(qid, texts[qid]) for qid in sorted(gains, key=int) if qid in texts]
    return docs, queries, gains

def load_lisa(folder):
    """LISA (Glasgow format): records separated by a line of 44 `*`, each `Document N`, the title
    up to the first blank line (which may hold spaces), then the abstract; requests in LISA.QUE (`N`, the text, ` #`);
    judgments in LISARJ.NUM. A repeated document id
    keeps its first record."""
    docs = {}
    files = sorted(f for f in os.listdir(folder) if re.fullmatch(r"LISA\d\.\d{3}", f))
    for name in files:
        for record in re.split(r"\n\*{44}\s*\n", open(os.path.join(folder, name), encoding="latin-1").read()):
            match = re.match(r"\s*Document\s+(\d+)\s*\n(.*)", record, re.S)
            if not match: continue
            parts = re.split(r"\n[ \t]*\n", match.group(2).strip(), maxsplit=1)
            title, body = parts[0], (parts[1] if len(parts) > 1 else "")
            docs.setdefault(str(int(match.group(1))), (clean(title), clean(body)))
    texts = {}
    for block in open(os.path.join(folder, "LISA.QUE"), encoding="latin-1").read().split("#"):
        match = re.match(r"\s*(\d+)\s*\n(.*)", block, re.S)
        if match: texts[str(int(match.group(1)))] = clean(match.group(2))
    # LISARJ.NUM: `qid count id…` as numbers; LISA.REL says the same but lost lines at query 21.
    numbers = [int(n) for n in open(os.path.join(folder, "LISARJ.NUM")).read().split()]
    gains, at = {}, 0
    while at + 1 < len(numbers):
        qid, count = str(numbers[at]), numbers[at + 1]
        gains[qid] = {str(n): 1 for n in numbers[at + 2:at + 2 + count]}
        at += 2 + count
    queries = [(qid, texts[qid]) for qid in sorted(gains, key=int) if qid in texts]
    return docs, queries, gains

def load_cranfield(folder):
    def records(path):
        current, field = None, None
        for line in open(path, encoding="latin-1"):
            if line.startswith(".I "):
                if current: yield current
                current, field = {"id": line[3:].strip()}, None
            elif len(line) >= 2 and line[0] == "." and line[1] in "TAWB" and line[2:].strip() == "":
                field = line[1]
                current[field] = ""
            elif field:
                current[field] += line
        if current: yield current
    docs = {}
    for record in records(os.path.join(folder, "cran.all.1400")):
        docs[str(int(record["id"]))] = (" ".join(record.get("T", "").split()), " ".join(record.get("W", "").split()))
    # Queries are numbered by position, as cranqrel numbers them (their .I skips numbers).
    queries = [(str(n + 1), " ".join(record.get("W", "").split())) for n, record in enumerate(records(os.path.join(folder, "cran.qry")))]
    gains = {}
    for line in open(os.path.join(folder, "cranqrel")):
        parts = line.split()
        if len(parts) < 4: continue
        qid, docid, grade = parts[0], parts[2], int(parts[3])
        gain = 5 - grade if 1 <= grade <= 4 else 0
        if gain > 0: gains.setdefault(qid, {})[docid] = gain
    return docs, queries, gains

def load_beir(folder):
    docs = {}
    for line in open(os.path.join(folder, "corpus.jsonl"), encoding="utf-8"):
        d = json.loads(line)
        docs[str(d["_id"])] = (d.get("title") or "", d.get("text") or "")
    texts = {}
    for line in open(os.path.join(folder, "queries.jsonl"), encoding="utf-8"):
        q = json.loads(line)
        texts[str(q["_id"])] = q["text"]
    gains = {}
    qrels = os.path.join(folder, "qrels", "test.tsv")
    for n, line in enumerate(open(qrels, encoding="utf-8")):
        parts = line.rstrip("\n").split("\t")
        if n == 0 and not parts[-1].lstrip("-").isdigit(): continue
        qid, docid, score = parts[0], parts[1], int(parts[-1])
        if score > 0: gains.setdefault(qid, {})[docid] = score
    queries = [(qid, texts[qid]) for qid in sorted(gains, key=lambda q: (len(q), q)) if qid in texts]
    return docs, queries, gains

def ndcg(ranked, gains, k=10):
    dcg = sum(gains.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted(gains.values(), reverse=True)[:k]
    best = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / best if best else 0.0

def recall(ranked, gains, k=100):
    relevant = {d for d, g in gains.items() if g > 0}
    return len(relevant & set(ranked[:k])) / len(relevant) if relevant else 0.0

def evaluate(name, search, queries, gains):
    scores, recalls, refused, latencies = [], [], 0, []
    for qid, text in queries:
        if qid not in gains: continue
        started = time.perf_counter()
        ranked = search(text)
        latencies.append(time.perf_counter() - started)
        if ranked is None:
            refused += 1
            ranked = []
        scores.append(ndcg(ranked, gains[qid]))
        recalls.append(recall(ranked, gains[qid]))
    return {"engine": name, "queries": len(scores), "refused": refused,
            "ndcg@10": round(sum(scores) / len(scores), 4), "recall@100": round(sum(recalls) / len(recalls), 4),
            "perQuery": scores}

def words(text):
    return re.findall(r"\w+", text.lower())

def searchlight(binary, docs, work):
    data = os.path.join(work, "searchlight")
    shutil.rmtree(data, ignore_errors=True)
    os.makedirs(data)
    ids = list(docs)
    for start in range(0, len(ids), 5000):
        items = [{"uniqueIdentifier": i, "title": docs[i][0][:1000] or "(untitled)", "text": docs[i][1][:16000],
                  "expirationDate": "2035-01-01T00:00:00Z"} for i in ids[start:start + 5000]]
        path = os.path.join(work, "items.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"items": items}, f)
        subprocess.run([binary, "index", "add", path, "--data", data], check=True, stdout=subprocess.DEVNULL)
    server = subprocess.Popen([binary, "serve", "--data", data, "--listen", "127.0.0.1:0", "--cache-seconds", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    base = server.stdout.readline().split()[-1]
    def search(text):
        url = base + "/v1/search?" + urllib.parse.urlencode({"q": text, "limit": "100"})
        try:
            with urllib.request.urlopen(url, timeout=60) as response:
                return [r["id"] for r in json.load(response)["results"]]
        except urllib.error.HTTPError:
            return None
    return search, server

def tantivy_engine(docs, work, tokenizer):
    import tantivy
    folder = os.path.join(work, "tantivy-" + tokenizer)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    sb = tantivy.SchemaBuilder()
    sb.add_text_field("title", stored=False, tokenizer_name=tokenizer)
    sb.add_text_field("body", stored=False, tokenizer_name=tokenizer)
    sb.add_text_field("id", stored=True, tokenizer_name="raw")
    index = tantivy.Index(sb.build(), path=folder)
    writer = index.writer(heap_size=256_000_000, num_threads=1)
    for i, (title, body) in docs.items():
        writer.add_document(tantivy.Document(id=i, title=title, body=body))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    searcher = index.searcher()
    def search(text):
        terms = words(text)
        if not terms: return []
        query = index.parse_query(" ".join(terms), ["title", "body"])
        return [searcher.doc(address)["id"][0] for _, address in searcher.search(query, 100).hits]
    return search

def fts5_engine(docs, work, tokenize):
    db = sqlite3.connect(":memory:")
    db.execute(f"create virtual table fts using fts5(id unindexed, title, body, tokenize='{tokenize}')")
    db.executemany("insert into fts(id, title, body) values(?, ?, ?)", ((i, t, b) for i, (t, b) in docs.items()))
    def search(text):
        terms = words(text)
        if not terms: return []
        expression = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        return [row[0] for row in db.execute("select id from fts where fts match ? order by bm25(fts) limit 100", (expression,))]
    return search

def main():
    folder = sys.argv[1]
    binary = arg("--binary", ".build/release/searchlight")
    work = arg("--work", "/tmp/searchlight-relevance")
    os.makedirs(work, exist_ok=True)
    docs, queries, gains = load(folder)
    results = []
    search, server = searchlight(binary, docs, work)
    try:
        results.append(evaluate("searchlight", search, queries, gains))
    finally:
        server.terminate()
        server.wait()
    peers = "--searchlight-only" not in sys.argv
    for tokenizer in ("default", "en_stem") if peers else ():
        results.append(evaluate("tantivy " + tokenizer, tantivy_engine(docs, work, tokenizer), queries, gains))
    for tokenize in ("unicode61", "porter unicode61") if peers else ():
        results.append(evaluate("fts5 " + tokenize.split()[0], fts5_engine(docs, work, tokenize), queries, gains))
    summary = {"collection": os.path.basename(os.path.normpath(folder)), "documents": len(docs), "queries": len(queries),
               "engines": [{k: v for k, v in r.items() if k != "perQuery"} for r in results]}
    if "--per-query" in sys.argv:
        summary["perQuery"] = {r["engine"]: r["perQuery"] for r in results}
    print(json.dumps(summary, indent=None if "--json" in sys.argv else 1))

if __name__ == "__main__":
    main()
