"""The peer index both Tantivy benchmarks build: the index benchmark's exported corpus
(corpus.jsonl: id, title, description, keywords, body per line) in Tantivy, fields weighted
as Searchlight weighs its columns. With `attributes`, each document also gets the filter
attributes `searchlight-bench serve-index --attributes` gives Searchlight's items (see
`attributes`), as Tantivy fast fields."""
import json, os, shutil, time
import tantivy

BOOSTS = {"title": 10.0, "keywords": 5.0, "description": 3.0, "body": 1.0}

def attributes(i):
    """The attributes serve-index --attributes gives item i (its rowid is i + 1), by the same formulas:
    a content type of ten, a host of a hundred under shop.example, an iOS app on every fifth
    item, a place over a 10° square."""
    r = i + 1
    host = f"site{r % 100}.shop.example"
    fields = {"content_type": f"public.type{r % 10}", "host": host,
              # The host and each parent: a filter on a domain matches it and its subdomains.
              "domain": [host, "shop.example", "example"],
              "lat": 40 + ((r * 7919) % 10007) / 1000.7, "lon": ((r * 104729) % 10009) / 1000.9}
    if r % 5 == 0:
        fields["has_app"] = "ios"
        fields["app"] = f"ios:{r % 50}"
    return fields


def build(export, target, stored=False, with_attributes=False):
    """Indexes EXPORT/corpus.jsonl into a fresh index at TARGET (the text fields stored when
    `stored`, the filter attributes as fast fields when `with_attributes`); (index, documents,
    seconds)."""
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(target)
    builder = tantivy.SchemaBuilder()
    for field in ("title", "description", "keywords", "body"):
        builder.add_text_field(field, stored=stored)
    builder.add_integer_field("id", stored=True)
    if with_attributes:
        for field in ("content_type", "host", "domain", "has_app", "app"):
            builder.add_text_field(field, fast=True, tokenizer_name="raw", index_option="basic")
        for field in ("lat", "lon"):
            builder.add_float_field(field, indexed=True, fast=True)
    index = tantivy.Index(builder.build(), path=target)
    writer = index.writer(heap_size=512_000_000, num_threads=2)
    started = time.perf_counter()
    count = 0
    with open(os.path.join(export, "corpus.jsonl")) as corpus:
        for line in corpus:
            i, title, description, keywords, body = json.loads(line)
            document = tantivy.Document(id=i, title=title, description=description, keywords=keywords, body=body)
            if with_attributes:
                for name, value in attributes(i).items():
                    for one in value if isinstance(value, list) else [value]:
                        if isinstance(one, float):
                            document.add_float(name, one)
                        else:
                            document.add_text(name, one)
            writer.add_document(document)
            count += 1
    writer.commit()
    writer.wait_merging_threads()
    seconds = time.perf_counter() - started
    index.reload()
    return index, count, seconds
