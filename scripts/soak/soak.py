#!/usr/bin/env python3
"""Soak test of the built zip (issue 19): mixed traffic with faults for a while, sampled every 10 s.

Usage: scripts/soak.sh [SECONDS] (default 600). Starts (on loopback, free ports) a fault-injecting
OpenAI-compatible mock upstream and the unpacked zip, creates three connections (the two tried first
fail 20 % of the time: 503, 429 with Retry-After, resets, 1 s delays, streams that stall), then runs
CLIENTS client threads over chat, Anthropic messages and Responses, half streamed. Every 10 s it prints
one markdown table row (the stream stall bound is set to 10 s): requests and errors in the window, error rate, p50/p95 latency, Sluice's RSS,
threads and open file descriptors (from /proc). Stops everything on every exit path.
"""
import faulthandler
import json
import signal
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DURATION = int(sys.argv[1]) if len(sys.argv) > 1 else 600
CLIENTS = int(os.environ.get("SOAK_CLIENTS", "8"))
ZIP_HOME = sys.argv[2] if len(sys.argv) > 2 else None


class Mock(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    faulty = False

    def log_message(self, *a):
        pass

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(n) or b"{}")
        r = random.random()
        if self.server.faulty and r < 0.05:
            self.send_json(503, {"error": {"message": "overloaded"}})
            return
        if self.server.faulty and r < 0.10:
            self.send_response(429)
            self.send_header("Retry-After", "1")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")
            return
        if self.server.faulty and r < 0.13:
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if self.server.faulty and r < 0.17:
            time.sleep(1)
        stall = self.server.faulty and 0.17 <= r < 0.20
        model = body.get("model", "m")
        if not body.get("stream"):
            self.send_json(200, {"id": "c1", "object": "chat.completion", "created": 0, "model": model,
                                 "choices": [{"index": 0, "message": {"role": "assistant", "content": "soak " * 20},
                                              "finish_reason": "stop"}],
                                 "usage": {"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30}})
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for i in range(20):
                self.chunk("data: " + json.dumps({"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": model,
                                                   "choices": [{"index": 0, "delta": {"content": "tok%d " % i},
                                                                "finish_reason": None}]}) + "\n\n")
                if stall and i == 5:
                    time.sleep(30)
                    return
                time.sleep(0.01)
            self.chunk("data: " + json.dumps({"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": model,
                                               "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}) + "\n\n")
            self.chunk("data: [DONE]\n\n")
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass

    def chunk(self, text):
        data = text.encode()
        self.wfile.write(b"%x\r\n" % len(data) + data + b"\r\n")
        self.wfile.flush()

    def send_json(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def serve(faulty):
    s = ThreadingHTTPServer(("127.0.0.1", 0), Mock)
    s.daemon_threads = True
    s.faulty = faulty
    threading.Thread(target=s.serve_forever, daemon=True).start()
    return s


def call(base, key, path, payload, timeout=60, method="POST"):
    req = urllib.request.Request(base + path, data=json.dumps(payload).encode(), method=method,
                                 headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, r.read()


def proc_stats(pid):
    rss = threads = 0
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) // 1024
            elif line.startswith("Threads:"):
                threads = int(line.split()[1])
    fds = len(os.listdir("/proc/%d/fd" % pid))
    return rss, threads, fds


def main():
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    home = ZIP_HOME
    work = tempfile.mkdtemp(prefix="sluice-soak.")
    mocks = [serve(True), serve(True), serve(False)]
    admin = "soak-admin-%d" % random.randrange(1 << 30)
    env = dict(os.environ, SLUICE_HOST="127.0.0.1", SLUICE_PORT="0", SLUICE_DATA_DIR=work + "/data", SLUICE_ADMIN_KEY=admin)
    log = open(work + "/sluice.log", "w")
    sluice = subprocess.Popen([home + "/bin/sluice"], env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        base = None
        for _ in range(600):
            time.sleep(0.1)
            text = open(work + "/sluice.log").read()
            if "Sluice listening on " in text:
                base = text.split("Sluice listening on ")[1].split()[0]
                break
        if not base:
            print("Sluice did not start; see " + work + "/sluice.log")
            return 2
        for i, m in enumerate(mocks):
            call(base, admin, "/api/providers", {"provider": "alpha", "apiKey": "sk-soak-%d" % i,
                                                  "baseUrl": "http://127.0.0.1:%d/v1" % m.server_address[1], "priority": i + 1})
        key = json.loads(call(base, admin, "/api/keys", {"name": "soak"})[1])["key"]
        # an agent operator's stall bound: 10 s without output ends a stream (the default, 180 s, would park the
        # clients behind the mock's stalls for minutes)
        call(base, admin, "/api/resilience", {"streamRecovery": {"idleTimeoutMs": 10000}}, method="PATCH")
        lock = threading.Lock()
        window = {"n": 0, "err": 0, "lat": []}
        totals = {"n": 0, "err": 0}
        stop = time.time() + DURATION

        def client(seed):
            rnd = random.Random(seed)
            while time.time() < stop:
                api = rnd.choice(["chat", "messages", "responses"])
                stream = rnd.random() < 0.5
                path, payload = {
                    "chat": ("/v1/chat/completions", {"model": "alpha/m", "stream": stream, "messages": [{"role": "user", "content": "hi"}]}),
                    "messages": ("/v1/messages", {"model": "alpha/m", "max_tokens": 64, "stream": stream,
                                                  "messages": [{"role": "user", "content": "hi"}]}),
                    "responses": ("/v1/responses", {"model": "alpha/m", "stream": stream, "input": "hi"}),
                }[api]
                t0 = time.time()
                ok = True
                try:
                    status, _ = call(base, key, path, payload)
                    ok = status == 200
                except Exception:  # a refused, reset or cut answer (IncompleteRead is no OSError) is an error, not the end
                    ok = False
                with lock:
                    window["n"] += 1
                    window["err"] += 0 if ok else 1
                    window["lat"].append(time.time() - t0)
                    totals["n"] += 1
                    totals["err"] += 0 if ok else 1

        threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(CLIENTS)]
        for t in threads:
            t.start()
        print("| t (s) | requests | errors | error rate | p50 (ms) | p95 (ms) | RSS (MiB) | threads | fds |")
        print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        start = time.time()
        while time.time() < stop:
            time.sleep(10)
            with lock:
                lat = sorted(window["lat"])
                n, err = window["n"], window["err"]
                window.update(n=0, err=0, lat=[])
            rss, th, fds = proc_stats(sluice.pid)
            p50 = lat[len(lat) // 2] * 1000 if lat else 0
            p95 = lat[int(len(lat) * 0.95)] * 1000 if lat else 0
            print("| %d | %d | %d | %.2f %% | %.0f | %.0f | %d | %d | %d |" % (time.time() - start, n, err,
                  100.0 * err / n if n else 0, p50, p95, rss, th, fds), flush=True)
        for t in threads:
            t.join(90)
        print("total: %d requests, %d errors (%.2f %%)" % (totals["n"], totals["err"],
                                                          100.0 * totals["err"] / max(1, totals["n"])))
        return 0
    finally:
        sluice.terminate()
        try:
            sluice.wait(20)
        except subprocess.TimeoutExpired:
            sluice.kill()
        for m in mocks:
            m.shutdown()


if __name__ == "__main__":
    sys.exit(main())
