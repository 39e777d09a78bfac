#!/usr/bin/env python3
"""Main-text extraction scored as trafilatura's evaluation scores it, next to peers in the
same run.

    Benchmarks/maintext.py EVAL_DIR [--binary .build/release/searchlight] [--peers trafilatura,readability,justext] [--limit N]

EVAL_DIR holds `evaldata.json` (page URL -> {"file", "with": [...], "without": [...]}) and
`html/<file>.gz`, as ../shared/peer-data/trafilatura-eval/ has them. For each page the
extracted text is searched for every "with" snippet (found: a true positive, else a false
negative) and every "without" snippet (found: a false positive, else a true negative), both
whitespace-normalised; the counts are pooled over all pages into precision, recall, accuracy
and F1. Searchlight's text is `searchlight extract FILE --json`'s `bodyText` (the page's
main text); the peers (pip `trafilatura`, `readability-lxml`, `justext`) get the same HTML.
Also prints how many pages kept no "with" snippet at all. The set is read where it is.
"""
import concurrent.futures, gzip, json, os, subprocess, sys, tempfile, time

def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default

def norm(text):
    return " ".join((text or "").split())

def score(name, texts, pages):
    tp = fp = fn = tn = 0
    empty = 0
    for url, page in pages:
        text = norm(texts.get(url, ""))
        found = 0
        for snippet in page.get("with", []):
            if norm(snippet) in text:
                tp += 1
                found += 1
            else:
                fn += 1
        if page.get("with") and found == 0: empty += 1
        for snippet in page.get("without", []):
            if norm(snippet) in text:
                fp += 1
            else:
                tn += 1
    precision = tp / (tp + fp) if tp + fp else 0
    recall = tp / (tp + fn) if tp + fn else 0
    return {"extractor": name, "precision": round(precision, 4), "recall": round(recall, 4),
            "accuracy": round((tp + tn) / max(1, tp + fp + fn + tn), 4),
            "f1": round(2 * precision * recall / (precision + recall), 4) if precision + recall else 0,
            "pagesWithoutMainText": empty}

def searchlight(binary, folder, pages):
    work = tempfile.mkdtemp(prefix="maintext-")
    def one(item):
        url, page = item
        path = os.path.join(work, page["file"].replace("/", "_"))
        with gzip.open(os.path.join(folder, "html", page["file"] + ".gz")) as source, open(path, "wb") as target:
            target.write(source.read())
        base = ["--base-url", url] if url.startswith(("http://", "https://")) else []
        result = subprocess.run([binary, "extract", path, "--json"] + base, capture_output=True)
        os.remove(path)
        try:
            return url, json.loads(result.stdout).get("bodyText", "")
        except ValueError:
            return url, ""
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(one, pages))

def html_of(folder, page):
    with gzip.open(os.path.join(folder, "html", page["file"] + ".gz")) as f:
        return f.read()

def peer(name, folder, pages):
    texts = {}
    if name == "trafilatura":
        import trafilatura
        for url, page in pages:
            try:
                texts[url] = trafilatura.extract(html_of(folder, page), url=url if url.startswith("http") else None) or ""
            except Exception:
                texts[url] = ""
    elif name == "readability":
        from readability import Document
        import lxml.html
        for url, page in pages:
            try:
                summary = Document(html_of(folder, page)).summary()
                texts[url] = lxml.html.fromstring(summary).text_content()
            except Exception:
                texts[url] = ""
    elif name == "justext":
        import justext
        # The set is mostly German with English, Spanish and others: every language's stop
        # words at once, so no page is read with the wrong language's list.
        stop = frozenset().union(*(justext.get_stoplist(language) for language in justext.get_stoplists()))
        for url, page in pages:
            try:
                paragraphs = justext.justext(html_of(folder, page), stop)
                texts[url] = "\n".join(p.text for p in paragraphs if not p.is_boilerplate)
            except Exception:
                texts[url] = ""
    return texts

def main():
    folder = sys.argv[1]
    binary = arg("--binary", ".build/release/searchlight")
    pages = sorted(json.load(open(os.path.join(folder, "evaldata.json"), encoding="utf-8")).items())
    if "--limit" in sys.argv:
        pages = pages[:int(arg("--limit", "0"))]
    results = []
    started = time.perf_counter()
    results.append({**score("searchlight", searchlight(binary, folder, pages), pages), "seconds": round(time.perf_counter() - started, 1)})
    for name in [p for p in arg("--peers", "trafilatura").split(",") if p]:
        started = time.perf_counter()
        results.append({**score(name, peer(name, folder, pages), pages), "seconds": round(time.perf_counter() - started, 1)})
    print(json.dumps({"pages": len(pages), "results": results}, indent=None if "--json" in sys.argv else 1))

if __name__ == "__main__":
    main()
