// The official OpenAI and Anthropic Node SDKs against a running Sluice (run by scripts/sdk-e2e.sh,
// which starts Sluice and scripts/sdk-e2e/mock_upstream.py and provisions the connections).
//
// Environment (set by sdk-e2e.sh): SDK_NODE_MODULES (where the pinned SDKs are installed), SLUICE_URL,
// SLUICE_KEY (a client key), SLUICE_ADMIN_KEY, SLOW_CONNECTION_ID (the connection whose running count
// the abort checks read), MOCK_LOG (the mock's request log, JSON lines), MOCK_ERR (its stderr),
// SDK_ONLY (names or prefixes* of the checks to run; empty = all).
//
// Prints `PASS name` or `FAIL name: what — expected …, got …` per check, in order, each bounded at
// 30 s; exits 1 when one failed. Every check asserts exact statuses, shapes and values.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';

const require = createRequire(path.join(process.env.SDK_NODE_MODULES, 'sdk-e2e.cjs'));
const openaiModule = require('openai');
const anthropicModule = require('@anthropic-ai/sdk');
const { OpenAI } = openaiModule;
const { Anthropic } = anthropicModule;

const URL = process.env.SLUICE_URL;
const KEY = process.env.SLUICE_KEY;
const ADMIN_KEY = process.env.SLUICE_ADMIN_KEY;
const SLOW_ID = process.env.SLOW_CONNECTION_ID;
const ONLY = (process.env.SDK_ONLY || '').split(/[\s,]+/).filter(Boolean);
const REQUEST_ID = /^req_[0-9a-f]{16}$/;
const EPOCH = '1970-01-01T00:00:00Z';

// ---- harness ----------------------------------------------------------------------------------
const checks = [];
const check = (name, fn) => checks.push({ name, fn });
const selected = (name) => ONLY.length === 0
  || ONLY.some((o) => (o.endsWith('*') ? name.startsWith(o.slice(0, -1)) : name === o));
const J = (v) => {
  try { return JSON.stringify(v, (k, x) => (x instanceof Float32Array ? Array.from(x) : x)); } catch { return String(v); }
};
class CheckFailed extends Error {}
function eq(what, got, expected) {
  if (!isDeepStrictEqual(got, expected)) throw new CheckFailed(`${what}: expected ${J(expected)}, got ${J(got)}`);
}
function ok(what, cond, got) {
  if (!cond) throw new CheckFailed(`${what}: got ${J(got)}`);
}
async function rejects(what, promise, Class) {
  try {
    const value = await promise;
    throw new CheckFailed(`${what}: expected ${Class.name}, got a success: ${J(value).slice(0, 300)}`);
  } catch (e) {
    if (e instanceof CheckFailed) throw e;
    if (!(e instanceof Class)) {
      throw new CheckFailed(`${what}: expected ${Class.name}, got ${e?.constructor?.name} ${e?.status ?? ''} ${e?.message}`);
    }
    return e;
  }
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(what, fn, ms = 10000) {  // polls fn until it returns a truthy value
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    last = await fn();
    if (last?.ok) return last;
    await sleep(100);
  }
  throw new CheckFailed(`${what} within ${ms} ms: last seen ${J(last?.seen)}`);
}

// ---- clients and helpers ----------------------------------------------------------------------
// maxRetries 0 unless a check is about retries: every answer seen is the one Sluice gave.
const oai = (o = {}) => new OpenAI({ baseURL: `${URL}/v1`, apiKey: KEY, maxRetries: 0, timeout: 20000, ...o });
const ant = (o = {}) => new Anthropic({ baseURL: URL, apiKey: KEY, maxRetries: 0, timeout: 20000, ...o });
const USER = [{ role: 'user', content: 'hi from sdk' }];

function mockRequests(model) {
  let text = '';
  try { text = fs.readFileSync(process.env.MOCK_LOG, 'utf8'); } catch { /* none yet */ }
  return text.split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((e) => e.model === model);
}
async function slowRunning() {
  const r = await fetch(`${URL}/api/rate-limits`, { headers: { Authorization: `Bearer ${ADMIN_KEY}` } });
  const body = await r.json();
  const row = (body.data || []).find((c) => c.connectionId === SLOW_ID);
  return row ? { running: row.running, queued: row.queued } : { missing: SLOW_ID };
}
function mockSaysClosed(model) {
  try { return fs.readFileSync(process.env.MOCK_ERR, 'utf8').includes(`slow stream of ${model} closed by Sluice`); } catch { return false; }
}

