// Logs: recent requests and failures, filtered; a row opens the request's attempts.
import { html, useState, api, act, usePoll, Time, ErrorText, Table, duration, Badge } from './lib.js';

const TIMES = { '1h': 3600e3, '24h': 86400e3, '7d': 7 * 86400e3 };

export function LogsPage() {
  const [filters, setFilters] = useState({ status: '', provider: '', model: '', key: '', time: '24h' });
  const [draft, setDraft] = useState(filters);
  const [open, setOpen] = useState(null);
  const [older, setOlder] = useState([]);
  const query = (to) => {
    const q = new URLSearchParams({ limit: '200' });
    for (const k of ['status', 'provider', 'model', 'key']) {
      if (filters[k].trim()) {
        q.set(k, filters[k].trim());
      }
    }
    q.set('from', String(Date.now() - TIMES[filters.time]));
    if (to) {
      q.set('to', String(to));
    }
    return '/api/logs?' + q;
  };
  const [data, error] = usePoll(() => api('GET', query()), [filters], { every: 5000 });
  const apply = (e) => {
    e.preventDefault();
    setOlder([]);
    setFilters(draft);
  };
  const set = (k, now) => (e) => {
    const next = { ...draft, [k]: e.target.value };
    setDraft(next);
    if (now) {
      setOlder([]);
      setFilters(next);
    }
  };
  const rows = data ? [...data.requests, ...older] : [];
  const more = older.length ? older.more : data && data.more;
  const loadOlder = async () => {
    const oldest = rows[rows.length - 1];
    const r = await act(() => api('GET', query(oldest.timeMs)));
    if (r.ok) {
      const list = [...older, ...r.value.requests.filter((x) => !rows.some((y) => y.requestId === x.requestId))];
      list.more = r.value.more;
      setOlder(list);
    }
  };
  return html`
    <h2>Logs</h2>
    <form class="filters" onSubmit=${apply} aria-label="Filters">
      <label>Status <select data-testid="log-filter-status" value=${draft.status} onChange=${set('status', true)}>
        <option value="">any</option><option value="2xx">2xx</option><option value="4xx">4xx</option><option value="5xx">5xx</option><option value="0">no answer</option></select></label>
      <label>Provider <input data-testid="log-filter-provider" value=${draft.provider} onInput=${set('provider')} spellcheck="false" /></label>
      <label>Model <input data-testid="log-filter-model" value=${draft.model} onInput=${set('model')} spellcheck="false" /></label>
      <label>Key id <input data-testid="log-filter-key" value=${draft.key} onInput=${set('key')} spellcheck="false" placeholder="admin or a key id" /></label>
      <label>Since <select data-testid="log-filter-time" value=${draft.time} onChange=${set('time', true)}>
        ${Object.keys(TIMES).map((t) => html`<option value=${t}>last ${t}</option>`)}</select></label>
      <button type="submit" data-testid="log-filter-apply">Filter</button>
    </form>
    <${ErrorText} error=${error} />
    <p class="help">${data ? `The last ${data.ringCapacity} requests of this instance, and failed attempts kept for 7 days. Press a row for its attempts.` : ''}</p>
    <${Table} testid="logs-table" rows=${rows} rowKey=${(e) => e.requestId} pageSize=${50}
      empty=${data ? 'No request matches: widen the filters, or send a request through /v1/chat/completions.' : 'Loading…'}
      columns=${[{ label: 'Time', sort: (e) => e.timeMs }, { label: 'Status', num: true, sort: (e) => e.status }, { label: 'Model', sort: (e) => e.requestedModel || e.model },
        { label: 'Provider', sort: (e) => e.provider || '' }, { label: 'Key', sort: (e) => e.keyId || '' }, { label: 'Latency ms', num: true, sort: (e) => e.latencyMs ?? -1 },
        { label: 'Why it failed' }]}
      row=${(e) => html`<${LogRow} entry=${e} open=${open === e.requestId} toggle=${() => setOpen(open === e.requestId ? null : e.requestId)} />`} />
    ${more ? html`<button type="button" class="secondary" data-testid="log-older" onClick=${loadOlder}>Older requests</button>` : null}`;
}

