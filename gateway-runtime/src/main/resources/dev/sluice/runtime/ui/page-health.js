// Health: breakers, lockouts, cooldowns, queues, sessions, plugins and the live request-rate chart
// (issue 18's view, kept with its data-testids).
import { html, useState, useEffect, useRef, api, request, act, usePoll, duration, Time, Badge, ErrorText, TERMINAL, AuthError } from './lib.js';
import { Plot } from './plot.js';
import { RateSeries, totalsByProvider, formatRate, COLORS } from './chart.js';

const STATE_ORDER = { OPEN: 0, HALF_OPEN: 1, DEGRADED: 2, CLOSED: 3 };
const METRICS_MS = 5000;

export function HealthPage() {
  const [status, setStatus] = useState('');
  const [plugins, setPlugins] = useState(null);
  const [data, error, reload] = usePoll(async () => {
    const [health, cooldowns, lockouts, rateLimits, sessions] = await Promise.all([
      api('GET', '/api/monitoring/health'), api('GET', '/api/resilience/cooldowns'), api('GET', '/api/resilience/model-cooldowns'),
      api('GET', '/api/rate-limits'), api('GET', '/api/sessions')]);
    return { health, cooldowns: cooldowns.data, lockouts: lockouts.data, rateLimits: rateLimits.data, sessions };
  }, [], { every: 10000 });
  useEffect(() => {
    act(() => api('GET', '/api/plugins')).then((r) => r.ok && setPlugins(r.value));
  }, []);
  const run = async (fn) => {
    const r = await act(fn);
    setStatus(r.ok ? r.value : r.error.message);
    reload();
  };
  if (!data) {
    return html`<h2>Health</h2><${ErrorText} error=${error} />${error ? null : html`<p class="empty">Loading…</p>`}`;
  }
  const h = data.health;
  const c = h.connections || {};
  const names = new Map(data.cooldowns.map((x) => [x.connectionId, x.name]));
  return html`
    <h2>Health <span class="unit">${h.status} · ${c.total ?? 0} connections, ${c.cooling ?? 0} cooling,
      ${c.terminal ?? 0} terminal, ${h.lockouts ?? 0} model lockouts</span></h2>
    <p id="action-status" class="action-status" role="status" aria-live="polite">${status}</p>
    <${ErrorText} error=${error} />
    <div class="grid">
      <${RateChart} />
      <${Breakers} breakers=${h.providerBreakers || []} run=${run} />
      <${Lockouts} list=${data.lockouts} names=${names} run=${run} />
      <${Cooldowns} list=${data.cooldowns} run=${run} />
      <${Queues} list=${data.rateLimits} />
      <${Sessions} counts=${h.sessions} sessions=${data.sessions} />
      <${Plugins} plugins=${plugins} />
    </div>`;
}

function Breakers({ breakers, run }) {
  const byProvider = new Map();
  for (const b of breakers) {
    byProvider.set(b.provider, [...(byProvider.get(b.provider) || []), b]);
  }
  const rows = [];
  for (const [provider, list] of [...byProvider].sort((a, b) => a[0].localeCompare(b[0]))) {
    // the worst host first: its row is the provider's (breaker-<provider>) and holds the reset
    list.sort((a, b) => (STATE_ORDER[a.state] ?? 9) - (STATE_ORDER[b.state] ?? 9));
    list.forEach((b, i) => rows.push(html`<tr key=${provider + ' ' + (b.host || '')} data-testid=${i === 0 ? 'breaker-' + provider : undefined}>
      ${i === 0 ? html`<th scope="row" rowspan=${list.length}>${provider}</th>` : null}
      <td>${b.host || '—'}</td><td><${Badge} state=${b.state} /></td><td class="num">${b.failureCount}</td>
      <td>${duration(b.retryAfterMs)}</td>
      <td>${b.lastFailureAt ? html`<${Time} ms=${b.lastFailureAt} timeOnly /> ${b.lastFailureKind || ''}` : '—'}</td>
      ${i === 0 ? html`<td rowspan=${list.length}><button type="button" data-testid=${'breaker-reset-' + provider}
        aria-label=${'Reset the breakers of ' + provider} onClick=${() => run(async () => {
          const r = await api('POST', '/api/resilience/reset', { provider });
          return `Reset ${r.reset} breaker(s) of ${provider}.`;
        })}>Reset</button></td>` : null}
    </tr>`));
  }
  return html`<section class="panel" aria-labelledby="breakers-title">
    <h3 id="breakers-title">Provider breakers</h3>
    <div class="table-wrap"><table><thead><tr><th scope="col">Provider</th><th scope="col">Host</th><th scope="col">State</th>
      <th scope="col" class="num">Failures</th><th scope="col">Retry after</th><th scope="col">Last failure</th>
      <th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
    <tbody id="breakers">${rows.length ? rows : html`<tr><td class="empty" colspan="7">No provider has a connection yet: add one on the Connections page.</td></tr>`}</tbody></table></div>
  </section>`;
}