// ---- openai -----------------------------------------------------------------------------------
check('openai-chat', async () => {
  const { data: r, response } = await oai().chat.completions.create({ model: 'mock/model-plain', messages: USER }).withResponse();
  eq('object', r.object, 'chat.completion');
  eq('model', r.model, 'model-plain');
  eq('choices[0].message', { role: r.choices[0].message.role, content: r.choices[0].message.content },
    { role: 'assistant', content: 'MOCK-OPENAI-OK[model-plain]: hi from sdk' });
  eq('choices[0].finish_reason', r.choices[0].finish_reason, 'stop');
  eq('usage', r.usage, { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
  ok('_request_id (X-Request-Id) is req_<16 hex>', REQUEST_ID.test(r._request_id), r._request_id);
  eq('X-Sluice-Provider', response.headers.get('x-sluice-provider'), 'mock');
  eq('X-Sluice-Model', response.headers.get('x-sluice-model'), 'model-plain');
});

check('openai-chat-stream-usage', async () => {
  const { data: stream, response } = await oai().chat.completions.create({
    model: 'mock/model-plain', messages: USER, stream: true, stream_options: { include_usage: true } }).withResponse();
  ok('Content-Type is text/event-stream', (response.headers.get('content-type') || '').startsWith('text/event-stream'),
    response.headers.get('content-type'));
  let text = '';
  let finish = null;
  let usage = null;
  let chunks = 0;
  for await (const c of stream) {
    chunks++;
    eq('chunk object', c.object, 'chat.completion.chunk');
    for (const ch of c.choices) {
      text += ch.delta?.content || '';
      finish = ch.finish_reason || finish;
    }
    if (c.usage) usage = { usage: c.usage, choices: c.choices };
  }
  eq('streamed text', text, 'MOCK-OPENAI-OK[model-plain]: hi from sdk');
  ok('several content chunks', chunks >= 4, chunks);
  eq('finish_reason', finish, 'stop');
  eq('usage chunk', usage, { usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 }, choices: [] });
});

const BASH_TOOL = { type: 'function', function: { name: 'bash', description: 'Run a shell command',
  parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } } };

check('openai-tool-round-trip', async () => {
  const client = oai();
  const messages = [{ role: 'user', content: 'list the files' }];
  const r1 = await client.chat.completions.create({ model: 'mock/model-bash', messages, tools: [BASH_TOOL] });
  eq('finish_reason', r1.choices[0].finish_reason, 'tool_calls');
  const calls = r1.choices[0].message.tool_calls;
  eq('tool_calls', calls?.map((c) => ({ id: c.id, type: c.type, name: c.function.name, args: JSON.parse(c.function.arguments) })),
    [{ id: 'call_mock1', type: 'function', name: 'bash', args: { command: 'ls', description: 'List files' } }]);
  messages.push(r1.choices[0].message, { role: 'tool', tool_call_id: calls[0].id, content: 'sdk-probe.txt' });
  const r2 = await client.chat.completions.create({ model: 'mock/model-bash', messages, tools: [BASH_TOOL] });
  eq('answer after the tool result', r2.choices[0].message.content, 'MOCK-TOOL-RESULT-SEEN: sdk-probe.txt');
  eq('finish_reason', r2.choices[0].finish_reason, 'stop');
});

check('openai-tool-stream', async () => {
  const s = oai().chat.completions.stream({ model: 'mock/model-bash', messages: [{ role: 'user', content: 'list' }],
    tools: [BASH_TOOL] });
  const done = await s.finalChatCompletion();
  eq('finish_reason', done.choices[0].finish_reason, 'tool_calls');
  const c = done.choices[0].message.tool_calls?.[0];
  eq('accumulated tool call', c && { id: c.id, name: c.function.name, args: JSON.parse(c.function.arguments) },
    { id: 'call_mock1', name: 'bash', args: { command: 'ls', description: 'List files' } });
});

