#!/usr/bin/env python3
"""Recording relay for scripts/agents-e2e.sh (Python 3 standard library only).

Usage: tee_proxy.py PORT TARGET LOG   (PORT 0 = pick one; printed as TEE_PORT=<n>)

Listens on 127.0.0.1 and relays every request to TARGET (http://127.0.0.1:<port>, Sluice) as it
came — method, path, headers but Host, body — and the answer back as it comes, streams included
(one upstream read, one chunk, flushed). Each POST body is appended to LOG as one JSON line
{"path", "body"} with the body parsed exactly as the client sent it: that is the "sent" side of
the passthrough check (issue 32), compared with what the mock behind Sluice received.
"""
import http.client
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

TARGET = urlsplit(sys.argv[2])
LOG_PATH = sys.argv[3]
LOG_LOCK = threading.Lock()
HOP = {"host", "connection", "keep-alive", "transfer-encoding", "content-length", "proxy-connection", "upgrade", "te"}


class Relay(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        sys.stderr.write("tee: " + (fmt % args) + "\n")

    def relay(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        if self.command == "POST":
            try:
                parsed = json.loads(body or b"null")
            except ValueError:
                parsed = {"_unparsable": body.decode(errors="replace")}
            with LOG_LOCK, open(LOG_PATH, "a") as f:
                f.write(json.dumps({"path": self.path.split("?")[0], "body": parsed}) + "\n")
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
        conn = http.client.HTTPConnection(TARGET.hostname, TARGET.port, timeout=300)
        try:
            conn.request(self.command, self.path, body=body if body else None, headers=headers)
            up = conn.getresponse()
            self.send_response(up.status)
            for k, v in up.getheaders():
                if k.lower() not in HOP:
                    self.send_header(k, v)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            while True:
                data = up.read1(65536)
                if not data:
                    break
                self.wfile.write(b"%x\r\n" % len(data) + data + b"\r\n")
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        finally:
            conn.close()

    do_GET = relay
    do_POST = relay


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Relay)
    server.daemon_threads = True
    print("TEE_PORT=%d" % server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