function Lockouts({ list, names, run }) {
  return html`<section class="panel" aria-labelledby="lockouts-title">
    <h3 id="lockouts-title">Model lockouts</h3>
    <div class="table-wrap"><table><thead><tr><th scope="col">Provider</th><th scope="col">Model</th><th scope="col">Connection</th>
      <th scope="col">Reason</th><th scope="col">Left</th><th scope="col" class="num">Failures</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
    <tbody id="lockouts">${list.length === 0 ? html`<tr><td class="empty" colspan="7">No model is locked out.</td></tr>`
      : list.map((l) => html`<tr key=${l.provider + l.connectionId + l.model} data-testid=${`lockout-${l.provider}-${l.model}`}>
        <th scope="row">${l.provider}</th><td>${l.model}<span class="sub">${l.scope}</span></td>
        <td>${names.get(l.connectionId) || l.connectionId}<span class="sub">${l.connectionId}</span></td>
        <td>${l.reason}</td><td>${duration(l.remainingMs)}</td><td class="num">${l.failureCount}</td>
        <td><button type="button" data-testid=${`lockout-enable-${l.provider}-${l.connectionId}-${l.model}`}
          aria-label=${`Re-enable ${l.model} on ${l.provider}`} onClick=${() => run(async () => {
            await api('DELETE', '/api/resilience/model-cooldowns', { provider: l.provider, connection: l.connectionId, model: l.model });
            return `Re-enabled ${l.provider}/${l.model}.`;
          })}>Re-enable</button></td></tr>`)}</tbody></table></div>
  </section>`;
}

function Cooldowns({ list, run }) {
  return html`<section class="panel wide" aria-labelledby="connections-title">
    <h3 id="connections-title">Connections</h3>
    <div class="table-wrap"><table><thead><tr><th scope="col">Connection</th><th scope="col">Provider</th><th scope="col">Status</th>
      <th scope="col">Cooldown left</th><th scope="col" class="num">Backoff</th><th scope="col">Last error</th>
      <th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
    <tbody id="connections">${list.length === 0 ? html`<tr><td class="empty" colspan="7">No connections: add one on the Connections page.</td></tr>`
      : list.map((c) => {
        const terminal = TERMINAL.has(c.testStatus);
        const cooling = c.remainingMs > 0 || (c.modelLockouts || []).length > 0;
        return html`<tr key=${c.connectionId} data-testid=${'connection-' + c.connectionId}>
          <th scope="row">${c.name}<span class="sub">${c.connectionId}</span></th><td>${c.provider}</td>
          <td><${Badge} state=${c.testStatus} />${terminal ? html`<span class="sub">terminal: fix its credentials, or reactivate once the cause is gone</span>` : null}</td>
          <td>${duration(c.remainingMs)}</td><td class="num">${c.backoffLevel}</td>
          <td>${c.lastErrorType || '—'}${c.errorCode ? html`<span class="error-text">${c.errorCode}</span>` : null}</td>
          <td>${cooling && !terminal ? html`<button type="button" data-testid=${'cooldown-clear-' + c.connectionId}
              aria-label=${'Clear the cooldown of ' + c.name} onClick=${() => run(async () => {
                const r = await api('POST', '/api/resilience/cooldowns', { connectionIds: [c.connectionId] });
                return `Cleared ${r.cleared.length} cooldown(s) and ${r.lockoutsCleared} model lockout(s).`;
              })}>Clear</button>`
            : terminal ? html`<button type="button" data-testid=${'connection-reactivate-' + c.connectionId}
              aria-label=${`Bring ${c.name} back to active`} onClick=${() => run(async () => {
                const r = await api('POST', '/api/resilience/cooldowns', { connectionIds: [c.connectionId], reactivate: true });
                return `Reactivated ${r.reactivated.length} connection(s).`;
              })}>Reactivate</button>` : null}</td></tr>`;
      })}</tbody></table></div>
  </section>`;
}

