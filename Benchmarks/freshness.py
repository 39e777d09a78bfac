#!/usr/bin/env python3
"""Notice-to-searchable latency of a continuous crawl (issue 59), on loopback.

    Benchmarks/freshness.py [--binary .build/release/searchlight] [--pages 60] [--notices 60]
                            [--interval 1] [--delay 0.5] [--cache-seconds N] [--work /tmp/freshness]

A site of PAGES pages (a threaded http.server on 127.0.0.1, its index linking every page) is
crawled by `crawl --continuous --delay DELAY` (trap detection off: sixty pages of one
template under /pN.html are what it exists to stop) while `serve --indexnow` takes notices on the same
data folder. Once the first crawl is in, NOTICES times, every INTERVAL seconds, one page is
rewritten with a word no page had and an IndexNow notice for it is posted; a poller asks
`GET /v1/search` for that word every 50 ms until the page is found. Prints the latencies'
p50/p99/max (notice posted → page in the answer) as JSON, with the serve's cache on its
defaults (or `--cache-seconds`, 0 for none). Nothing is fetched from outside the machine.
"""
import json, os, shutil, socket, subprocess, sys, threading, time, urllib.request
from http.server import ThreadingHTTPServer, SimpleHTTPRequestHandler

def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default

binary = arg("--binary", ".build/release/searchlight")
pages, notices = int(arg("--pages", "60")), int(arg("--notices", "60"))
interval, delay = float(arg("--interval", "1")), arg("--delay", "0.5")
work = arg("--work", "/tmp/freshness")
cache = arg("--cache-seconds", None)
key = "5e1f0c2a9b8d7e6f"
shutil.rmtree(work, ignore_errors=True)
site, data = os.path.join(work, "site"), os.path.join(work, "data")
os.makedirs(site)

def page(n, word):
    with open(os.path.join(site, f"p{n}.html"), "w") as f:
        f.write(f"<title>Lantern {n}</title><p>Lantern number {n}, brass and glass, {word}.</p>")

for n in range(pages): page(n, f"startword{n}x")
with open(os.path.join(site, "index.html"), "w") as f:
    f.write("<title>Lanterns</title><p>Every lantern we make.</p>" + "".join(f'<a href="/p{n}.html">{n}</a>' for n in range(pages)))
with open(os.path.join(site, f"{key}.txt"), "w") as f: f.write(key)

class Quiet(SimpleHTTPRequestHandler):
    def __init__(self, *a, **k): super().__init__(*a, directory=site, **k)
    def log_message(self, *a): pass
httpd = ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
port = httpd.server_address[1]
threading.Thread(target=httpd.serve_forever, daemon=True).start()
origin = f"http://127.0.0.1:{port}"

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); return s.getsockname()[1]

crawl = subprocess.Popen([binary, "crawl", origin + "/", "--data", data, "--continuous", "--allow-private", "--delay", delay,
                          "--no-sitemaps", "--no-warc", "--no-trap-detection"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
serve_port = free_port()
serve = None
try:
    def search(word):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{serve_port}/v1/search?q={word}", timeout=10) as r:
                return [x["url"] for x in json.load(r)["results"]]
        except Exception:
            return []
    time.sleep(1)
    serve = subprocess.Popen([binary, "serve", "--data", data, "--listen", f"127.0.0.1:{serve_port}", "--indexnow", "--allow-private"]
                             + (["--cache-seconds", cache] if cache else []),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    started = time.time()
    while f"{origin}/p{pages - 1}.html" not in search(f"startword{pages - 1}x"):
        if time.time() - started > 600: sys.exit("the first crawl did not finish in 10 minutes")
        time.sleep(0.5)
    first_crawl = time.time() - started
    latencies, lock, threads = [], threading.Lock(), []
    def notify(i):
        n = i % pages
        word = f"fresh{i}word"
        page(n, word)
        body = json.dumps({"host": "127.0.0.1", "key": key, "urlList": [f"{origin}/p{n}.html"]}).encode()
        request = urllib.request.Request(f"http://127.0.0.1:{serve_port}/indexnow", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        posted = time.time()
        urllib.request.urlopen(request, timeout=10).read()
        while time.time() - posted < 300:
            if f"{origin}/p{n}.html" in search(word):
                with lock: latencies.append(time.time() - posted)
                return
            time.sleep(0.05)
        with lock: latencies.append(float("inf"))
    for i in range(notices):
        t = threading.Thread(target=notify, args=(i,)); t.start(); threads.append(t)
        time.sleep(interval)
    for t in threads: t.join()
    latencies.sort()
    pick = lambda q: round(latencies[min(len(latencies) - 1, int(q * (len(latencies) - 1)))], 3)
    print(json.dumps({"benchmark": "freshness", "cache_seconds": cache or "default", "pages": pages, "notices": notices, "interval_s": interval, "delay_s": float(delay),
                      "first_crawl_s": round(first_crawl, 1), "p50_s": pick(0.5), "p99_s": pick(0.99), "max_s": round(latencies[-1], 3),
                      "found": sum(1 for x in latencies if x != float("inf"))}, indent=1))
finally:
    for p in (serve, crawl):
        if p: p.terminate(); p.wait()
    httpd.shutdown()
