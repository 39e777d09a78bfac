#!/usr/bin/env bash
# ../shared/bench/crawl_cpu.sh on a crawl whose index keeps bodies compressed: its
# index_floor.py reads item_bodies.body as text, and since issue 45 a body is a blob — a format
# byte, the text's length and a raw DEFLATE stream (Sources/SearchIndex/StoredText.swift) —
# which Tantivy would be handed as bytes and not index, making the floor look cheaper than it
# is. This runs the shared scripts from a temporary folder, index_floor.py's row reading
# changed to inflate such bodies first; nothing else differs.
#
# --same-work (issue 44): the index floor does what our index does rather than more or less of
# it — each field indexed twice, with Tantivy's `default` tokenizer (exact forms) and `en_stem`
# (stems), term frequencies only (our phrases are checked on the stored text), the body stored
# (Tantivy compresses its document store) — and the crawl with WARC is also held against the
# archive's own work on each response: SHA-1 of the payload and a libdeflate level-1 gzip
# member (libdeflate through ctypes, as the crawl links it). Then prints the crawl against
# that floor, with and without WARC.
# usage: Benchmarks/crawl_floor.sh BINARY [--same-work]   (needs nginx-light, curl, pip tantivy)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shared=${SHARED_BENCH:-$here/../../shared/bench}
same=${2:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$shared"/* "$work/"
python3 - "$work/index_floor.py" "$same" <<'PY'
import sys
path, same = sys.argv[1], sys.argv[2] == "--same-work"
text = open(path).read()
read = 'rows = db.execute("select i.title, coalesce(i.description, \'\'), coalesce(b.body, \'\') from items i left join item_bodies b on b.rowid = i.rowid").fetchall()'
schema = 'for f in ("title", "description", "body"): sb.add_text_field(f, stored=True, tokenizer_name="en_stem")'
add = 'for title, desc, body in rows: wr.add_document(tantivy.Document(title=title, description=desc, body=body))'
for line in (read, schema, add):
    assert line in text, "index_floor.py changed: update crawl_floor.sh"
text = text.replace(read, read + """
import zlib
def _text(body):
    if isinstance(body, bytes) and body[:1] == b"\\x01":
        return zlib.decompress(body[5:], -15).decode()
    return body
rows = [(title, desc, _text(body)) for title, desc, body in rows]""")
if same:
    text = text.replace(schema, """for f in ("title", "description", "body"):
    sb.add_text_field(f, stored=(f == "body"), tokenizer_name="en_stem", index_option="freq")
    sb.add_text_field(f + "_exact", stored=False, tokenizer_name="default", index_option="freq")""")
    text = text.replace(add, """for title, desc, body in rows:
        wr.add_document(tantivy.Document(title=title, description=desc, body=body, title_exact=title, description_exact=desc, body_exact=body))""")
open(path, "w").write(text)
PY
bash "$work/crawl_cpu.sh" "$1" | tee "$work/figures"
[ "$same" = "--same-work" ] || exit 0
# The archive's work per response, on pages of the same generator and size.
python3 "$shared/synthweb.py" "$work/sample" --hosts 2 --pages 500 --kb 40 --scheme http >/dev/null
python3 - "$work/sample" "$work/figures" <<'PY'
import ctypes, glob, hashlib, re, sys, time
lib = ctypes.CDLL("libdeflate.so.0")
lib.libdeflate_alloc_compressor.restype = ctypes.c_void_p
lib.libdeflate_gzip_compress.restype = ctypes.c_size_t
lib.libdeflate_gzip_compress.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t]
compressor = ctypes.c_void_p(lib.libdeflate_alloc_compressor(1))
pages = [open(p, "rb").read() for p in glob.glob(f"{sys.argv[1]}/*/items/*.html")]
out = ctypes.create_string_buffer(max(map(len, pages)) * 2 + 1024)
start = time.process_time()
for body in pages:
    hashlib.sha1(body).digest()
    lib.libdeflate_gzip_compress(compressor, body, len(body), out, len(out))
warc_us = (time.process_time() - start) / len(pages) * 1e6
figures = open(sys.argv[2]).read()
crawl = [float(x) for x in re.findall(r"(\d+) us CPU/page \(user", figures)]
full = float(re.search(r"full_floor_us=(\d+)", figures).group(1))
print(f"warc work (SHA-1 + libdeflate level 1 of each response): {warc_us:.0f} us/page on {len(pages)} pages")
print(f"same-work floor: {full + warc_us:.0f} us/page with WARC, {full:.0f} without")
print(f"crawl_vs_same_work_floor={crawl[0] / (full + warc_us):.2f} no_warc={crawl[1] / full:.2f}")
PY
