#!/usr/bin/env bash
# ../shared/bench/crawl_cpu.sh on a crawl whose index keeps bodies compressed: its
# index_floor.py reads item_bodies.body as text, and since issue 45 a body is a blob — a format
# byte, the text's length and a raw DEFLATE stream (Sources/SearchIndex/StoredText.swift) —
# which Tantivy would be handed as bytes and not index, making the floor look cheaper than it
# is. This runs the shared scripts from a temporary folder, index_floor.py's row reading
# changed to inflate such bodies first; nothing else differs.
# usage: Benchmarks/crawl_floor.sh BINARY
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shared=${SHARED_BENCH:-$here/../../shared/bench}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$shared"/* "$work/"
python3 - "$work/index_floor.py" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
read = 'rows = db.execute("select i.title, coalesce(i.description, \'\'), coalesce(b.body, \'\') from items i left join item_bodies b on b.rowid = i.rowid").fetchall()'
assert read in text, "index_floor.py changed: update crawl_floor.sh"
text = text.replace(read, read + """
import zlib
def _text(body):
    if isinstance(body, bytes) and body[:1] == b"\\x01":
        return zlib.decompress(body[5:], -15).decode()
    return body
rows = [(title, desc, _text(body)) for title, desc, body in rows]""")
open(path, "w").write(text)
PY
bash "$work/crawl_cpu.sh" "$1"
