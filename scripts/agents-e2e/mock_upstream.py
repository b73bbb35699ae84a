#!/usr/bin/env python3
"""Scripted upstream for scripts/agents-e2e.sh (Python 3 standard library only).

Serves, on 127.0.0.1 (port from argv[1], 0 = pick one; printed as MOCK_PORT=<n>):
  POST /v1/chat/completions   OpenAI-compatible, streaming or not (what Sluice translates to)
  POST /v1/messages           Anthropic Messages, streaming or not (Sluice's claude passthrough)
  POST /v1/responses           OpenAI Responses, streaming or not (Sluice's passthrough for the openai
                              provider); answered only for models starting with "native-" (any other
                              gets 404, as a chat-only upstream answers)
  POST /v1/messages/count_tokens, GET /v1/models, HEAD/GET /

Answers, by the upstream model name:
  *bash*   Chat: when a `Bash` (or `bash`) tool is offered and no tool result is in the conversation yet,
           call it with {"command": "ls"}; once a tool result is there, answer
           "MOCK-TOOL-RESULT-SEEN: <that result>".
  *shell*  Chat: the same with Codex's shell tool (exec_command / shell / shell_command).
  other    Chat: "MOCK-OPENAI-OK[<model>]: <last user text>".
  any      Messages: "MOCK-ANTHROPIC-OK[<model>]"; but when the conversation carries the marker
           "agents-e2e-thinking" and a Bash tool is offered, a two-turn tool loop with thinking (issue 32):
           turn 1 answers a thinking block with a fresh signature, then calls Bash `ls`; turn 2 (a tool
           result is there) answers "MOCK-THINKING-KEPT: <result>" when an assistant turn of the request
           carries that thinking block with its text and signature unchanged, else "MOCK-THINKING-LOST[…]".
           Either turn answers "MOCK-THINKING-NOT-REQUESTED" when the request did not turn thinking on.
  native-* Responses: "MOCK-RESPONSES-OK[<model>]: <last user text> (include=<include>)", or for
           native-*shell* the shell round trip as for *shell*, ending "MOCK-RESPONSES-TOOL-RESULT-SEEN: …".
           native-*record* the same round trip, its first answer led by an image_generation_call item:
           Codex keeps it and sends it back in the next input, an item type the Responses codec does
           not translate (issue 32: a passthrough forwards it all the same).
Every request is appended as one JSON line to argv[2] (if given), for diagnosing failures.
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG_PATH = sys.argv[2] if len(sys.argv) > 2 else None
LOG_LOCK = threading.Lock()
SHELL_TOOLS = ("exec_command", "shell", "shell_command", "local_shell")
THINKING_MARKER = "agents-e2e-thinking"
ISSUED = {}  # signature -> thinking text of the thinking blocks answered
ISSUED_LOCK = threading.Lock()
USAGE = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}


def text_of(content):
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return "" if content is None else str(content)


def last_user_text(messages):
    """The last text part of the last user message (Claude Code puts reminders before the prompt)."""
    for m in reversed(messages or []):
        if m.get("role") == "user":
            c = m.get("content")
            if isinstance(c, list):
                texts = [p.get("text") for p in c if isinstance(p, dict) and isinstance(p.get("text"), str)]
                return texts[-1] if texts else ""
            return text_of(c)
    return ""


def tool_results(messages):
    return [text_of(m.get("content")) for m in (messages or []) if m.get("role") == "tool"]


def one_line(s, limit=400):
    return " | ".join(line.strip() for line in s.splitlines() if line.strip())[:limit]


class Handler(BaseHTTPRequestHandler):
    # headers and body go out as separate small writes: without TCP_NODELAY each answer waited ~40 ms
    # for the client's delayed ACK (Nagle), which swamped bench/passthrough.sh's per-request figures
    disable_nagle_algorithm = True
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        sys.stderr.write("mock: " + (fmt % args) + "\n")

    # ---- plumbing -------------------------------------------------------------------------
    def send_json(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def start_sse(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def chunk(self, text):
        data = text.encode()
        self.wfile.write(b"%x\r\n" % len(data) + data + b"\r\n")
        self.wfile.flush()

    def end_sse(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            return json.loads(raw or b"{}")
        except ValueError:
            return {"_unparsable": raw.decode(errors="replace")}

    def record(self, body):
        if not LOG_PATH:
            return
        entry = {"t": round(time.time(), 3), "method": self.command, "path": self.path,
                 "model": body.get("model") if isinstance(body, dict) else None,
                 "stream": body.get("stream") if isinstance(body, dict) else None, "body": body}
        with LOG_LOCK, open(LOG_PATH, "a") as f:
            f.write(json.dumps(entry) + "\n")

    # ---- routes ---------------------------------------------------------------------------
    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        if self.path.split("?")[0].rstrip("/") == "/v1/models":
            return self.send_json(200, {"object": "list", "data": [
                {"id": "mock-model", "object": "model", "created": 0, "owned_by": "mock"}]})
        if self.path == "/":
            return self.send_json(200, {"ok": True})
        self.send_json(404, {"error": {"message": "no route " + self.path, "type": "invalid_request_error"}})

    def do_POST(self):
        body = self.read_body()
        self.record(body)
        path = self.path.split("?")[0]
        if path == "/v1/messages/count_tokens":
            return self.send_json(200, {"input_tokens": 42})
        if path == "/v1/messages":
            return self.anthropic(body)
        if path == "/v1/chat/completions":
            return self.chat(body)
        if path == "/v1/responses" and str(body.get("model", "")).startswith("native-"):
            return self.responses_api(body)
        self.send_json(404, {"error": {"message": "no route " + self.path, "type": "invalid_request_error"}})

    # ---- Anthropic Messages (passthrough path) --------------------------------------------
    def anthropic(self, body):
        tools = [t for t in (body.get("tools") or []) if isinstance(t, dict)]
        if THINKING_MARKER in json.dumps(body.get("messages") or []) and any(t.get("name") == "Bash" for t in tools):
            return self.anthropic_thinking(body)
        model = str(body.get("model", ""))
        text = "MOCK-ANTHROPIC-OK[%s]" % model
        mid = "msg_mock%d" % int(time.time() * 1000)
        usage = {"input_tokens": 5, "output_tokens": 3}
        if not body.get("stream"):
            return self.send_json(200, {"id": mid, "type": "message", "role": "assistant", "model": model,
                                        "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                                        "stop_sequence": None, "usage": usage})
        self.start_sse()

        def event(name, obj):
            self.chunk("event: %s\ndata: %s\n\n" % (name, json.dumps(obj)))

        event("message_start", {"type": "message_start", "message": {
            "id": mid, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 5, "output_tokens": 0}}})
        event("content_block_start", {"type": "content_block_start", "index": 0,
                                      "content_block": {"type": "text", "text": ""}})
        event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                      "delta": {"type": "text_delta", "text": text}})
        event("content_block_stop", {"type": "content_block_stop", "index": 0})
        event("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                "usage": {"output_tokens": 3}})
        event("message_stop", {"type": "message_stop"})
        self.end_sse()

    def anthropic_thinking(self, body):
        """Issue 32: Claude Code must send the signed thinking block of its tool loop back unchanged."""
        messages = body.get("messages") or []
        thinking_on = (body.get("thinking") or {}).get("type") not in (None, "disabled")
        results = [text_of(b.get("content")) for m in messages if m.get("role") == "user" and isinstance(m.get("content"), list)
                   for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]
        if not thinking_on:
            return self.anthropic_blocks(body, [{"type": "text", "text": "MOCK-THINKING-NOT-REQUESTED"}], "end_turn")
        if not results:
            signature = "agents-e2e-sig-" + os.urandom(24).hex()
            thought = "The user wants the files listed; Bash ls does it. (%s)" % signature[-8:]
            with ISSUED_LOCK:
                ISSUED[signature] = thought
            return self.anthropic_blocks(body, [
                {"type": "thinking", "thinking": thought, "signature": signature},
                {"type": "tool_use", "id": "toolu_mock1", "name": "Bash",
                 "input": {"command": "ls", "description": "List files"}}], "tool_use")
        sent = [b for m in messages if m.get("role") == "assistant" and isinstance(m.get("content"), list)
                for b in m["content"] if isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking")]
        with ISSUED_LOCK:
            kept = any(ISSUED.get(b.get("signature")) == b.get("thinking") for b in sent)
        if kept:
            text = "MOCK-THINKING-KEPT: " + one_line(results[-1])
        else:
            text = "MOCK-THINKING-LOST[%s]" % one_line(json.dumps(sent), 200)
        return self.anthropic_blocks(body, [{"type": "text", "text": text}], "end_turn")

    def anthropic_blocks(self, body, blocks, stop_reason):
        """An Anthropic answer of these content blocks, streamed (thinking and signature deltas) or whole."""
        model = str(body.get("model", ""))
        mid = "msg_mock%d" % int(time.time() * 1000)
        if not body.get("stream"):
            return self.send_json(200, {"id": mid, "type": "message", "role": "assistant", "model": model, "content": blocks,
                                        "stop_reason": stop_reason, "stop_sequence": None,
                                        "usage": {"input_tokens": 5, "output_tokens": 9}})
        self.start_sse()

        def event(name, obj):
            self.chunk("event: %s\ndata: %s\n\n" % (name, json.dumps(obj)))

        event("message_start", {"type": "message_start", "message": {
            "id": mid, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 5, "output_tokens": 0}}})
        for i, b in enumerate(blocks):
            if b["type"] == "thinking":
                event("content_block_start", {"type": "content_block_start", "index": i,
                                              "content_block": {"type": "thinking", "thinking": "", "signature": ""}})
                event("content_block_delta", {"type": "content_block_delta", "index": i,
                                              "delta": {"type": "thinking_delta", "thinking": b["thinking"]}})
                event("content_block_delta", {"type": "content_block_delta", "index": i,
                                              "delta": {"type": "signature_delta", "signature": b["signature"]}})
            elif b["type"] == "tool_use":
                event("content_block_start", {"type": "content_block_start", "index": i,
                                              "content_block": dict(b, input={})})
                event("content_block_delta", {"type": "content_block_delta", "index": i,
                                              "delta": {"type": "input_json_delta", "partial_json": json.dumps(b["input"])}})
            else:
                event("content_block_start", {"type": "content_block_start", "index": i,
                                              "content_block": {"type": "text", "text": ""}})
                event("content_block_delta", {"type": "content_block_delta", "index": i,
                                              "delta": {"type": "text_delta", "text": b["text"]}})
            event("content_block_stop", {"type": "content_block_stop", "index": i})
        event("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                                "usage": {"output_tokens": 9}})
        event("message_stop", {"type": "message_stop"})
        self.end_sse()

    # ---- OpenAI chat completions (translated path) ----------------------------------------
    def chat(self, body):
        model = str(body.get("model", ""))
        messages = body.get("messages") or []
        tools = [t.get("function") or {} for t in (body.get("tools") or []) if isinstance(t, dict)]
        results = tool_results(messages)
        call = None
        if "bash" in model or "shell" in model:
            if results:
                text = "MOCK-TOOL-RESULT-SEEN: " + one_line(results[-1])
            else:
                call = self.tool_call_for(model, tools)
                text = None if call else "MOCK-NO-TOOL-OFFERED[%s]" % model
        else:
            text = "MOCK-OPENAI-OK[%s]: %s" % (model, one_line(last_user_text(messages), 200))
        cid = "chatcmpl-mock%d" % int(time.time() * 1000)
        created = int(time.time())
        if not body.get("stream"):
            message = {"role": "assistant", "content": text}
            if call:
                message["tool_calls"] = [{"id": "call_mock1", "type": "function",
                                          "function": {"name": call[0], "arguments": call[1]}}]
            return self.send_json(200, {"id": cid, "object": "chat.completion", "created": created, "model": model,
                                        "choices": [{"index": 0, "message": message,
                                                     "finish_reason": "tool_calls" if call else "stop"}],
                                        "usage": USAGE})
        self.start_sse()

        def delta(d, finish=None):
            self.chunk("data: " + json.dumps({"id": cid, "object": "chat.completion.chunk", "created": created,
                                              "model": model,
                                              "choices": [{"index": 0, "delta": d, "finish_reason": finish}]}) + "\n\n")

        delta({"role": "assistant", "content": ""})
        if call:
            name, args = call
            delta({"tool_calls": [{"index": 0, "id": "call_mock1", "type": "function",
                                   "function": {"name": name, "arguments": ""}}]})
            delta({"tool_calls": [{"index": 0, "function": {"arguments": args[:8]}}]})
            delta({"tool_calls": [{"index": 0, "function": {"arguments": args[8:]}}]})
            delta({}, "tool_calls")
        else:
            for i in range(0, len(text), 16):
                delta({"content": text[i:i + 16]})
            delta({}, "stop")
        if (body.get("stream_options") or {}).get("include_usage"):
            self.chunk("data: " + json.dumps({"id": cid, "object": "chat.completion.chunk", "created": created,
                                              "model": model, "choices": [], "usage": USAGE}) + "\n\n")
        self.chunk("data: [DONE]\n\n")
        self.end_sse()

    # ---- OpenAI Responses (passthrough path of the openai provider) -----------------------
    def responses_api(self, body):
        model = str(body.get("model", ""))
        items = body.get("input") if isinstance(body.get("input"), list) else [
            {"type": "message", "role": "user", "content": str(body.get("input", ""))}]
        outputs = [str(i.get("output", "")) for i in items if isinstance(i, dict) and str(i.get("type", "")).endswith("_call_output")]
        users = [text_of(i.get("content")) for i in items if isinstance(i, dict) and i.get("role") == "user"]
        tools = [t for t in (body.get("tools") or []) if isinstance(t, dict) and t.get("type") == "function"]
        call = None
        local = None
        if "record" in model and not outputs:
            call = self.tool_call_for("shell", tools)
            local = {"type": "image_generation_call", "id": "ig_mock1", "status": "completed", "revised_prompt": "a probe",
                     "result": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="}
            text = None
        elif "record" in model:
            text = "MOCK-RESPONSES-TOOL-RESULT-SEEN: " + one_line(outputs[-1])
        elif "shell" in model and not outputs:
            call = self.tool_call_for(model, tools)
            text = None if call else "MOCK-NO-TOOL-OFFERED[%s]" % model
        elif "shell" in model:
            text = "MOCK-RESPONSES-TOOL-RESULT-SEEN: " + one_line(outputs[-1])
        else:
            text = "MOCK-RESPONSES-OK[%s]: %s (include=%s)" % (
                model, one_line(users[-1] if users else "", 200), ",".join(body.get("include") or []))
        rid = "resp_mock%d" % int(time.time() * 1000)
        usage = {"input_tokens": 11, "output_tokens": 7, "total_tokens": 18}
        extra = [local] if local else []
        if call:
            item = {"type": "function_call", "id": "fc_mock1", "call_id": "call_mock1", "name": call[0],
                    "arguments": call[1], "status": "completed"}
        else:
            item = {"type": "message", "id": "msg_mock1", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}
        done = {"id": rid, "object": "response", "created_at": int(time.time()), "status": "completed",
                "model": model, "output": extra + [item], "usage": usage}
        if not body.get("stream"):
            return self.send_json(200, done)
        self.start_sse()
        seq = [0]

        def event(name, obj):
            obj = dict(obj, type=name, sequence_number=seq[0])
            seq[0] += 1
            self.chunk("event: %s\ndata: %s\n\n" % (name, json.dumps(obj)))

        event("response.created", {"response": dict(done, status="in_progress", output=[], usage=None)})
        for n, x in enumerate(extra):
            event("response.output_item.added", {"output_index": n, "item": dict(x, status="in_progress")})
            event("response.output_item.done", {"output_index": n, "item": x})
        if call:
            event("response.output_item.added", {"output_index": len(extra), "item": dict(item, arguments="", status="in_progress")})
            event("response.function_call_arguments.delta", {"item_id": "fc_mock1", "output_index": len(extra), "delta": call[1]})
            event("response.function_call_arguments.done", {"item_id": "fc_mock1", "output_index": len(extra), "arguments": call[1]})
        else:
            event("response.output_item.added", {"output_index": len(extra), "item": dict(item, content=[], status="in_progress")})
            event("response.content_part.added", {"item_id": "msg_mock1", "output_index": len(extra), "content_index": 0,
                                                  "part": {"type": "output_text", "text": "", "annotations": []}})
            for i in range(0, len(text), 16):
                event("response.output_text.delta", {"item_id": "msg_mock1", "output_index": len(extra), "content_index": 0,
                                                     "delta": text[i:i + 16]})
            event("response.output_text.done", {"item_id": "msg_mock1", "output_index": len(extra), "content_index": 0, "text": text})
            event("response.content_part.done", {"item_id": "msg_mock1", "output_index": len(extra), "content_index": 0,
                                                 "part": item["content"][0]})
        event("response.output_item.done", {"output_index": len(extra), "item": item})
        event("response.completed", {"response": done})
        self.end_sse()

    @staticmethod
    def tool_call_for(model, tools):
        """(name, JSON arguments) of the call to make, or None when the expected tool is not offered."""
        if "bash" in model:
            for t in tools:
                if t.get("name") in ("Bash", "bash"):  # Claude Code, opencode
                    return t["name"], json.dumps({"command": "ls", "description": "List files"})
            return None
        for t in tools:
            if t.get("name") in SHELL_TOOLS:
                props = (t.get("parameters") or {}).get("properties") or {}
                key = "cmd" if "cmd" in props and "command" not in props else "command"
                value = ["ls"] if (props.get(key) or {}).get("type") == "array" else "ls"
                return t["name"], json.dumps({key: value})
        return None


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), Handler)
    server.daemon_threads = True
    print("MOCK_PORT=%d" % server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
