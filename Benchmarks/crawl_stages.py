"""Places each sample of `perf script -F comm,ip,sym,dso` (DWARF call graphs of a crawl) in a
stage: the innermost frame on its stack whose demangled function belongs to a Searchlight
module decides (libc, SQLite, libxml2, kernel and standard-library frames count for the
Searchlight code that called them). Prints each stage's share of all samples, and the
index stage split by type. usage: crawl_stages.py STACKS.txt CRAWL.json"""
import collections
import json
import re
import subprocess
import sys

# Stage of a function by its module and, for the crawl's own module, its type.
CRAWL_TYPES = [
    ("WARC records (framing, compression, writes)", {"PageArchive", "WARCWriter"}),
    ("SimHash and exact-duplicate digests", {"DuplicateCheck", "NearDuplicateIndex", "TextFingerprint", "ContentDigest", "SiteTemplates"}),
    ("link admission and the seen filter", {"LinkAdmission", "SeenFilter", "URLPatternBudget"}),
    ("frontier writes and host state", {"Frontier", "LocalCrawlStore", "HostMachine", "HostFiles", "RevisitSchedule"}),
    ("extraction (markup, main text, items)", {"PageAnalyzer", "ExtractionPool"}),
]
MODULES = {
    "SearchIndex": "index writes (tokenize, stems, segments, SQLite rows)",
    "Markup": "extraction (markup, main text, items)", "PageItems": "extraction (markup, main text, items)",
    "ItemMapping": "extraction (markup, main text, items)", "TextUtilities": "extraction (markup, main text, items)",
    "JSON": "extraction (markup, main text, items)",
    "WebURL": "link admission and the seen filter", "WebRules": "robots, sitemaps, association files",
    "Fetch": "fetching (libcurl multi, transfers)", "Gzip": "WARC records (framing, compression, writes)",
    "SQLite": None,  # the wrapper: its caller decides
    "StoreSeams": "crawl engine and decisions", "Crawl": "crawl engine and decisions", "searchlight": "crawl engine and decisions",
}
LIBRARIES = [("libxml2", "libxml2"), ("libcurl", "libcurl"), ("libdeflate", "libdeflate"), ("SQLite", "sqlite"), ("Snowball", "stemmer"),
             ("kernel", "[kernel"), ("libc", "libc"), ("Swift runtime", "swift")]

OWNED = {"libdeflate": "WARC records (framing, compression, writes)", "libcurl": "fetching (libcurl multi, transfers)",
         "libxml2": "extraction (markup, main text, items)", "Snowball": "index writes (tokenize, stems, segments, SQLite rows)"}

def context(name):
    """`Module.Type.function` of a demangled name, without specialization and closure wrappers."""
    name = re.sub(r"^(merged |specialized |partial apply forwarder for |outlined \w+ of |reabstraction thunk helper from )+", "", name)
    while name.startswith("generic specialization <"):
        depth, i = 0, len("generic specialization ")
        for i in range(i, len(name)):
            depth += {"<": 1, ">": -1}.get(name[i], 0)
            if depth == 0: break
        name = name[i + 1:].removeprefix(" of ")
        name = re.sub(r"^(merged |specialized )+", "", name)
    if re.match(r"(implicit )?closure #\d+", name):
        depth = 0
        for i, c in enumerate(name):
            depth += {"(": 1, ")": -1, "<": 1, ">": -1}.get(c, 0)
            if depth == 0 and name.startswith(" in ", i): return context(name[i + 4:])
    return re.split(r"[ (<]", name, maxsplit=1)[0]

def main():
    samples, current = [], None
    for line in open(sys.argv[1], errors="replace"):
        if not line.strip():
            if current: samples.append(current)
            current = None
        elif not line.startswith((" ", "\t")):
            current = []
        elif current is not None:
            match = re.match(r"\s*\S+ (.*) \((.*)\)$", line.rstrip("\n"))
            if match: current.append((match.group(1), match.group(2)))
    if current: samples.append(current)
    symbols = sorted({sym for sample in samples for sym, dso in sample if sym.startswith("$s")})
    demangled = subprocess.run(["swift", "demangle"], input="\n".join(symbols), capture_output=True, text=True).stdout.split("\n")
    names = dict(zip(symbols, demangled))
    stages, index_types = collections.Counter(), collections.Counter()
    for sample in samples:
        stage = None
        for sym, dso in sample:
            if "searchlight" not in dso.rsplit("/", 1)[-1]: continue
            parts = context(names.get(sym, sym)).split(".")
            module, kind = parts[0], parts[1] if len(parts) > 1 else ""
            if module == "Crawl":
                stage = next((s for s, types in CRAWL_TYPES if kind in types), MODULES["Crawl"])
            else:
                stage = MODULES.get(module)
            if stage:
                if module == "SearchIndex": index_types[kind] += 1
                break
        if not stage:
            # Stacks the unwinder could not follow into Searchlight code: a library only one
            # stage uses is that stage's; the rest are named by their library.
            leaf = sample[0][1] if sample else ""
            library = next((name for name, key in LIBRARIES if key in leaf), "other")
            stage = OWNED.get(library, "outside Searchlight code: " + library)
        stages[stage] += 1
    total = len(samples)
    indexed = json.load(open(sys.argv[2])).get("indexed", 0)
    print(f"samples={total} indexed={indexed}")
    for stage, count in stages.most_common():
        print(f"{100 * count / total:5.1f} %  {stage}")
    print("index writes by type:")
    for kind, count in index_types.most_common(12):
        print(f"{100 * count / total:5.1f} %    {kind}")

main()
