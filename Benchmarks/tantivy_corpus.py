"""The peer index both Tantivy benchmarks build: the index benchmark's exported corpus
(corpus.jsonl: id, title, description, keywords, body per line) in Tantivy, fields weighted
as Searchlight weighs its columns."""
import json, os, shutil, time
import tantivy

BOOSTS = {"title": 10.0, "keywords": 5.0, "description": 3.0, "body": 1.0}

def build(export, target, stored=False):
    """Indexes EXPORT/corpus.jsonl into a fresh index at TARGET (the text fields stored when
    `stored`); (index, documents, seconds)."""
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(target)
    builder = tantivy.SchemaBuilder()
    for field in ("title", "description", "keywords", "body"):
        builder.add_text_field(field, stored=stored)
    builder.add_integer_field("id", stored=True)
    index = tantivy.Index(builder.build(), path=target)
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
    seconds = time.perf_counter() - started
    index.reload()
    return index, count, seconds