function Queues({ list }) {
  return html`<section class="panel" aria-labelledby="queues-title">
    <h3 id="queues-title">Queues</h3>
    <div class="table-wrap"><table><thead><tr><th scope="col">Connection</th><th scope="col">Protected</th><th scope="col" class="num">Running</th>
      <th scope="col" class="num">Queued</th><th scope="col">Paused</th></tr></thead>
    <tbody id="queues">${list.length === 0 ? html`<tr><td class="empty" colspan="5">No connections.</td></tr>` : list.map((q) => html`<tr key=${q.connectionId}>
      <th scope="row">${q.name || q.connectionId}<span class="sub">${q.provider}</span></th><td>${q.protected ? 'yes' : 'no'}</td>
      <td class="num">${q.running}</td><td class="num">${q.queued}</td>
      <td>${q.pausedUntil ? html`all until <${Time} ms=${q.pausedUntil} timeOnly />` : null}
        ${Object.entries(q.pausedModels || {}).map(([m, until]) => html`<span class="sub">${m} until <${Time} ms=${until} timeOnly /></span>`)}
        ${!q.pausedUntil && Object.keys(q.pausedModels || {}).length === 0 ? '—' : null}</td></tr>`)}</tbody></table></div>
  </section>`;
}

function Sessions({ counts, sessions }) {
  const c = counts || {};
  const now = Date.now();
  return html`<section class="panel" aria-labelledby="sessions-title">
    <h3 id="sessions-title">Sessions</h3>
    <dl class="counts"><div><dt>Session pins</dt><dd>${c.pins ?? sessions.pins.length}</dd></div>
      <div><dt>Active leases</dt><dd>${c.activeLeases ?? sessions.leases.length}</dd></div>
      <div><dt>Affinity TTL</dt><dd>${duration(sessions.sessionAffinityTtlMs)}</dd></div></dl>
    <div class="table-wrap"><table><thead><tr><th scope="col">Lease</th><th scope="col">Connection</th><th scope="col">Model</th><th scope="col">Expires in</th></tr></thead>
    <tbody id="leases">${sessions.leases.length === 0 ? html`<tr><td class="empty" colspan="4">No active leases.</td></tr>`
      : sessions.leases.map((l) => html`<tr key=${l.id}><th scope="row">${l.id}<span class="sub">${l.state} · generation ${l.generation}</span></th>
        <td>${l.connectionId}</td><td>${l.model || '—'}</td><td>${duration(l.expiresAt - now)}</td></tr>`)}</tbody></table></div>
  </section>`;
}