function LogRow({ entry: e, open, toggle }) {
  const failed = e.status >= 400 || e.status === 0;
  return html`<tr data-testid="log-row" data-status=${String(e.status)} data-request-id=${e.requestId} class=${failed ? 'failed clickable' : 'clickable'} onClick=${toggle}>
      <td><button type="button" class="link" aria-expanded=${open ? 'true' : 'false'} aria-label=${'Attempts of ' + e.requestId}
        onClick=${(ev) => { ev.stopPropagation(); toggle(); }}><${Time} ms=${e.timeMs} /></button><span class="sub">${e.source}</span></td>
      <td class="num"><span class=${failed ? 'status bad' : 'status'}>${e.status}</span></td>
      <td>${e.requestedModel || e.model || '—'}${e.model && e.requestedModel && e.model !== e.requestedModel ? html`<span class="sub">→ ${e.model}</span>` : null}</td>
      <td>${e.provider || '—'}</td><td>${e.keyId || '—'}</td><td class="num">${e.latencyMs ?? '—'}</td>
      <td>${e.failure || e.errorCode || ''}</td>
    </tr>
    ${open ? html`<tr class="details"><td colspan="7"><${Attempts} entry=${e} /></td></tr>` : null}`;
}

/** What a failed attempt left on its connection, as the server recorded it with the attempt (not the connection's state now). */
function Effect({ effect, at }) {
  if (!effect) {
    return html`<span class="help">—</span>`;
  }
  const until = effect.untilMs ? html` until <${Time} ms=${effect.untilMs} /> (${duration(effect.untilMs - at)})` : '';
  const what = effect.kind === 'cooldown' ? 'connection cooled' : effect.kind === 'model_lockout' ? 'model locked out'
    : effect.kind === 'terminal' ? 'connection made terminal' : effect.kind;
  return html`<span data-kind=${effect.kind}><${Badge} state=${effect.kind} /> ${what}${until}${effect.reason ? html` — <code>${effect.reason}</code>` : null}</span>`;
}

function Attempts({ entry }) {
  return html`<div class="attempts" data-testid="log-attempts">
    <p>Request <code>${entry.requestId}</code> via ${entry.api || 'an unknown API'}${entry.failure ? html` — failed: <strong data-testid="log-failure">${entry.failure}</strong>` : null}
      ${entry.errorCode ? html` (answered ${entry.errorCode})` : null}</p>
    ${entry.attempts.length === 0 ? html`<p class="help">No upstream attempt: the request was refused before one.</p>` : html`<div class="table-wrap"><table>
      <thead><tr><th scope="col">#</th><th scope="col">Time</th><th scope="col">Connection</th><th scope="col">Model</th><th scope="col" class="num">Status</th>
        <th scope="col">Classifier reason</th><th scope="col" class="num">Latency ms</th><th scope="col">Egress</th>
        <th scope="col" title="The cooldown, model lockout or terminal state this attempt caused, as recorded when it failed">What it caused</th></tr></thead>
      <tbody>${entry.attempts.map((a, i) => html`<tr data-testid="log-attempt">
        <td>${i + 1}</td><td>${a.time ? html`<${Time} ms=${Date.parse(a.time)} timeOnly />` : '—'}</td>
        <td>${a.provider}<span class="sub">${a.connectionId}</span></td><td>${a.model}</td><td class="num">${a.status}</td>
        <td data-testid="log-attempt-reason">${a.errorType || 'ok'}</td><td class="num">${a.latencyMs ?? '—'}</td><td>${a.egressIp || '—'}</td>
        <td data-testid="log-attempt-effect"><${Effect} effect=${a.effect} at=${a.time ? Date.parse(a.time) : Date.now()} /></td></tr>`)}</tbody></table></div>`}
  </div>`;
}
