#!/usr/bin/env python3
"""Freshness at the issue's scale (issue 59): a continuous crawl of the generated web, IndexNow
notices and pushed items alongside, the crawl's CPU per page against a scheduled run's, and
the crawl's memory, open files and files sampled over the whole run (the soak).

    swift build -c release --product searchlight
    python3 Benchmarks/freshness_web.py [--hosts 50] [--pages 200] [--kb 8] [--delay 1] [--notices 1000]
        [--seconds 600] [--pushes-every 2] [--no-scheduled] [--port 18090] [--work /tmp/freshness-web]

The web is `../shared/bench/synthweb.py` (HOSTS × PAGES pages of ~KB KB, robots.txt, sitemaps)
served by nginx on 127.0.0.1:PORT (`serve_web.sh`), every host holding an IndexNow key file.
1. Scheduled run (unless --no-scheduled): `crawl` of every host into its own folder; its CPU
   (user + system, from the kernel) over the pages it fetched.
2. `crawl --continuous` with the same flags, and `serve --indexnow` on its folder; once nothing is
   due (the first crawl is in) its CPU per page is read the same way.
3. For SECONDS: NOTICES notices spread evenly, each for a random page that is first rewritten with a
   word no page had, sent from the site's own address (127.0.N.1); a poller asks `GET /v1/search` for the word every 50 ms until the page is in
   the answer (notice-to-searchable). Every PUSHES-EVERY seconds an item with a new word is pushed
   with an API key and looked for the same way (push-to-searchable).
4. Every 30 s: the crawl's and the server's RSS and open files, and the sizes of index.sqlite,
   frontier.sqlite and their write-ahead logs.
5. SIGTERM: the crawl must exit 0 with every page committed.
Prints one JSON object. Nothing is fetched from outside the machine.
"""
import http.client, json, os, random, re, shutil, signal, socket, subprocess, sys, threading, time, urllib.request

def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
binary = os.path.abspath(arg("--binary", os.path.join(root, ".build/release/searchlight")))
bench = os.path.abspath(arg("--bench", os.path.join(root, "../shared/bench")))
hosts, pages, kb = int(arg("--hosts", "50")), int(arg("--pages", "200")), int(arg("--kb", "8"))
delay, notices, seconds = arg("--delay", "1"), int(arg("--notices", "1000")), float(arg("--seconds", "600"))
push_every = float(arg("--pushes-every", "2"))
port = int(arg("--port", "18090"))
work = arg("--work", "/tmp/freshness-web")
key = "5e1f0c2a9b8d7e6f"
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
web = os.path.join(work, "web")
subprocess.run([sys.executable, os.path.join(bench, "synthweb.py"), web, "--hosts", str(hosts), "--pages", str(pages), "--kb", str(kb),
                "--scheme", "http", "--origin-suffix", f":{port}"], check=True, stdout=subprocess.DEVNULL)
names = sorted(os.listdir(web))
for name in names:
    with open(os.path.join(web, name, f"{key}.txt"), "w") as f: f.write(key)
nginx = subprocess.run(["bash", os.path.join(bench, "serve_web.sh"), web, str(port), os.path.join(work, "nginx")],
                       check=True, capture_output=True, text=True).stdout.strip()
resolve = [x for name in names for x in ("--resolve", f"{name}:{port}:127.0.0.1")]
seeds = [f"http://{name}:{port}/" for name in names]
flags = ["--allow-private", "--delay", delay] + resolve

def log(*a): print(*a, file=sys.stderr, flush=True)

def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f: fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

def proc(pid):
    rss = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"): rss = int(line.split()[1]) * 1024
    return {"rss_mb": round(rss / 2**20, 1), "open_files": len(os.listdir(f"/proc/{pid}/fd"))}

def status(data):
    out = subprocess.run([binary, "status", "--data", data, "--json"], capture_output=True, text=True).stdout
    return json.loads(out) if out.strip() else {}

def fetched(data):
    urls = status(data).get("urls") or {}
    return sum(urls.get(k, 0) for k in ("done", "gone", "failing"))