check('openai-models-list', async () => {
  const all = [];
  for await (const m of oai().models.list()) all.push(m);
  ok('a non-empty list', all.length > 0, all.length);
  for (const m of all) {
    eq(`model ${m.id} shape`, Object.keys(m).sort(), ['created', 'id', 'object', 'owned_by']);
    eq(`model ${m.id} object`, m.object, 'model');
  }
  ok('claude/claude-sonnet-4-5 listed (owned_by claude)',
    all.some((m) => m.id === 'claude/claude-sonnet-4-5' && m.owned_by === 'claude'), all.map((m) => m.id));
  eq('ids unique', new Set(all.map((m) => m.id)).size, all.length);
});

check('openai-models-retrieve', async () => {
  const client = oai();
  const m = await client.models.retrieve('mock/any-model-x');  // the SDK sends mock%2Fany-model-x
  eq('retrieve mock/any-model-x', { id: m.id, object: m.object, owned_by: m.owned_by, created: typeof m.created },
    { id: 'mock/any-model-x', object: 'model', owned_by: 'mock', created: 'number' });
  const c = await client.models.retrieve('claude/claude-sonnet-4-5');
  eq('retrieve claude/claude-sonnet-4-5', [c.id, c.owned_by], ['claude/claude-sonnet-4-5', 'claude']);
  const e = await rejects('retrieve no-such-model-zzz', client.models.retrieve('no-such-model-zzz'), openaiModule.NotFoundError);
  eq('404', [e.status, e.code, e.type], [404, 'model_not_found', 'invalid_request_error']);
});

check('openai-responses-passthrough', async () => {
  const r = await oai().responses.create({ model: 'openai/native-plain', input: 'hi from sdk' });
  eq('status', r.status, 'completed');
  eq('output_text', r.output_text, 'MOCK-RESPONSES-OK[native-plain]: hi from sdk (include=)');
  eq('usage', r.usage, { input_tokens: 11, output_tokens: 7, total_tokens: 18 });
  eq('mock saw the body unchanged but for model', mockRequests('native-plain').at(-1)?.body, { model: 'native-plain', input: 'hi from sdk' });
});

async function responsesStream(model, expected) {
  const stream = await oai().responses.create({ model, input: 'hi from sdk', stream: true });
  const types = [];
  let text = '';
  let completed = null;
  let seq = -1;
  for await (const ev of stream) {
    types.push(ev.type);
    ok(`sequence_number increases (${ev.type})`, ev.sequence_number > seq, ev.sequence_number);
    seq = ev.sequence_number;
    if (ev.type === 'response.output_text.delta') text += ev.delta;
    if (ev.type === 'response.completed') completed = ev.response;
  }
  eq('first event', types[0], 'response.created');
  eq('last event', types.at(-1), 'response.completed');
  eq('streamed text', text, expected);
  eq('completed response text', completed?.output?.[0]?.content?.[0]?.text, expected);
  ok('completed usage', completed?.usage?.input_tokens === 11 && completed?.usage?.output_tokens === 7, completed?.usage);
  // the SDK's helper over the same stream
  const final = await oai().responses.stream({ model, input: 'hi from sdk' }).finalResponse();
  eq('responses.stream().finalResponse().output_text', final.output_text, expected);
}
check('openai-responses-passthrough-stream', () =>
  responsesStream('openai/native-plain', 'MOCK-RESPONSES-OK[native-plain]: hi from sdk (include=)'));

check('openai-responses-translated', async () => {
  const r = await oai().responses.create({ model: 'mock/model-plain', input: 'hi from sdk' });
  eq('object, status', [r.object, r.status], ['response', 'completed']);
  eq('output_text', r.output_text, 'MOCK-OPENAI-OK[model-plain]: hi from sdk');
  eq('usage tokens', [r.usage?.input_tokens, r.usage?.output_tokens, r.usage?.total_tokens], [11, 7, 18]);
});
check('openai-responses-translated-stream', () =>
  responsesStream('mock/model-plain', 'MOCK-OPENAI-OK[model-plain]: hi from sdk'));

