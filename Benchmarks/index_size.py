#!/usr/bin/env python3
"""The index on disk and the CPU to write it, next to Tantivy on the very same items.

    Benchmarks/index_size.py SEARCHLIGHT SEARCHLIGHT_BENCH WORK_DIR [--items 100000] [--body-words 800]

Makes the index benchmark's corpus (`searchlight-bench index --export-only`: title 4 words,
description 20, keywords 5, body BODY_WORDS, a Zipf-like vocabulary), then indexes it
  - with `searchlight index add`, in files of 10,000 items (as an app or a feed pushes them),
    into a fresh data folder, and
  - with Tantivy (`pip install tantivy`): title, description, keywords and body stored and
    indexed with positions by the `en_stem` tokenizer, one writer thread, then merged,
and prints one JSON object: bytes on disk of each (every file of the data folder, WAL and all,
once the writer has exited), the raw text's bytes, and the CPU seconds of each writer.
"""
import json, os, resource, shutil, subprocess, sys, time

searchlight, bench, work = sys.argv[1], sys.argv[2], sys.argv[3]
items = int(sys.argv[sys.argv.index("--items") + 1]) if "--items" in sys.argv else 100_000
words = int(sys.argv[sys.argv.index("--body-words") + 1]) if "--body-words" in sys.argv else 800
export = os.path.join(work, f"export-{items}-{words}")
if not os.path.exists(os.path.join(export, "corpus.jsonl")):
    subprocess.run([bench, "index", "--sizes", str(items), "--body-words", str(words), "--export", export, "--export-only",
                    "--dir", work], check=True, stdout=subprocess.DEVNULL)


def folder_bytes(path):
    return sum(os.path.getsize(os.path.join(root, name)) for root, _, names in os.walk(path) for name in names)


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# The push files, written before anything is timed.
files = []
raw_bytes = 0
with open(os.path.join(export, "corpus.jsonl")) as corpus:
    batch = []
    for line in corpus:
        i, title, description, keywords, body = json.loads(line)
        raw_bytes += sum(len(x.encode()) for x in (title, description, keywords, body))
        url = f"https://bench.example/items/{i}"
        batch.append({"uniqueIdentifier": url, "title": title, "contentDescription": description,
                      "keywords": [k.strip() for k in keywords.split(",")], "webURL": url, "text": body,
                      "expirationDate": "2035-01-01T00:00:00Z"})
        if len(batch) == 10_000:
            files.append(os.path.join(work, f"push-{len(files)}.json"))
            with open(files[-1], "w") as out:
                json.dump({"items": batch}, out)
            batch = []
    if batch:
        files.append(os.path.join(work, f"push-{len(files)}.json"))
        with open(files[-1], "w") as out:
            json.dump({"items": batch}, out)

data = os.path.join(work, "searchlight-data")
shutil.rmtree(data, ignore_errors=True)
os.makedirs(data)
before = children_cpu()
started = time.perf_counter()
for path in files:
    subprocess.run([searchlight, "index", "add", path, "--data", data], check=True, stdout=subprocess.DEVNULL)
ours_cpu = children_cpu() - before
ours_wall = time.perf_counter() - started
ours_bytes = folder_bytes(data)
ours_files = {name: os.path.getsize(os.path.join(data, name)) for name in sorted(os.listdir(data)) if os.path.isfile(os.path.join(data, name))}

import tantivy

target = os.path.join(work, "tantivy-index")
shutil.rmtree(target, ignore_errors=True)
os.makedirs(target)
builder = tantivy.SchemaBuilder()
for field in ("title", "description", "keywords", "body"):
    builder.add_text_field(field, stored=True, tokenizer_name="en_stem", index_option="position")
builder.add_text_field("id", stored=True, tokenizer_name="raw")
schema = builder.build()
index = tantivy.Index(schema, path=target)
cpu = time.process_time()
writer = index.writer(heap_size=512_000_000, num_threads=1)
with open(os.path.join(export, "corpus.jsonl")) as corpus:
    for line in corpus:
        i, title, description, keywords, body = json.loads(line)
        writer.add_document(tantivy.Document(id=f"https://bench.example/items/{i}", title=title, description=description,
                                             keywords=keywords, body=body))
writer.commit()
writer.wait_merging_threads()
tantivy_cpu = time.process_time() - cpu
tantivy_bytes = folder_bytes(target)

print(json.dumps({
    "benchmark": "index-size", "items": items, "body_words": words, "raw_text_bytes": raw_bytes,
    "searchlight_bytes": ours_bytes, "searchlight_files": ours_files, "tantivy_bytes": tantivy_bytes,
    "size_ratio": round(ours_bytes / tantivy_bytes, 3),
    "searchlight_cpu_s": round(ours_cpu, 2), "searchlight_wall_s": round(ours_wall, 2), "tantivy_cpu_s": round(tantivy_cpu, 2),
    "cpu_ratio": round(ours_cpu / tantivy_cpu, 3),
}), flush=True)
