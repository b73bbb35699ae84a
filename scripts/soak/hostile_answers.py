"""Memory under hostile upstreams (issue 19, defect 2; not run by CI): the built zip with its defaults
against upstreams that answer 300 MB bodies (with and without Content-Length, fast and trickling) and
valid 12 MiB completions, many at once. Prints the statuses, the errors' kinds, the slowest request, the
peak RSS (sampled every 100 ms) and whether the log has an OutOfMemoryError. Exit 1 on an OOM, a 500 or
a request without an answer.

Usage: python3 hostile_answers.py <unpacked zip home> [rounds]"""
import json, os, socket, subprocess, sys, tempfile, threading, time, urllib.error, urllib.request

HOME = sys.argv[1]
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
HUGE = 300 * 1024 * 1024
CHUNK = b"x" * 65536
VALID = json.dumps({"id": "c", "object": "chat.completion", "created": 1, "model": "m",
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": "y" * (12 << 20)},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()


def upstream(kind):
    """A loopback upstream answering every request in one way: sized | endless | trickle | valid."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(128)

    def handle(c):
        try:
            data = b""
            while b"\r\n\r\n" not in data:
                d = c.recv(65536)
                if not d:
                    return
                data += d
            head, _, rest = data.partition(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            while len(rest) < length:
                d = c.recv(65536)
                if not d:
                    break
                rest += d
            if kind == "valid":
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                          b"Connection: close\r\n\r\n" % len(VALID) + VALID)
                return
            sized = kind == "sized"
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                      + (b"Content-Length: %d\r\n" % HUGE if sized else b"Connection: close\r\n") + b"\r\n")
            for _ in range(HUGE // len(CHUNK)):
                c.sendall(CHUNK)
                if kind == "trickle":
                    time.sleep(0.005)
        except OSError:
            pass
        finally:
            c.close()

    def accept():
        while True:
            c, _ = s.accept()
            threading.Thread(target=handle, args=(c,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return s.getsockname()[1]


def call(base, key, path, payload, timeout=120):
    req = urllib.request.Request(base + path, data=json.dumps(payload).encode(), method="POST",
                                 headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def main():
    work = tempfile.mkdtemp(prefix="sluice-hostile.")
    admin = "hostile-admin-%d" % os.getpid()
    env = dict(os.environ, SLUICE_HOST="127.0.0.1", SLUICE_PORT="0", SLUICE_DATA_DIR=work + "/data", SLUICE_ADMIN_KEY=admin)
    log_path = work + "/sluice.log"
    sluice = subprocess.Popen([HOME + "/bin/sluice"], env=env, stdout=open(log_path, "w"), stderr=subprocess.STDOUT)
    try:
        base = None
        for _ in range(600):
            time.sleep(0.1)
            text = open(log_path).read()
            if "Sluice listening on " in text:
                base = text.split("Sluice listening on ")[1].split()[0]
                break
        if not base:
            print("Sluice did not start; see " + log_path)
            return 2
        java = sluice.pid  # bin/sluice execs the JVM
        ports = {k: upstream(k) for k in ("sized", "endless", "trickle", "valid")}
        models = {"attack": [], "valid": []}
        for kind, port in ports.items():
            for i in range(6 if kind != "sized" else 1):
                name = "%s%d" % (kind, i)
                call(base, admin, "/api/providers", {"provider": name, "authType": "apikey", "apiKey": "sk-hostile-0123456789",
                                                     "baseUrl": "http://127.0.0.1:%d/v1" % port})
                models["valid" if kind == "valid" else "attack"].append(name + "/m")
        key = json.loads(call(base, admin, "/api/keys", {"name": "hostile"})[1])["key"]
        peak = [0]
        done = threading.Event()

        def sample():
            while not done.is_set():
                try:
                    with open("/proc/%d/status" % java) as f:
                        for line in f:
                            if line.startswith("VmRSS:"):
                                peak[0] = max(peak[0], int(line.split()[1]) // 1024)
                except OSError:
                    return
                time.sleep(0.1)

        threading.Thread(target=sample, daemon=True).start()
        results = []
        lock = threading.Lock()

        def one(model):
            t0 = time.time()
            try:
                status, body = call(base, key, "/v1/chat/completions", {"model": model, "messages": [{"role": "user", "content": "hi"}]})
            except Exception as e:  # no answer at all
                status, body = 0, str(e).encode()
            kind = "ok"
            if status != 200:
                text = body.decode("utf-8", "replace")
                kind = next((k for k in ("upstream.maxAnswerBytes", "upstream.answerBufferBytes", "timeout") if k in text), text[:120])
            with lock:
                results.append((model.split("/")[0].rstrip("0123456789"), status, kind, time.time() - t0))

        for group in ("attack", "valid"):
            for _ in range(ROUNDS):
                threads = [threading.Thread(target=one, args=(m,)) for m in models[group]]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
        done.set()
        oom = "OutOfMemoryError" in open(log_path).read()
        summary = {}
        for group, status, kind, _ in results:
            summary[(group, status, kind)] = summary.get((group, status, kind), 0) + 1
        for (group, status, kind), n in sorted(summary.items()):
            print("%-8s %3d %-28s %d" % (group, status, kind, n))
        print("requests %d, slowest %.1f s, peak RSS %d MiB, OutOfMemoryError in log: %s"
              % (len(results), max(r[3] for r in results), peak[0], "yes" if oom else "no"))
        bad = oom or any(r[1] in (0, 500) for r in results)
        return 1 if bad else 0
    finally:
        sluice.terminate()
        try:
            sluice.wait(20)
        except subprocess.TimeoutExpired:
            sluice.kill()


if __name__ == "__main__":
    sys.exit(main())
