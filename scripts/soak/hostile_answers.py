"""Memory under hostile upstreams (issue 19, defect 2; issue 29, point 2): the built zip with its
defaults against upstreams that answer 300 MB bodies (with and without Content-Length, fast and
trickling) and valid 12 MiB completions, many at once; then streams of events each under
upstream.maxEventBytes: one stream of 60 events of 3.9 MiB (chat, and Responses passed through) and
four streams at once of 200 events of 1 MiB. Prints the statuses, the errors' kinds, how each stream
ended, the slowest request, the peak RSS (sampled every 100 ms) and whether the log has an
OutOfMemoryError. Exit 1 on an OOM, a 500, a request without an answer, a 200 stream that ends with
neither its terminator nor an error event, or a peak RSS over 320 MiB.

Usage: python3 hostile_answers.py <unpacked zip home> [rounds]"""
import json, os, signal, socket, subprocess, sys, tempfile, threading, time, urllib.error, urllib.request

# scripts/hostile-answers.sh bounds the run with timeout(1): its SIGTERM still stops Sluice (finally below)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(3))

HOME = sys.argv[1]
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
HUGE = 300 * 1024 * 1024
MAX_RSS_MIB = 320
STREAM_SHAPES = {"events39": (60, 3900 * 1024), "events1": (200, 1024 * 1024)}


def chat_event(size):
    return (b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,'
            b'"delta":{"content":"' + b"y" * size + b'"}}]}\n\n')


def responses_event(size, seq):
    return (b'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":%d,'
            b'"item_id":"msg_1","output_index":0,"content_index":0,"delta":"' % seq + b"y" * size + b'"}\n\n')


def stream_answer(c, kind, path):
    """Events each under upstream.maxEventBytes, then the stream's proper end."""
    count, size = STREAM_SHAPES[kind]
    c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
    if path.startswith(b"/v1/responses"):
        c.sendall(b'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"r",'
                  b'"object":"response","status":"in_progress","output":[]}}\n\n')
        for i in range(count):
            c.sendall(responses_event(size, i + 1))
        c.sendall(b'event: response.completed\ndata: {"type":"response.completed","sequence_number":%d,"response":{"id":"r",'
                  b'"object":"response","status":"completed","output":[]}}\n\n' % (count + 1))
        return
    event = chat_event(size)
    for _ in range(count):
        c.sendall(event)
    c.sendall(b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,'
              b'"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n')
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
            if kind in STREAM_SHAPES:
                stream_answer(c, kind, head.split(b" ")[1])
                return
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


def stream_call(base, key, path, payload, timeout=200):
    """A streamed request read to its end; only the tail is kept. Returns (status, how it ended, bytes)."""
    req = urllib.request.Request(base + path, data=json.dumps(payload).encode(), method="POST",
                                 headers={"Authorization": "Bearer " + key, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            tail, total = b"", 0
            while True:
                chunk = r.read(1 << 20)
                if not chunk:
                    break
                total += len(chunk)
                tail = (tail + chunk)[-4096:]
            text = tail.decode("utf-8", "replace").rstrip()
            last = text[text.rfind("data: "):] if "data: " in text else text[-200:]
            if last.startswith("data: [DONE]") or '"response.completed"' in last:
                ended = "terminator"
            elif '"error"' in last or "response.failed" in last:
                ended = "error event: " + next((k for k in ("upstream.maxStreamBytes", "upstream.answerBufferBytes",
                                                            "upstream.maxEventBytes") if k in last), last[:100])
            else:
                ended = "CUT: " + last[-100:]
            return r.status, ended, total
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")[:120], 0
    except Exception as e:  # no answer at all
        return 0, str(e), 0


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
        ports = {k: upstream(k) for k in ("sized", "endless", "trickle", "valid", "events39", "events1")}
        models = {"attack": [], "valid": []}
        for kind, port in ports.items():
            if kind in STREAM_SHAPES:
                call(base, admin, "/api/providers", {"provider": "openai" if kind == "events39" else kind, "authType": "apikey",
                                                     "apiKey": "sk-hostile-0123456789", "baseUrl": "http://127.0.0.1:%d/v1" % port})
                continue
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
        # issue 29: streams of in-limit events, one of 60 x 3.9 MiB (chat, then Responses passed through)
        # and four at once of 200 x 1 MiB; every 200 must end with its terminator or an error event
        streams = []

        def one_stream(path, payload):
            t0 = time.time()
            status, ended, total = stream_call(base, key, path, payload)
            with lock:
                streams.append((path, status, ended, total, time.time() - t0))

        one_stream("/v1/chat/completions", {"model": "openai/m", "stream": True, "messages": [{"role": "user", "content": "hi"}]})
        one_stream("/v1/responses", {"model": "openai/m", "stream": True, "input": "hi"})
        threads = [threading.Thread(target=one_stream, args=("/v1/chat/completions", {
            "model": "events1/m", "stream": True, "messages": [{"role": "user", "content": "hi"}]})) for _ in range(4)]
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
        for path, status, ended, total, took in streams:
            print("stream %-22s %3d %6.1f MiB in %5.1f s, ended with %s" % (path, status, total / 1048576.0, took, ended))
        print("requests %d, streams %d, slowest %.1f s, peak RSS %d MiB (bound %d), OutOfMemoryError in log: %s"
              % (len(results), len(streams), max(r[3] for r in results + [(0, 0, 0, s[4]) for s in streams]), peak[0],
                 MAX_RSS_MIB, "yes" if oom else "no"))
        bad = oom or any(r[1] in (0, 500) for r in results) or peak[0] > MAX_RSS_MIB
        bad = bad or any(s[1] in (0, 500) or (s[1] == 200 and s[2].startswith("CUT")) for s in streams)
        return 1 if bad else 0
    finally:
        sluice.terminate()
        try:
            sluice.wait(20)
        except subprocess.TimeoutExpired:
            sluice.kill()


if __name__ == "__main__":
    sys.exit(main())