check('openai-embeddings', async () => {
  const r = await oai().embeddings.create({ model: 'mock/embed-x', input: ['a', 'b'] });  // base64 on the wire
  eq('object', r.object, 'list');
  eq('vectors', r.data.map((d) => [d.index, Array.from(d.embedding)]), [[0, [0.25, -0.5, 0]], [1, [0.25, -0.5, 1]]]);
  eq('mock was asked for base64', mockRequests('embed-x').at(-1)?.body?.encoding_format, 'base64');
  const f = await oai().embeddings.create({ model: 'mock/embed-x', input: 'a', encoding_format: 'float' });
  eq('float vectors', f.data.map((d) => d.embedding), [[0.25, -0.5, 0]]);
});

check('openai-bad-key', async () => {
  const before = mockRequests('model-plain').length;
  const e = await rejects('chat with a wrong key', oai({ apiKey: 'sk-not-a-key' }).chat.completions.create(
    { model: 'mock/model-plain', messages: USER }), openaiModule.AuthenticationError);
  eq('status, type, code', [e.status, e.type, e.code], [401, 'authentication_error', 'invalid_api_key']);
  eq('error object keys', Object.keys(e.error).sort(), ['code', 'message', 'param', 'type']);
  ok('requestID (X-Request-Id)', REQUEST_ID.test(e.requestID), e.requestID);
  eq('upstream requests', mockRequests('model-plain').length - before, 0);
});

check('openai-unknown-model', async () => {
  const e = await rejects('chat on nosuch/model', oai().chat.completions.create({ model: 'nosuch/model', messages: USER }),
    openaiModule.NotFoundError);
  eq('status, type, code, param', [e.status, e.type, e.code, e.param], [404, 'invalid_request_error', 'model_not_found', 'model']);
});

check('openai-400-param', async () => {
  const client = oai();
  const e = await rejects('empty messages', client.chat.completions.create({ model: 'mock/model-plain', messages: [] }),
    openaiModule.BadRequestError);
  eq('status, type, code, param', [e.status, e.type, e.code, e.param], [400, 'invalid_request_error', 'invalid_request', 'messages']);
  const t = await rejects('a tool without a name', client.chat.completions.create({ model: 'mock/model-plain', messages: USER,
    tools: [{ type: 'function', function: { parameters: {} } }] }), openaiModule.BadRequestError);
  eq('tool param', [t.status, t.param], [400, 'tools[0].function.name']);
  const u = await rejects('the upstream refuses temperature', client.chat.completions.create({ model: 'mock/badparam-x',
    messages: USER, temperature: 3 }), openaiModule.BadRequestError);
  eq('upstream 400 status, type', [u.status, u.type], [400, 'invalid_request_error']);
  ok('upstream 400 message names temperature and the model', /\[mock\/badparam-x\].*temperature/.test(u.message), u.message);
});

check('openai-429-no-retry', async () => {
  const e = await rejects('chat on a rate-limited upstream', oai().chat.completions.create({ model: 'rlo/ratelimit-a', messages: USER }),
    openaiModule.RateLimitError);
  eq('status, type', [e.status, e.type], [429, 'rate_limit_error']);
  eq('Retry-After', e.headers.get('retry-after'), '1');
  eq('upstream requests (maxRetries 0)', mockRequests('ratelimit-a').length, 1);
});

check('openai-429-retry-honoured', async () => {
  const t0 = Date.now();
  const r = await oai({ maxRetries: 2 }).chat.completions.create({ model: 'flo/flaky-a', messages: USER });
  const ms = Date.now() - t0;
  eq('answer after the retry', r.choices[0].message.content, 'MOCK-OPENAI-OK[flaky-a]: hi from sdk');
  eq('upstream requests', mockRequests('flaky-a').length, 2);
  ok('the SDK waited Retry-After (1 s) before retrying', ms >= 900, `${ms} ms`);
});

