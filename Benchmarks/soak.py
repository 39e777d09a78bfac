#!/usr/bin/env python3
"""Soak test: `searchlight serve` under hostile clients for a while, loopback only.

    Benchmarks/soak.py SEARCHLIGHT_BINARY DATA_DIR [--seconds 120] [--port 18099]

Starts `serve` on DATA_DIR (which needs an index; an API key is created in it), then runs at
once, until the time is up:
  - 1,500 slow connections from 127.9.0.1, each sending a header line every 10 s (slowloris);
  - anonymous uploads that declare 8 MB bodies and send them slowly;
  - anonymous engagement reports from 9 networks (127.7.N.1) declaring bodies that add up to more
    than the anonymous body budget, one byte every 10 s (issue 24: they used to stop every write);
  - a key holder pushing 4 MB titles (refused) and batches of valid items;
  - searches from 127.0.0.1 with a different `installed=` list each time (one-off cache keys).
Samples the server's RSS every second and prints one JSON object: RSS at the start, the
peak, the first and last quarter's medians, searches answered and their p50/p99 latency,
and how the hostile requests were answered.
"""
import json, os, random, socket, statistics, subprocess, sys, threading, time, urllib.request

def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0

def main():
    binary, data = sys.argv[1], sys.argv[2]
    seconds = int(sys.argv[sys.argv.index("--seconds") + 1]) if "--seconds" in sys.argv else 120
    port = int(sys.argv[sys.argv.index("--port") + 1]) if "--port" in sys.argv else 18099
    key = subprocess.run([binary, "keys", "create", "--owner", "soak", "--domain", "soak.example", "--data", data],
                         capture_output=True, text=True, check=True).stdout.strip()
    server = subprocess.Popen([binary, "serve", "--data", data, "--listen", f"127.0.0.1:{port}"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    server.stdout.readline()
    base = f"http://127.0.0.1:{port}"
    stop = time.time() + seconds
    counts = {"slowConnectionsOpened": 0, "slowConnectionsRefused": 0, "uploadAnswers": {}, "pushAnswers": {}, "searchErrors": 0}
    latencies, samples = [], []
    lock = threading.Lock()

    def count(table, status):
        with lock:
            counts[table][str(status)] = counts[table].get(str(status), 0) + 1

    def slowloris():
        held = []
        for _ in range(1500):
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=2, source_address=("127.9.0.1", 0))
                s.sendall(b"GET /v1/search?q=x HTTP/1.1\r\nHost: x\r\n")
                held.append(s)
                counts["slowConnectionsOpened"] += 1
            except OSError:
                counts["slowConnectionsRefused"] += 1
        while time.time() < stop:
            for s in list(held):
                try:
                    s.sendall(b"X-Slow: 1\r\n")
                except OSError:
                    held.remove(s)
            time.sleep(10)
        for s in held:
            s.close()

    def uploads():
        while time.time() < stop:
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=("127.8.0.1", 0))
                s.sendall(b"POST /v1/items HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 8000000\r\n\r\n{\"items\": [")
                answer = s.recv(64).split(b" ")
                count("uploadAnswers", answer[1].decode() if len(answer) > 1 else "closed")
                s.close()
            except OSError:
                count("uploadAnswers", "error")
            time.sleep(0.05)

    def slow_engagement():
        held = []
        for network in range(9):
            for _ in range(4):
                try:
                    s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(f"127.7.{network}.1", 0))
                    s.sendall(b"POST /v1/engagement HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 65000\r\n\r\n{")
                    held.append(s)
                except OSError:
                    pass
        with lock:
            counts["slowEngagementUploads"] = len(held)
        while time.time() < stop:
            time.sleep(10)
            for s in list(held):
                try:
                    s.sendall(b" ")
                except OSError:
                    held.remove(s)
        for s in held:
            s.close()

    def pushes():
        huge = json.dumps({"items": [{"uniqueIdentifier": "huge", "title": "A" * (4 << 20), "webURL": "https://soak.example/h"}]}).encode()
        n = 0
        while time.time() < stop:
            body = huge if n % 2 == 0 else json.dumps({"items": [
                {"uniqueIdentifier": f"s{n}-{i}", "title": f"Soak item {n} {i}", "webURL": f"https://soak.example/{n}/{i}"} for i in range(50)]}).encode()
            request = urllib.request.Request(base + "/v1/items", data=body, method="POST",
                                             headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
            try:
                status = urllib.request.urlopen(request, timeout=30).status
            except urllib.error.HTTPError as error:
                status = error.code
            except OSError:
                status = "error"
            count("pushAnswers", status)
            n += 1
            time.sleep(0.2)

    def searches():
        n = 0
        while time.time() < stop:
            installed = "&".join(f"installed=com.soak.app{n}.{i}" for i in range(30))
            started = time.time()
            try:
                urllib.request.urlopen(f"{base}/v1/search?q=soak+item&{installed}", timeout=10).read()
                with lock:
                    latencies.append((time.time() - started) * 1000)
            except OSError:
                with lock:
                    counts["searchErrors"] += 1
            n += 1

    threads = [threading.Thread(target=f) for f in (slowloris, uploads, slow_engagement, pushes, searches)]
    for t in threads:
        t.start()
    while time.time() < stop:
        samples.append(rss_kb(server.pid))
        time.sleep(1)
    for t in threads:
        t.join()
    server.terminate()
    server.wait()
    quarter = max(1, len(samples) // 4)
    latencies.sort()
    print(json.dumps({
        "seconds": seconds, "rssStartKB": samples[0], "rssPeakKB": max(samples),
        "rssFirstQuarterMedianKB": statistics.median(samples[:quarter]), "rssLastQuarterMedianKB": statistics.median(samples[-quarter:]),
        "searches": len(latencies), "searchP50Ms": round(latencies[len(latencies) // 2], 1) if latencies else None,
        "searchP99Ms": round(latencies[int(len(latencies) * 0.99)], 1) if latencies else None, **counts}))

if __name__ == "__main__":
    main()