result = {"benchmark": "freshness_web", "hosts": hosts, "pages": hosts * pages, "kb": kb, "delay_s": float(delay), "notices": notices,
          "seconds": seconds}
crawl = serve = None
try:
    if "--no-scheduled" not in sys.argv:
        log("scheduled run…")
        data = os.path.join(work, "scheduled")
        started = time.time()
        run = subprocess.Popen([binary, "crawl"] + seeds + ["--data", data] + flags, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, code, usage = os.wait4(run.pid, 0)
        n = fetched(data)
        cpu = usage.ru_utime + usage.ru_stime
        result["scheduled"] = {"pages": n, "wall_s": round(time.time() - started, 1), "cpu_s": round(cpu, 1),
                               "us_per_page": round(cpu / max(n, 1) * 1e6)}
        log(result["scheduled"])

    data = os.path.join(work, "continuous")
    os.makedirs(data)
    api_key = subprocess.run([binary, "keys", "create", "--data", data, "--owner", "bench", "--domain", "pushed.example"],
                             capture_output=True, text=True, check=True).stdout.split()[-1]
    log("continuous crawl…")
    started = time.time()
    crawl = subprocess.Popen([binary, "crawl"] + seeds + ["--data", data, "--continuous"] + flags,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); serve_port = s.getsockname()[1]
    time.sleep(2)
    serve = subprocess.Popen([binary, "serve", "--data", data, "--listen", f"127.0.0.1:{serve_port}", "--indexnow", "--allow-private"] + resolve,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        time.sleep(2)
        s = status(data)
        urls = s.get("urls") or {}
        if urls.get("known", 0) > hosts and urls.get("due", 1) == 0: break
        if time.time() - started > 3600: sys.exit("the first crawl did not finish in an hour")
    n = fetched(data)
    cpu = cpu_seconds(crawl.pid)
    result["continuous_first_crawl"] = {"pages": n, "wall_s": round(time.time() - started, 1), "cpu_s": round(cpu, 1),
                                        "us_per_page": round(cpu / max(n, 1) * 1e6)}
    if "scheduled" in result:
        result["cpu_per_page_ratio"] = round(result["continuous_first_crawl"]["us_per_page"] / max(result["scheduled"]["us_per_page"], 1), 3)
    log(result["continuous_first_crawl"], result.get("cpu_per_page_ratio"))
    cpu_before_notices, time_before_notices = cpu, time.time()

    base = f"http://127.0.0.1:{serve_port}"
    def search(word):
        try:
            with urllib.request.urlopen(f"{base}/v1/search?q={word}", timeout=10) as r:
                return [x.get("url") or x.get("id") for x in json.load(r)["results"]]
        except Exception:
            return []
    def wait_for(word, target, posted, into, lock):
        while time.time() - posted < 900:
            if target in search(word):
                with lock: into.append(time.time() - posted)
                return
            time.sleep(0.05)
        with lock: into.append(float("inf"))

    notice_latencies, push_latencies, lock, threads, samples = [], [], threading.Lock(), [], []
    rng = random.Random(59)
    def notify(i):
        name, page = rng.choice(names), rng.randrange(pages)
        path = os.path.join(web, name, "items", f"{page}.html")
        word = f"fresh{i}word"
        with open(path) as f: html = f.read()
        with open(path + ".tmp", "w") as f: f.write(html.replace("<p>", f"<p>{word} ", 1))
        os.replace(path + ".tmp", path)
        url = f"http://{name}:{port}/items/{page}.html"
        body = json.dumps({"host": name, "key": key, "urlList": [url]}).encode()
        posted = time.time()
        # Each site pings from an address of its own (127.0.N.1: another /24), as a CMS on the
        # site's own server does: a key not yet proved is charged to the sender's network.
        connection = http.client.HTTPConnection("127.0.0.1", serve_port, timeout=10,
                                                source_address=(f"127.0.{names.index(name) + 1}.1", 0))
        try:
            connection.request("POST", "/indexnow", body=body, headers={"Content-Type": "application/json"})
            answer = connection.getresponse()
            answer.read()
            if answer.status != 202: log("notice refused:", answer.status)
        except Exception as e:
            log("notice failed:", e)
        finally:
            connection.close()
        wait_for(word, url, posted, notice_latencies, lock)
    def push(i):
        word = f"pushed{i}word"
        item = {"items": [{"uniqueIdentifier": f"push-{i}", "title": f"Pushed lantern {word}", "webURL": f"https://pushed.example/{i}"}]}
        posted = time.time()
        try:
            urllib.request.urlopen(urllib.request.Request(f"{base}/v1/items", data=json.dumps(item).encode(), method="POST",
                                                          headers={"Content-Type": "application/json", "Authorization": f"Bearer {api_key}"}),
                                   timeout=10).read()
        except Exception as e:
            log("push refused:", e)
        wait_for(word, f"https://pushed.example/{i}", posted, push_latencies, lock)
    def sample():
        entry = {"t_s": round(time.time() - started), "crawl": proc(crawl.pid), "serve": proc(serve.pid)}
        for name in ("index.sqlite", "index.sqlite-wal", "frontier.sqlite", "frontier.sqlite-wal"):
            p = os.path.join(data, name)
            entry[name] = round(os.path.getsize(p) / 2**20, 1) if os.path.exists(p) else 0
        samples.append(entry)

    log(f"{notices} notices over {seconds:.0f} s…")
    begin = time.time()
    next_notice, next_push, next_sample, i, j = begin, begin, begin, 0, 0
    while time.time() - begin < seconds:
        now = time.time()
        if now >= next_sample:
            sample(); next_sample += 30
        if i < notices and now >= next_notice:
            t = threading.Thread(target=notify, args=(i,)); t.start(); threads.append(t); i += 1
            next_notice = begin + i * seconds / notices
        if push_every > 0 and now >= next_push:
            t = threading.Thread(target=push, args=(j,)); t.start(); threads.append(t); j += 1
            next_push += push_every
        time.sleep(0.01)
    for t in threads: t.join()
    sample()

    def summary(values):
        values = sorted(values)
        if not values: return {}
        pick = lambda q: round(values[min(len(values) - 1, int(q * (len(values) - 1)))], 3)
        return {"count": len(values), "found": sum(1 for x in values if x != float("inf")), "p50_s": pick(0.5), "p99_s": pick(0.99),
                "max_s": round(values[-1], 3)}
    result["notice_to_searchable"] = summary(notice_latencies)
    result["push_to_searchable"] = summary(push_latencies)
    result["crawl_cpu_during_notices_s"] = round(cpu_seconds(crawl.pid) - cpu_before_notices, 1)
    result["samples"] = {"first": samples[0], "last": samples[-1],
                         "max_crawl_rss_mb": max(s["crawl"]["rss_mb"] for s in samples),
                         "max_crawl_open_files": max(s["crawl"]["open_files"] for s in samples),
                         "max_index_wal_mb": max(s["index.sqlite-wal"] for s in samples),
                         "max_frontier_wal_mb": max(s["frontier.sqlite-wal"] for s in samples)}
    with open(os.path.join(work, "samples.json"), "w") as f: json.dump(samples, f, indent=1)
    with urllib.request.urlopen(f"{base}/metrics", timeout=10) as r:
        metrics = r.read().decode()
    result["metrics"] = [line for line in metrics.splitlines()
                         if re.match(r"searchlight_crawl_(due_urls|\w+_seconds_(count|sum))", line)]
    crawl.send_signal(signal.SIGTERM)
    out, _ = crawl.communicate(timeout=120)
    result["crawl_exit"] = crawl.returncode
    result["crawl_report_tail"] = [line for line in out.splitlines() if "stopped by" in line or "searchable:" in line]
    crawl = None
    print(json.dumps(result, indent=1))
finally:
    for p in (serve, crawl):
        if p:
            p.terminate(); p.wait()
    subprocess.run(["kill", nginx])
