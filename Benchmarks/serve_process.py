"""Starts `searchlight serve` for a benchmark and waits until it answers `/healthz`."""
import http.client, subprocess, sys, time


def start_serve(searchlight, data, port, timeout=120):
    """`searchlight serve --data DATA --cache-seconds 0` on 127.0.0.1:PORT, once it answers."""
    server = subprocess.Popen([searchlight, "serve", "--data", data, "--listen", f"127.0.0.1:{port}", "--cache-seconds", "0"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + timeout
    while True:
        try:
            probe = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            probe.request("GET", "/healthz")
            if probe.getresponse().status == 200:
                return server
        except OSError:
            pass
        if time.time() > deadline or server.poll() is not None:
            server.kill()
            sys.exit("searchlight serve did not start: " + server.stderr.read().decode()[-500:])
        time.sleep(0.2)
