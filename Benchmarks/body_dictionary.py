#!/usr/bin/env python3
"""What a zstd dictionary trained on an index's own bodies gains on real text (issue 58):
each text of the panel compressed alone, as `item_bodies` keeps it, by DEFLATE level 1 (the
format before; zlib's stream less its 6 bytes of header and checksum, as libdeflate writes
raw DEFLATE) and by zstd level 3 with a 64 KB dictionary trained on the other half of the
same collection (the format now, `BodyDictionary`); texts under 128 bytes, kept as text by
both, are left out.

    pip install zstandard
    python3 Benchmarks/body_dictionary.py [../shared/peer-data]

Collections: trafilatura's pages (their text: tags, scripts and styles taken out), MED and
CACM's documents, LISA's. Prints bytes a text, raw and under each format.
"""
import glob, gzip, html, json, os, random, re, sys, zlib
import zstandard

peer = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../shared/peer-data")


def pages():
    for path in sorted(glob.glob(os.path.join(peer, "trafilatura-eval/html/*.html.gz"))):
        text = gzip.open(path).read().decode("utf-8", "replace")
        text = re.sub(r"(?is)<(script|style)[^>]*>.*?</\1>", " ", text)
        yield html.unescape(re.sub(r"\s+", " ", re.sub(r"(?s)<[^>]+>", " ", text))).encode()


def records(pattern, separator):
    for path in sorted(glob.glob(os.path.join(peer, pattern))):
        yield from (part.encode() for part in re.split(separator, open(path, errors="replace").read()))


collections = {"trafilatura pages": pages(), "MED": records("med/MED.ALL", r"\n\.I "),
               "CACM": records("cacm/cacm.all", r"\n\.I "), "LISA": records("lisa/LISA[0-9].*", r"\n\*{10,}\n")}
for name, texts in collections.items():
    texts = [text for text in texts if len(text) >= 128]
    random.Random(1).shuffle(texts)
    train, test = texts[: len(texts) // 2], texts[len(texts) // 2:]
    dictionary = zstandard.train_dictionary(64 << 10, train)
    compressor = zstandard.ZstdCompressor(level=3, dict_data=dictionary, write_checksum=False)
    count = len(test)
    raw = sum(map(len, test)) / count
    deflate = sum(len(zlib.compress(text, 1)) - 6 for text in test) / count
    dictionaried = sum(len(compressor.compress(text)) for text in test) / count
    print(json.dumps({"collection": name, "texts": count, "raw": round(raw), "deflate_1": round(deflate),
                      "zstd_3_dictionary": round(dictionaried), "ratio": round(dictionaried / deflate, 3)}))