function Plugins({ plugins }) {
  if (!plugins) {
    return null;
  }
  const items = (plugins.data || []).map((p) => html`<div class="plugin" key=${p.name}>
    <h4>${p.name} <span class="sub">${p.source} · SPI ${p.spiVersion}</span></h4>
    <p class="sub">Providers: ${(p.providers || []).map((d) => d.id).join(', ') || 'none'}
      ${p.comboStrategies && p.comboStrategies.length ? ' · combo strategies: ' + p.comboStrategies.join(', ') : ''}</p>
    <ul>${(p.restatementRules || []).map((r) => html`<li>restate ${r.provider} ${(r.fromStatuses || []).join('/')} → ${r.toStatus} (${r.id})</li>`)}
      ${(p.errorRules || []).map((r) => html`<li>error ${r.provider} ${r.status ?? ''} → ${r.reason}, ${r.scope} (${r.id})</li>`)}</ul>
  </div>`);
  for (const f of plugins.failures || []) {
    items.push(html`<div class="plugin"><h4>${f.source} <${Badge} state="refused" /></h4><p class="sub">${f.reason}</p>
      <p class="sub">${(f.providers || []).length ? `Providers unavailable (503 provider_unavailable; new connections refused): ${f.providers.join(', ')}` : 'Claims no provider id.'}</p></div>`);
  }
  return html`<section class="panel wide" aria-labelledby="plugins-title"><h3 id="plugins-title">Plugins and their rules</h3>
    <div id="plugins">${items.length ? items : html`<p class="empty">No plugins loaded.</p>`}</div></section>`;
}

/** Requests and errors per second per provider, from /metrics every 5 s while the tab is visible. */
function RateChart() {
  const series = useRef(new RateSeries(60));
  const [tick, setTick] = useState(0);
  const [unavailable, setUnavailable] = useState('');
  useEffect(() => {
    let alive = true;
    let timer = null;
    const scrape = async () => {
      clearTimeout(timer);
      if (!alive || document.hidden) {
        return;
      }
      try {
        const res = await request('GET', '/metrics');
        if (res.status === 404 || !res.ok) {
          // a server without GET /metrics: the rest of the page works without it
          setUnavailable(res.status === 404 ? 'Metrics not available: this server does not serve /metrics.'
            : `Metrics not available: /metrics answered ${res.status}.`);
          return;
        }
        series.current.add(Date.now(), totalsByProvider(await res.text()));
        setTick((t) => t + 1);
      } catch (e) {
        if (e instanceof AuthError) {
          act(() => { throw e; });
          return;
        }
        setUnavailable('Metrics not available: ' + e.message);
        return;
      }
      if (alive) {
        timer = setTimeout(scrape, METRICS_MS);
      }
    };
    const visibility = () => { if (!document.hidden) { scrape(); } else { clearTimeout(timer); } };
    document.addEventListener('visibilitychange', visibility);
    scrape();
    return () => { alive = false; clearTimeout(timer); document.removeEventListener('visibilitychange', visibility); };
  }, []);
  const s = series.current;
  const providers = s.providers;
  const xs = s.points.map((p) => p.t / 1000);
  const data = [xs];
  const lines = [];
  providers.forEach((p, k) => {
    const color = COLORS[k % COLORS.length];
    data.push(s.points.map((pt) => (pt.rates.get(p) || { requests: 0 }).requests));
    lines.push({ label: p + ' requests/s', stroke: color });
    data.push(s.points.map((pt) => (pt.rates.get(p) || { errors: 0 }).errors));
    lines.push({ label: p + ' errors/s', stroke: color, dash: [5, 4] });
  });
  const latest = s.latest();
  return html`<section class="panel wide" aria-labelledby="chart-title">
    <h3 id="chart-title">Requests and errors per provider <span class="unit">(per second, from <code>/metrics</code>)</span></h3>
    <p id="chart-message" class="empty" hidden=${!unavailable}>${unavailable}</p>
    ${unavailable || providers.length === 0 ? null : html`<${Plot} id="chart" series=${lines} data=${data} label="Requests and errors per second by provider" key=${providers.join('\u0000')} />`}
    <ul id="chart-legend" class="legend" aria-label="Latest rates" data-tick=${tick}>
      ${unavailable ? null : providers.length === 0 ? html`<li>No requests counted yet.</li>` : providers.map((p, k) => {
        const r = latest.get(p) || { requests: 0, errors: 0 };
        return html`<li><span class=${'swatch c' + (k % 8)}></span>${p}: ${formatRate(r.requests)} req/s, ${formatRate(r.errors)} errors/s (dashed)</li>`;
      })}
    </ul>
  </section>`;
}
