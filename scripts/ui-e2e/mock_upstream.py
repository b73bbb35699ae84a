#!/usr/bin/env python3
"""Scripted failing upstream for scripts/ui-e2e.sh (Python 3 standard library only).

Serves an OpenAI-compatible POST /v1/chat/completions on 127.0.0.1 (port from argv[1], 0 = pick
one; printed as MOCK_PORT=<n>) that answers by the upstream model name:

  fail-503*   503 server_error          counts for the provider's circuit breaker
  fail-429*   429 with Retry-After: 600 cools the connection for 10 minutes (model lockout off)
  fail-404*   404 model_not_found       locks the model out (model lockout on)
  other       200, a one-line completion

and POST /oauth/token, the token endpoint of a subscription login (issue 33's "Add account"): 200 with
an access and refresh token and a Claude-shaped account, whatever code it is given.
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet: the script prints what matters
        pass

    def answer(self, status, body, headers=None):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        try:
            model = json.loads(self.rfile.read(length) or b"{}").get("model", "")
        except ValueError:
            model = ""
        if self.path.endswith("/oauth/token"):
            self.answer(200, {"access_token": "ui-e2e-access-0123456789abcdef", "refresh_token": "ui-e2e-refresh-0123456789abcdef",
                              "expires_in": 3600, "account": {"uuid": "acct-ui-e2e", "email_address": "ops@example.com"}})
        elif not self.path.endswith("/chat/completions"):
            self.answer(404, {"error": {"message": "no such route", "type": "invalid_request_error"}})
        elif model.startswith("fail-503"):
            self.answer(503, {"error": {"message": "ui-e2e: upstream overloaded", "type": "server_error"}})
        elif model.startswith("fail-429"):
            self.answer(429, {"error": {"message": "ui-e2e: rate limit reached", "type": "rate_limit_error"}},
                        {"Retry-After": "600"})
        elif model.startswith("fail-404"):
            self.answer(404, {"error": {"message": "The model `%s` does not exist" % model,
                                        "type": "invalid_request_error", "code": "model_not_found"}})
        else:
            self.answer(200, {"id": "chatcmpl-ui-e2e", "object": "chat.completion", "created": 0, "model": model,
                              "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"},
                                           "finish_reason": "stop"}],
                              "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

    def do_GET(self):
        self.answer(200, {"object": "list", "data": []})


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), Handler)
    server.daemon_threads = True
    print("MOCK_PORT=%d" % server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
