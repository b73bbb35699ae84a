#!/usr/bin/env node
// The mock upstream of bench/run.sh in Node.js (BENCH_MOCK=node; issue 26's method: "a Node mock
// upstream"): node's built-in http only. It answers what gateway-testkit's MockUpstreamMain answers
// on the paths the benchmark uses, with the same bodies and headers:
//   - GET …/models: {"object":"list","data":[]} (a gateway's model discovery)
//   - every other request, by default: the echo chat.completion (model and last "content" of the
//     request echoed, usage 3 + 5), Content-Type: application/json, Content-Length
//   - with --stream-pieces N (N > 0): a chat.completion.chunk SSE stream instead: the role chunk,
//     N content pieces "piece0 " …, the stop chunk with usage, data: [DONE]; --stream-delay-ms D
//     (default 20) between two events; Content-Type: text/event-stream, Cache-Control: no-cache,
//     Transfer-Encoding: chunked
// No Date, no Connection and no Keep-Alive header (the Java mock sends none); connections are kept
// alive with no idle timeout, as the Java mock's are. Prints "MockUpstream listening on
// http://127.0.0.1:PORT" once it listens, and runs until killed.
//
//   node bench/mock-upstream.js [--port N] [--stream-pieces N] [--stream-delay-ms D]
'use strict';

const http = require('http');

const USAGE = 'usage: mock-upstream.js [--port N] [--stream-pieces N] [--stream-delay-ms D]';
const CREATED = 1767225600; // 2026-01-01T00:00:00Z, as OpenAiJson.CREATED
const USAGE_JSON = '"usage":{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8}';

function parseArgs(argv) {
    const opts = { '--port': 0, '--stream-pieces': 0, '--stream-delay-ms': 20 };
    for (let i = 0; i < argv.length; i++) {
        let name = argv[i];
        let value;
        const eq = name.indexOf('=');
        if (name.startsWith('--') && eq > 0) {
            value = name.slice(eq + 1);
            name = name.slice(0, eq);
        } else {
            value = argv[++i];
        }
        if (!(name in opts) || value === undefined || !/^[0-9]+$/.test(value)) {
            console.error(USAGE);
            process.exit(2);
        }
        opts[name] = Number(value);
    }
    return opts;
}

// The raw (still escaped) string value after s[i] as in `\s* : \s* "..."`, or null (OpenAiJson.stringValueAfter)
function stringValueAfter(s, i) {
    const skip = (j) => { while (j < s.length && /\s/.test(s[j])) j++; return j; };
    i = skip(i);
    if (s[i] !== ':') return null;
    i = skip(i + 1);
    if (s[i] !== '"') return null;
    const start = ++i;
    for (; i < s.length; i++) {
        if (s[i] === '\\') i++;
        else if (s[i] === '"') return s.slice(start, i);
    }
    return null;
}
function model(body) {
    const key = body.indexOf('"model"');
    const value = key < 0 ? null : stringValueAfter(body, key + 7);
    return value === null ? 'mock-model' : value;
}
function lastContent(body) {
    for (let key = body.lastIndexOf('"content"'); key >= 0; key = key > 0 ? body.lastIndexOf('"content"', key - 1) : -1) {
        const value = stringValueAfter(body, key + 9);
        if (value !== null) return value;
    }
    return null;
}

function completion(body) {
    const last = lastContent(body);
    return '{"id":"chatcmpl-mock","object":"chat.completion","created":' + CREATED + ',"model":"' + model(body)
        + '","choices":[{"index":0,"message":{"role":"assistant","content":"'
        + (last === null ? 'Hello from mock' : 'echo: ' + last) + '"},"finish_reason":"stop"}],' + USAGE_JSON + '}';
}
// the SSE payloads of a streamed chat completion (OpenAiJson.chatChunks); the pieces need no escaping
function chatChunks(body, pieces) {
    const head = '{"id":"chatcmpl-mock","object":"chat.completion.chunk","created":' + CREATED + ',"model":"'
        + model(body) + '","choices":[{"index":0,"delta":';
    const chunks = [head + '{"role":"assistant","content":""},"finish_reason":null}]}'];
    for (const piece of pieces) chunks.push(head + '{"content":"' + piece + '"},"finish_reason":null}]}');
    chunks.push(head + '{},"finish_reason":"stop"}],' + USAGE_JSON + '}');
    chunks.push('[DONE]');
    return chunks;
}

// the Java mock's head: status line, Content-Type, then Content-Length or the stream's headers
function head(res, contentType) {
    res.sendDate = false;
    res.removeHeader('Connection'); // keeps the connection alive without saying so
    res.statusCode = 200;
    res.setHeader('Content-Type', contentType);
}
function respondJson(res, text) {
    head(res, 'application/json');
    const bytes = Buffer.from(text, 'utf8');
    res.setHeader('Content-Length', bytes.length);
    res.end(bytes);
}
function respondStream(res, events, delayMs) {
    head(res, 'text/event-stream');
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader('Transfer-Encoding', 'chunked');
    let i = 0;
    const next = () => {
        if (res.destroyed) return;
        // (each write is one chunk; with no delay all go out at once, as the Java mock's do)
        do res.write('data: ' + events[i++] + '\n\n'); while (delayMs === 0 && i < events.length);
        if (i < events.length) setTimeout(next, delayMs);
        else res.end();
    };
    next();
}

function main() {
    const opts = parseArgs(process.argv.slice(2));
    const pieces = [];
    for (let i = 0; i < opts['--stream-pieces']; i++) pieces.push('piece' + i + ' ');
    const server = http.createServer({ noDelay: true }, (req, res) => {
        const parts = [];
        req.on('data', (d) => parts.push(d));
        req.on('end', () => {
            const path = req.url.split('?')[0];
            if (req.method === 'GET' && path.endsWith('/models')) {
                respondJson(res, '{"object":"list","data":[]}');
                return;
            }
            const body = Buffer.concat(parts).toString('utf8');
            if (pieces.length > 0) respondStream(res, chatChunks(body, pieces), opts['--stream-delay-ms']);
            else respondJson(res, completion(body));
        });
    });
    server.keepAliveTimeout = 0; // no idle timeout (and no Keep-Alive header)
    server.requestTimeout = 0;
    server.headersTimeout = 0;
    server.listen({ host: '127.0.0.1', port: opts['--port'], backlog: 1024 }, () => {
        process.stdout.write('MockUpstream listening on http://127.0.0.1:' + server.address().port + '\n');
    });
    process.on('SIGTERM', () => process.exit(0));
}

main();
