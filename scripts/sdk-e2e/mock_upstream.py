#!/usr/bin/env python3
"""Scripted upstream for scripts/sdk-e2e.sh (Python 3 standard library only).

The agents-e2e mock (scripts/agents-e2e/mock_upstream.py: chat completions, Anthropic messages,
Responses for native-* models, /v1/models) with what the SDK suite needs besides, by upstream model name:

  ratelimit-*    chat, messages, responses, embeddings: 429 with Retry-After: 1 and the provider's own
                 error envelope, every time
  flaky-*        the same 429 on the first request for this model name, then the usual answer
                 (a client that honours Retry-After and retries gets a 200)
  badparam-*     400 {"error": {"message": "Unsupported value: 'temperature' …", "param": "temperature"}}
  slow-*         chat streams: the first chunk, then one chunk a second for 60 s (the client aborts)
  POST /v1/embeddings  the vector [0.25, -0.5, i] for input i (float32 base64 when encoding_format says so)

Port from argv[1] (0 = pick one; printed as MOCK_PORT=<n>); every request is appended as one JSON
line to argv[2] (if given).
"""
import base64
import importlib.util
import json
import os
import struct
import sys
import threading
import time
from http.server import ThreadingHTTPServer

_spec = importlib.util.spec_from_file_location(
    "agents_mock", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "agents-e2e", "mock_upstream.py"))
agents_mock = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(agents_mock)

SEEN = {}
SEEN_LOCK = threading.Lock()


def first_time(model):
    with SEEN_LOCK:
        n = SEEN.get(model, 0)
        SEEN[model] = n + 1
    return n == 0


class Handler(agents_mock.Handler):
    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        path = self.path.split("?")[0]
        model = str(body.get("model", "")) if isinstance(body, dict) else ""
        anthropic = path.startswith("/v1/messages")
        if model.startswith("ratelimit-") or (model.startswith("flaky-") and first_time(model)):
            self.record(body)
            return self.refuse(429, anthropic, "rate_limit_error", "mock: slow down", None, {"Retry-After": "1"})
        if model.startswith("badparam-"):
            self.record(body)
            return self.refuse(400, anthropic, "invalid_request_error",
                               "Unsupported value: 'temperature' does not support 3 with this model.", "temperature", {})
        if path == "/v1/embeddings":
            self.record(body)
            inputs = body.get("input") if isinstance(body.get("input"), list) else [body.get("input")]
            vectors = [[0.25, -0.5, float(i)] for i in range(len(inputs))]
            if body.get("encoding_format") == "base64":  # what the OpenAI SDKs ask for by default
                vectors = [base64.b64encode(struct.pack("<3f", *v)).decode() for v in vectors]
            return self.send_json(200, {"object": "list", "model": model, "data": [
                {"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)],
                "usage": {"prompt_tokens": 4, "total_tokens": 4}})
        if model.startswith("slow-") and path == "/v1/chat/completions" and body.get("stream"):
            self.record(body)
            return self.slow_chat(model)
        # hand the body to the agents mock as if it had just been read
        rfile, self.rfile = self.rfile, _Replay(raw)
        try:
            return super().do_POST()
        finally:
            self.rfile = rfile

    def refuse(self, status, anthropic, etype, message, param, headers):
        if anthropic:
            obj = {"type": "error", "error": {"type": etype, "message": message}}
        else:
            obj = {"error": {"message": message, "type": etype, "param": param, "code": None}}
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def slow_chat(self, model):
        self.start_sse()
        cid = "chatcmpl-slow%d" % int(time.time() * 1000)
        try:
            for i in range(60):
                self.chunk("data: " + json.dumps({"id": cid, "object": "chat.completion.chunk", "created": int(time.time()),
                                                  "model": model, "choices": [{"index": 0, "delta": {"content": "tick%d " % i},
                                                                               "finish_reason": None}]}) + "\n\n")
                time.sleep(1)
            self.chunk("data: [DONE]\n\n")
            self.end_sse()
        except (BrokenPipeError, ConnectionResetError):
            sys.stderr.write("mock: slow stream of %s closed by Sluice\n" % model)


class _Replay:
    def __init__(self, raw):
        self.raw = raw

    def read(self, n=-1):
        data, self.raw = (self.raw, b"") if n is None or n < 0 else (self.raw[:n], self.raw[n:])
        return data


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), Handler)
    server.daemon_threads = True
    print("MOCK_PORT=%d" % server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
