#!/usr/bin/env python3
"""Main-text extraction scored on a development set, next to peers in the same run.

    Benchmarks/maintext.py EVAL_DIR [--binary .build/release/searchlight] [--peers trafilatura,readability,justext] [--limit N]
                                    [--per-page FILE]

Two kinds of set are read. Mozilla Readability's test pages (a folder of `pages/<name>/` with
`source.html.gz` and `expected.html.gz`, as ../shared/peer-data/readability-tests/ has them) are
scored on the whole text: the expected article's text against the extracted text as 4-word
shingles (each page's true and false positives and misses as shares of its shingles, precision
and recall averaged over pages, F1 of the two means — the measure of the article-extraction
benchmarks), with a 95 % bootstrap interval over pages, and the share of pages whose text is the
expected text word for word. trafilatura's evaluation set is scored as its own evaluation does:

`evaldata.json` (page URL -> {"file", "with": [...], "without": [...]}) and `html/<file>.gz`,
as ../shared/peer-data/trafilatura-eval/ has them. For each page the
extracted text is searched for every "with" snippet (found: a true positive, else a false
negative) and every "without" snippet (found: a false positive, else a true negative), both
whitespace-normalised; the counts are pooled over all pages into precision, recall, accuracy
and F1. Searchlight's text is `searchlight extract FILE --json`'s `bodyText` (the page's
main text); the peers (pip `trafilatura`, `readability-lxml`, `justext`) get the same HTML.
Also prints how many pages kept no "with" snippet at all. The set is read where it is.
"""
import collections, concurrent.futures, gzip, json, os, random, re, subprocess, sys, tempfile, time

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

def shingles(text, n=4):
    words = re.findall(r"\w+", text or "")
    return collections.Counter(tuple(words[i:i + n]) for i in range(max(1, len(words) - n + 1)) if words[i:i + n])

def page_counts(expected, extracted):
    """A page's (true positives, false positives, misses) as shares of its shingles."""
    want, got = shingles(expected), shingles(extracted)
    tp = sum(min(c, got[k]) for k, c in want.items())
    fp = sum(got.values()) - tp
    fn = sum(want.values()) - tp
    total = tp + fp + fn
    return (tp / total, fp / total, fn / total) if total else (0.0, 0.0, 0.0)

def pooled(counts):
    """Precision over the pages that extracted something, recall over those that expect
    something (a page whose text is exactly the expected text counts 1 for both)."""
    def ratio(tp, other, fp, fn):
        return 1.0 if fp == fn == 0 else tp / (tp + other)
    ps = [ratio(tp, fp, fp, fn) for tp, fp, fn in counts if tp + fp > 0]
    rs = [ratio(tp, fn, fp, fn) for tp, fp, fn in counts if tp + fn > 0]
    p = sum(ps) / len(ps) if ps else 0.0
    r = sum(rs) / len(rs) if rs else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)

def score_text(name, texts, pages):
    counts = [page_counts(page["expected"], texts.get(url, "")) for url, page in pages]
    p, r, f1 = pooled(counts)
    rng = random.Random(7)
    samples = sorted(pooled([counts[rng.randrange(len(counts))] for _ in counts])[2] for _ in range(1000))
    exact = sum(re.findall(r"\w+", page["expected"]) == re.findall(r"\w+", texts.get(url, "")) for url, page in pages)
    return {"extractor": name, "precision": round(p, 4), "recall": round(r, 4), "f1": round(f1, 4),
            "f1_95": [round(samples[25], 4), round(samples[974], 4)], "exact": round(exact / len(pages), 3),
            "perPage": {url: round(pooled([c])[2], 4) for (url, _), c in zip(pages, counts)}}

def readability_pages(folder):
    import lxml.html
    pages = []
    for name in sorted(os.listdir(os.path.join(folder, "pages"))):
        with gzip.open(os.path.join(folder, "pages", name, "expected.html.gz")) as f:
            # The expected article is UTF-8 with no charset of its own: decoded before lxml guesses.
            expected = lxml.html.fromstring(f.read().decode("utf-8")).text_content()
        pages.append(("http://fakehost/test/" + name + "/page.html", {"path": os.path.join(folder, "pages", name, "source.html.gz"),
                                                                      "expected": " ".join(expected.split())}))
    return pages

def searchlight(binary, folder, pages):
    work = tempfile.mkdtemp(prefix="maintext-")
    def one(item):
        url, page = item
        path = os.path.join(work, (page.get("file") or url).replace("/", "_").replace(":", "_"))
        with gzip.open(page_path(folder, page)) as source, open(path, "wb") as target:
            target.write(source.read())
        base = ["--base-url", url] if url.startswith(("http://", "https://")) else []
        # Readability's pages are UTF-8 (its tests read them as such, whatever their meta says):
        # the same word given as the transport's charset.
        charset = ["--content-type", "text/html; charset=utf-8"] if "expected" in page else []
        result = subprocess.run([binary, "extract", path, "--json"] + base + charset, capture_output=True)
        os.remove(path)
        try:
            return url, json.loads(result.stdout).get("bodyText", "")
        except ValueError:
            return url, ""
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(one, pages))

def page_path(folder, page):
    return page["path"] if "path" in page else os.path.join(folder, "html", page["file"] + ".gz")

def html_of(folder, page):
    """The page for a peer: Readability's pages as the text their tests read (UTF-8), the
    other set's as bytes (each peer finds the charset itself)."""
    with gzip.open(page_path(folder, page)) as f:
        data = f.read()
    return data.decode("utf-8", "replace") if "expected" in page else data

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
    whole = os.path.isdir(os.path.join(folder, "pages"))
    pages = readability_pages(folder) if whole else sorted(json.load(open(os.path.join(folder, "evaldata.json"), encoding="utf-8")).items())
    if "--limit" in sys.argv:
        pages = pages[:int(arg("--limit", "0"))]
    measure = score_text if whole else score
    results = []
    started = time.perf_counter()
    results.append({**measure("searchlight", searchlight(binary, folder, pages), pages), "seconds": round(time.perf_counter() - started, 1)})
    for name in [p for p in arg("--peers", "trafilatura").split(",") if p]:
        started = time.perf_counter()
        results.append({**measure(name, peer(name, folder, pages), pages), "seconds": round(time.perf_counter() - started, 1)})
    if "--per-page" in sys.argv:
        with open(arg("--per-page", ""), "w") as f:
            json.dump({r["extractor"]: r.get("perPage") for r in results}, f)
    for r in results: r.pop("perPage", None)
    print(json.dumps({"pages": len(pages), "results": results}, indent=None if "--json" in sys.argv else 1))

if __name__ == "__main__":
    main()
