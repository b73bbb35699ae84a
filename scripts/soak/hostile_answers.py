"""Memory under hostile upstreams (issue 19, defect 2; issue 29, point 2): the built zip with its
defaults against upstreams that answer 300 MB bodies (with and without Content-Length, fast and
trickling), valid 12 MiB completions, valid 12 MiB completions of two-byte text and valid 12 MiB
completions of four million empty objects (a tree of ~400 MiB if parsed; issue 29), many at once;
then streams of events each under
upstream.maxEventBytes: one stream of 60 events of 3.9 MiB (chat, and Responses passed through) and
four streams at once of 200 events of 1 MiB. Prints the statuses, the errors' kinds, how each stream
ended, the slowest request, the peak RSS (sampled every 100 ms) and whether the log has an
OutOfMemoryError. Exit 1 on an OOM, a 500, a request without an answer, a 200 stream that ends with
neither its terminator nor an error event, or a peak RSS over 320 MiB; then the run's temp directory
is kept and named, with the server log and the heap dump an OutOfMemoryError wrote (hostile_kit).

Usage: python3 hostile_answers.py <unpacked zip home> [rounds]"""
import json, os, signal, sys, threading, time, urllib.error, urllib.request

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile_kit import Sluice, call, memory_mib, request_path, serve  # noqa: E402

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


WIDE = json.dumps({"id": "c", "object": "chat.completion", "created": 1, "model": "m",
                   "choices": [{"index": 0, "message": {"role": "assistant", "content": "\u20ac" + "y" * (12 << 20)},
                                "finish_reason": "stop"}]}, ensure_ascii=False).encode()
TREE = (b'{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant",'
        b'"content":"hi"},"finish_reason":"stop"}],"x":[' + b",".join([b"{}"] * ((12 << 20) // 3)) + b"]}")
WHOLE = {"valid": VALID, "wide": WIDE, "tree": TREE}


def upstream(kind):
    """A loopback upstream answering every request in one way: sized | endless | trickle | valid | wide | tree | a stream shape."""

    def answer(c, head, _body):
        if kind in STREAM_SHAPES:
            stream_answer(c, kind, request_path(head))
            return False
        if kind in WHOLE:
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
                      b"Connection: close\r\n\r\n" % len(WHOLE[kind]) + WHOLE[kind])
            return False
        sized = kind == "sized"
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                  + (b"Content-Length: %d\r\n" % HUGE if sized else b"Connection: close\r\n") + b"\r\n")
        for _ in range(HUGE // len(CHUNK)):
            c.sendall(CHUNK)
            if kind == "trickle":
                time.sleep(0.005)
        return False

    return serve(answer)


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
    sluice = Sluice(HOME, "sluice-hostile.")
    passed = False
    try:
        if not sluice.base:
            print("Sluice did not start; see " + sluice.log_path)
            return 2
        base = sluice.base
        ports = {k: upstream(k) for k in ("sized", "endless", "trickle", "tree", "valid", "wide", "events39", "events1")}
        models = {"attack": [], "valid": [], "wide": []}
        for kind, port in ports.items():
            if kind in STREAM_SHAPES:
                sluice.add_connection("openai" if kind == "events39" else kind, port)
                continue
            for i in range(6 if kind != "sized" else 1):
                name = "%s%d" % (kind, i)
                sluice.add_connection(name, port)
                models[kind if kind in models else "attack"].append(name + "/m")
        key = sluice.add_key("hostile")
        peak = [0, 0, 0]
        done = threading.Event()

        def sample():
            while not done.is_set():
                now = memory_mib(sluice.pid)
                if now[0] > peak[0]:
                    peak[:] = now
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
                kind = next((k for k in ("too many JSON values", "upstream.maxAnswerBytes", "upstream.answerBufferBytes", "timeout")
                             if k in text), text[:120])
            with lock:
                results.append((model.split("/")[0].rstrip("0123456789"), status, kind, time.time() - t0))

        for group in ("attack", "valid", "wide"):
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
        oom = sluice.out_of_memory()
        summary = {}
        for group, status, kind, _ in results:
            summary[(group, status, kind)] = summary.get((group, status, kind), 0) + 1
        for (group, status, kind), n in sorted(summary.items()):
            print("%-8s %3d %-28s %d" % (group, status, kind, n))
        for path, status, ended, total, took in streams:
            print("stream %-22s %3d %6.1f MiB in %5.1f s, ended with %s" % (path, status, total / 1048576.0, took, ended))
        print("requests %d, streams %d, slowest %.1f s, peak RSS %d MiB (bound %d; %d anonymous, %d file-backed),"
              " OutOfMemoryError in log: %s"
              % (len(results), len(streams), max(r[3] for r in results + [(0, 0, 0, s[4]) for s in streams]), peak[0],
                 MAX_RSS_MIB, peak[1], peak[2], "yes" if oom else "no"))
        bad = oom or any(r[1] in (0, 500) for r in results) or peak[0] > MAX_RSS_MIB
        bad = bad or any(s[1] in (0, 500) or (s[1] == 200 and s[2].startswith("CUT")) for s in streams)
        # the tree answers are refused before they are parsed, never served or a 500
        bad = bad or any(r[0] == "tree" and r[1] != 502 for r in results)
        passed = not bad
        return 0 if passed else 1
    finally:
        sluice.finish(passed)


if __name__ == "__main__":
    sys.exit(main())