check('openai-abort-frees', async () => {
  eq('running before', await slowRunning(), { running: 0, queued: 0 });
  const stream = await oai().chat.completions.create({ model: 'slow/slow-o', messages: USER, stream: true });
  const it = stream[Symbol.asyncIterator]();
  const first = (await it.next()).value?.choices?.[0]?.delta?.content;
  eq('first chunk', first, 'tick0 ');
  eq('running while streaming', (await slowRunning()).running, 1);
  stream.controller.abort();
  await until('running 0 on GET /api/rate-limits after the abort', async () => {
    const seen = await slowRunning();
    return { ok: seen.running === 0 && seen.queued === 0, seen };
  });
  await until('the upstream stream closed by Sluice', async () => ({ ok: mockSaysClosed('slow-o'), seen: false }));
});

// ---- anthropic --------------------------------------------------------------------------------
check('anthropic-messages-passthrough', async () => {
  const { data: m, response } = await ant().messages.create({ model: 'claude/claude-sonnet-4-5', max_tokens: 64, messages: USER })
    .withResponse();
  eq('type, role, model', [m.type, m.role, m.model], ['message', 'assistant', 'claude-sonnet-4-5']);
  eq('content', m.content, [{ type: 'text', text: 'MOCK-ANTHROPIC-OK[claude-sonnet-4-5]' }]);
  eq('stop_reason', m.stop_reason, 'end_turn');
  eq('usage', m.usage, { input_tokens: 5, output_tokens: 3 });
  ok('X-Request-Id', REQUEST_ID.test(response.headers.get('x-request-id')), response.headers.get('x-request-id'));
  eq('X-Sluice-Provider', response.headers.get('x-sluice-provider'), 'claude');
  eq('_request_id (request-id, as Anthropic sends it) equals X-Request-Id', m._request_id, response.headers.get('x-request-id'));
});

check('anthropic-messages-translated', async () => {
  const m = await ant().messages.create({ model: 'mock/model-plain', max_tokens: 64, messages: USER });
  eq('type, role', [m.type, m.role], ['message', 'assistant']);
  ok('id msg_…', /^msg_/.test(m.id), m.id);
  eq('content', m.content, [{ type: 'text', text: 'MOCK-OPENAI-OK[model-plain]: hi from sdk' }]);
  eq('stop_reason, stop_sequence', [m.stop_reason, m.stop_sequence], ['end_turn', null]);
  eq('usage', m.usage, { input_tokens: 11, output_tokens: 7 });
});

async function anthropicStream(model, expected, usage) {
  const s = ant().messages.stream({ model, max_tokens: 64, messages: USER });
  const deltas = [];
  s.on('text', (d) => deltas.push(d));
  const final = await s.finalMessage();
  eq('text deltas joined', deltas.join(''), expected);
  eq('final content', final.content, [{ type: 'text', text: expected }]);
  eq('final stop_reason', final.stop_reason, 'end_turn');
  eq('final usage', { input_tokens: final.usage.input_tokens, output_tokens: final.usage.output_tokens }, usage);
  return deltas;
}
check('anthropic-stream-passthrough', () =>
  anthropicStream('claude/claude-sonnet-4-5', 'MOCK-ANTHROPIC-OK[claude-sonnet-4-5]', { input_tokens: 5, output_tokens: 3 }));
check('anthropic-stream-translated', async () => {
  const deltas = await anthropicStream('mock/model-plain', 'MOCK-OPENAI-OK[model-plain]: hi from sdk',
    { input_tokens: 11, output_tokens: 7 });
  ok('several text deltas (relayed as they came)', deltas.length >= 2, deltas);
});

const BASH = { name: 'Bash', description: 'Run a shell command',
  input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } };

