#!/usr/bin/env python3
"""How each cost grows with the index: Searchlight and Tantivy on the same documents and
queries, at each size, in one run.

    Benchmarks/scale_curve.py SEARCHLIGHT_BENCH WORK_DIR [--sizes 100000,1000000] [--sets standard,frequent,cjk]
    Benchmarks/scale_curve.py --plot WORK_DIR/curve.jsonl OUT_DIR

For each size N (the index benchmark's corpus, 300-word bodies, ~2 KB):
  1. `searchlight-bench serve-index WORK/ours-N --items N` builds our index (nothing holds
     the corpus: 10M items build in constant memory; run again, a stopped build goes on from
     what it committed); its build wall/CPU seconds, peak RSS, bytes per item and write
     amplification are printed;
  2. `searchlight-bench serve-index … --export WORK/export-N --export-only` makes the same
     documents again into a named pipe, which `tantivy_scale.py build` indexes in Tantivy
     0.27 as they come (fields stored, positions): the corpus never takes the disk's room;
  3. per query set, each engine in a fresh process: once after dropping the page cache
     (`/proc/sys/vm/drop_caches`, where the machine allows: cold), once more without (a
     fresh process on a warm page cache): open time, first query, first pass p50/p99, then
     warm rounds p50/p99 (one thread, top 10, words OR'ed).
Every result is a JSON line appended to WORK/curve.jsonl. `--plot` draws p99 against size
(warm and first pass) for each set, ours and Tantivy's, as PNGs.
"""
import json, os, shutil, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))


def drop_caches():
    subprocess.run(["sync"])
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return True
    except OSError:
        return False


def run(command):
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return json.loads([line for line in out.splitlines() if line.startswith("{")][-1])


def plot(curve_file, out_dir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = [json.loads(line) for line in open(curve_file)]
    # A set measured again at a size (a run disturbed by other work, rerun) counts once: the last.
    latest = {(r["engine"], r["set"], r["items"]): r for r in rows if r.get("kind") == "query" and r.get("cache") == "cold"}
    queries = list(latest.values())
    sets = sorted({r["set"] for r in queries})
    for measure, label in (("p99_ms", "warm p99"), ("first_pass_p99_ms", "first pass p99 (cold page cache)")):
        fig, axes = plt.subplots(1, len(sets), figsize=(5 * len(sets), 4))
        for ax, name in zip(axes if len(sets) > 1 else [axes], sets):
            for engine, style in (("searchlight", "o-"), ("tantivy", "s--")):
                points = sorted((r["items"], r[measure]) for r in queries if r["set"] == name and r["engine"] == engine)
                if points:
                    ax.plot([p[0] for p in points], [p[1] for p in points], style, label=engine)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title(f"{name}: {label}")
            ax.set_xlabel("items")
            ax.set_ylabel("ms")
            ax.legend()
        fig.tight_layout()
        name = "scale_p99_warm.png" if measure == "p99_ms" else "scale_p99_first_pass.png"
        fig.savefig(os.path.join(out_dir, name), dpi=100)
        print(os.path.join(out_dir, name))


if sys.argv[1] == "--plot":
    plot(sys.argv[2], sys.argv[3])
    sys.exit(0)

bench, work = sys.argv[1], sys.argv[2]
sizes = [int(s) for s in (sys.argv[sys.argv.index("--sizes") + 1] if "--sizes" in sys.argv else "100000,1000000").split(",")]
sets = (sys.argv[sys.argv.index("--sets") + 1] if "--sets" in sys.argv else "standard,frequent,cjk").split(",")
os.makedirs(work, exist_ok=True)
curve = open(os.path.join(work, "curve.jsonl"), "a")


def record(row):
    print(json.dumps(row), flush=True)
    curve.write(json.dumps(row) + "\n")
    curve.flush()


for size in sizes:
    ours, export, theirs = (os.path.join(work, f"{kind}-{size}") for kind in ("ours", "export", "tantivy"))
    queries = os.path.join(work, f"queries-{size}.json")
    # A build stopped part way goes on from what it committed (serve-index keeps its figures).
    if not os.path.exists(os.path.join(ours, "built.json")):
        row = run([bench, "serve-index", ours, "--items", str(size)])
        record({"kind": "build", "engine": "searchlight", "items": size, **row})
        with open(os.path.join(ours, "built.json"), "w") as f:
            json.dump(row, f)
    # Tantivy writes meta.json as it starts: a finished build is marked apart.
    if not os.path.exists(os.path.join(theirs, "built.json")) or not os.path.exists(queries):
        shutil.rmtree(export, ignore_errors=True)
        os.makedirs(export)
        os.mkfifo(os.path.join(export, "corpus.jsonl"))
        maker = subprocess.Popen([bench, "serve-index", export, "--items", str(size), "--export", export, "--export-only"],
                                 stdout=subprocess.DEVNULL)
        try:
            row = run([sys.executable, os.path.join(HERE, "tantivy_scale.py"), "build", export, theirs])
        except BaseException:
            maker.kill()
            raise
        if maker.wait() != 0:
            sys.exit("the corpus maker failed")
        shutil.copy(os.path.join(export, "queries.json"), queries)
        shutil.rmtree(export, ignore_errors=True)
        record({"kind": "build", "items": size, **row})
        with open(os.path.join(theirs, "built.json"), "w") as f:
            json.dump(row, f)
    for name in sets:
        # Each engine cold, then at once again on the page cache its cold run filled.
        for engine in ("searchlight", "tantivy"):
            for cache in ("cold", "fresh"):
                dropped = drop_caches() if cache == "cold" else False
                if engine == "searchlight":
                    row = run([bench, "query-profile", ours, "--set", name, "--rounds", "3", "--queries", queries])
                else:
                    row = run([sys.executable, os.path.join(HERE, "tantivy_scale.py"), "query", theirs, queries, name])
                row.pop("engine", None)
                record({"kind": "query", "engine": engine, "items": size, "set": name, "cache": cache,
                        "page_cache_dropped": dropped, **row})