check('anthropic-tool-round-trip', async () => {
  const client = ant();
  const messages = [{ role: 'user', content: 'list the files' }];
  const m1 = await client.messages.create({ model: 'mock/model-bash', max_tokens: 256, messages, tools: [BASH] });
  eq('stop_reason', m1.stop_reason, 'tool_use');
  const use = m1.content.find((b) => b.type === 'tool_use');
  eq('tool_use block', use, { type: 'tool_use', id: 'call_mock1', name: 'Bash', input: { command: 'ls', description: 'List files' } });
  messages.push({ role: 'assistant', content: m1.content },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sdk-probe.txt' }] });
  const m2 = await client.messages.create({ model: 'mock/model-bash', max_tokens: 256, messages, tools: [BASH] });
  eq('answer after the tool result', m2.content, [{ type: 'text', text: 'MOCK-TOOL-RESULT-SEEN: sdk-probe.txt' }]);
  eq('stop_reason', m2.stop_reason, 'end_turn');
});

check('anthropic-tool-stream', async () => {
  const final = await ant().messages.stream({ model: 'mock/model-bash', max_tokens: 256,
    messages: [{ role: 'user', content: 'list' }], tools: [BASH] }).finalMessage();
  eq('stop_reason', final.stop_reason, 'tool_use');
  eq('accumulated tool_use', final.content.filter((b) => b.type === 'tool_use'),
    [{ type: 'tool_use', id: 'call_mock1', name: 'Bash', input: { command: 'ls', description: 'List files' } }]);
});

check('anthropic-count-tokens', async () => {
  const r = await ant().messages.countTokens({ model: 'claude/claude-sonnet-4-5', messages: [{ role: 'user', content: 'Hello' }] });
  eq('count_tokens answer', r, { input_tokens: 2 });
});

check('anthropic-models-list', async () => {
  const client = ant();
  const page = await client.models.list({ limit: 2 });
  eq('first page size', page.data.length, 2);
  eq('has_more', page.has_more, true);
  eq('first_id, last_id', [page.first_id, page.last_id], [page.data[0].id, page.data[1].id]);
  const all = [];
  for await (const m of client.models.list({ limit: 2 })) all.push(m);  // pages on by after_id
  for (const m of all) eq(`model ${m.id}`, m, { type: 'model', id: m.id, display_name: m.id, created_at: EPOCH });
  eq('ids unique across pages', new Set(all.map((m) => m.id)).size, all.length);
  ok('claude/claude-sonnet-4-5 listed', all.some((m) => m.id === 'claude/claude-sonnet-4-5'), all.map((m) => m.id));
  const openaiIds = [];
  for await (const m of oai().models.list()) openaiIds.push(m.id);
  eq('the same ids as the OpenAI list', all.map((m) => m.id), openaiIds);
});

check('anthropic-models-retrieve', async () => {
  const client = ant();
  const m = await client.models.retrieve('claude/claude-sonnet-4-5');
  eq('retrieve', m, { type: 'model', id: 'claude/claude-sonnet-4-5', display_name: 'claude/claude-sonnet-4-5', created_at: EPOCH });
  const e = await rejects('retrieve no-such-model-zzz', client.models.retrieve('no-such-model-zzz'), anthropicModule.NotFoundError);
  eq('404 envelope', [e.status, e.error?.type, e.error?.error?.type], [404, 'error', 'not_found_error']);
});

check('anthropic-bad-key', async () => {
  const e = await rejects('messages with a wrong key', ant({ apiKey: 'sk-not-a-key' }).messages.create(
    { model: 'claude/claude-sonnet-4-5', max_tokens: 64, messages: USER }), anthropicModule.AuthenticationError);
  eq('status', e.status, 401);
  eq('envelope', { type: e.error?.type, error: { type: e.error?.error?.type, message: typeof e.error?.error?.message } },
    { type: 'error', error: { type: 'authentication_error', message: 'string' } });
  eq('envelope keys', [Object.keys(e.error).sort(), Object.keys(e.error.error).sort()], [['error', 'type'], ['message', 'type']]);
  ok('X-Request-Id', REQUEST_ID.test(e.headers.get('x-request-id')), e.headers.get('x-request-id'));
  eq('requestID (request-id)', e.requestID, e.headers.get('x-request-id'));
});

check('anthropic-404-model', async () => {
  const e = await rejects('messages on nosuch/model', ant().messages.create({ model: 'nosuch/model', max_tokens: 64, messages: USER }),
    anthropicModule.NotFoundError);
  eq('status, envelope', [e.status, e.error?.type, e.error?.error?.type], [404, 'error', 'not_found_error']);
  ok('message names the model', e.error.error.message.includes('nosuch/model'), e.error.error.message);
});

check('anthropic-400', async () => {
  const e = await rejects('messages without max_tokens', ant().messages.create({ model: 'mock/model-plain', messages: USER }),
    anthropicModule.BadRequestError);
  eq('status, envelope', [e.status, e.error?.type, e.error?.error?.type], [400, 'error', 'invalid_request_error']);
  ok('message names max_tokens', e.error.error.message.includes('max_tokens'), e.error.error.message);
});

check('anthropic-429-no-retry', async () => {
  const e = await rejects('messages on a rate-limited upstream', ant().messages.create(
    { model: 'rla/ratelimit-b', max_tokens: 64, messages: USER }), anthropicModule.RateLimitError);
  eq('status, envelope', [e.status, e.error?.type, e.error?.error?.type], [429, 'error', 'rate_limit_error']);
  eq('Retry-After', e.headers.get('retry-after'), '1');
  eq('upstream requests (maxRetries 0)', mockRequests('ratelimit-b').length, 1);
});

check('anthropic-429-retry-honoured', async () => {
  const t0 = Date.now();
  const m = await ant({ maxRetries: 2 }).messages.create({ model: 'fla/flaky-b', max_tokens: 64, messages: USER });
  const ms = Date.now() - t0;
  eq('answer after the retry', m.content, [{ type: 'text', text: 'MOCK-OPENAI-OK[flaky-b]: hi from sdk' }]);
  eq('upstream requests', mockRequests('flaky-b').length, 2);
  ok('the SDK waited Retry-After (1 s) before retrying', ms >= 900, `${ms} ms`);
});

check('anthropic-abort-frees', async () => {
  eq('running before', await slowRunning(), { running: 0, queued: 0 });
  const s = ant().messages.stream({ model: 'slow/slow-a', max_tokens: 64, messages: USER });
  const first = await new Promise((resolve, reject) => { s.on('text', resolve); s.on('error', reject); });
  eq('first text delta', first, 'tick0 ');
  eq('running while streaming', (await slowRunning()).running, 1);
  s.on('abort', () => {});  // the SDK's way of hearing about its own abort (else its promise rejects unhandled)
  s.abort();
  const ended = await s.done().then(() => 'resolved', (e) => e?.constructor?.name);
  eq('the stream ends with', ended, 'APIUserAbortError');
  await until('running 0 on GET /api/rate-limits after the abort', async () => {
    const seen = await slowRunning();
    return { ok: seen.running === 0 && seen.queued === 0, seen };
  });
  await until('the upstream stream closed by Sluice', async () => ({ ok: mockSaysClosed('slow-a'), seen: false }));
});

// Last: a 429 cools the claude connection down, and the passthrough checks above share it.
check('anthropic-429-passthrough', async () => {
  const e = await rejects('messages on a rate-limited Claude upstream', ant().messages.create(
    { model: 'claude/ratelimit-c', max_tokens: 64, messages: USER }), anthropicModule.RateLimitError);
  eq('status, envelope', [e.status, e.error?.type, e.error?.error?.type], [429, 'error', 'rate_limit_error']);
  eq('Retry-After', e.headers.get('retry-after'), '1');
  ok('message names the model and the upstream\'s own', /\[claude\/ratelimit-c\].*mock: slow down/.test(e.error.error.message),
    e.error.error.message);
});

// a rejection nobody awaited (an SDK helper's own promise) is reported, not fatal to the other checks
process.on('unhandledRejection', (e) => console.error(`unhandled rejection: ${e?.constructor?.name} ${e?.message}`));

// ---- run --------------------------------------------------------------------------------------
let failed = 0;
for (const c of checks) {
  if (!selected(c.name)) continue;
  let timer;
  try {
    await Promise.race([c.fn(), new Promise((_, rej) => { timer = setTimeout(() => rej(new CheckFailed('timed out after 30 s')), 30000); })]);
    console.log(`PASS ${c.name}`);
  } catch (e) {
    failed++;
    const why = e instanceof CheckFailed ? e.message : `${e?.constructor?.name}: ${e?.status ?? ''} ${e?.message}`;
    console.log(`FAIL ${c.name}: ${String(why).replace(/\s+/g, ' ').slice(0, 900)}`);
  } finally {
    clearTimeout(timer);
  }
}
process.exit(failed ? 1 : 0);
