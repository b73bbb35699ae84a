// Sluice dashboard. Plain DOM: every value from the server is set as text, never as markup.
import { RateSeries, totalsByProvider, draw, formatRate } from './chart.js';

const KEY_STORAGE = 'sluice.adminKey';   // sessionStorage: gone when the tab closes, never sent as a cookie
const REFRESH_MS = 5000;
const METRICS_MS = 5000;
const TERMINAL = new Set(['banned', 'expired', 'credits_exhausted']);
const STATE_ORDER = { OPEN: 0, HALF_OPEN: 1, DEGRADED: 2, CLOSED: 3 };

const $ = (id) => document.getElementById(id);
let refreshTimer = null;
let metricsTimer = null;
let refreshing = false;
let refreshAgain = false;   // an action asked for fresh views while a refresh was running
let series = new RateSeries(60);

class AuthError extends Error {}

// ---- the admin API ---------------------------------------------------------------------------

async function api(method, path, body) {
  const key = sessionStorage.getItem(KEY_STORAGE);
  if (!key) {
    throw new AuthError('Log in with the admin key.');
  }
  const headers = { Authorization: 'Bearer ' + key };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
  }
  const res = await fetch(path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store', credentials: 'omit',
  });
  if (res.status === 401 || res.status === 403) {
    const why = await errorText(res);
    throw new AuthError(`The server refused the key (${res.status}${why ? ': ' + why : ''}).`);
  }
  return res;
}

async function json(method, path, body) {
  const res = await api(method, path, body);
  if (!res.ok) {
    const why = await errorText(res);
    throw new Error(`${method} ${path} answered ${res.status}${why ? ': ' + why : ''}`);
  }
  return res.json();
}

async function errorText(res) {
  try {
    const body = await res.json();
    return body && body.error ? body.error.message || body.error.code : '';
  } catch {
    return '';
  }
}

// ---- log in and out --------------------------------------------------------------------------

function showLogin(message) {
  sessionStorage.removeItem(KEY_STORAGE);
  clearInterval(refreshTimer);
  clearInterval(metricsTimer);
  refreshTimer = metricsTimer = null;
  $('dashboard').hidden = true;
  $('logout').hidden = true;
  $('login-view').hidden = false;
  $('health').textContent = '';
  $('refreshed').textContent = '';
  $('login-message').textContent = message || '';
  $('admin-key').value = '';
  $('admin-key').focus();
}

function showDashboard() {
  $('login-view').hidden = true;
  $('dashboard').hidden = false;
  $('logout').hidden = false;
  $('login-message').textContent = '';
  series = new RateSeries(60);
  refresh();
  refreshTimer = setInterval(refresh, REFRESH_MS);
  startMetrics();
}

async function login(event) {
  event.preventDefault();
  const key = $('admin-key').value.trim();
  if (!key) {
    $('login-message').textContent = 'Enter the admin key.';
    return;
  }
  sessionStorage.setItem(KEY_STORAGE, key);
  try {
    await json('GET', '/api/monitoring/health');
    $('admin-key').value = '';
    showDashboard();
  } catch (e) {
    showLogin(e instanceof AuthError ? e.message : 'Cannot reach Sluice: ' + e.message);
  }
}

function handle(e) {
  if (e instanceof AuthError) {
    showLogin(e.message);
  } else {
    $('action-status').textContent = e.message;
  }
}

// ---- refresh ---------------------------------------------------------------------------------

async function refresh() {
  if (document.hidden) {
    return;
  }
  if (refreshing) {
    refreshAgain = true;
    return;
  }
  refreshing = true;
  try {
    const [health, providers, cooldowns, lockouts, rateLimits, sessions, combos, plugins] = await Promise.all([
      json('GET', '/api/monitoring/health'),
      json('GET', '/api/providers'),
      json('GET', '/api/resilience/cooldowns'),
      json('GET', '/api/resilience/model-cooldowns'),
      json('GET', '/api/rate-limits'),
      json('GET', '/api/sessions'),
      json('GET', '/api/combos'),
      json('GET', '/api/plugins'),
    ]);
    const names = new Map(providers.data.map((c) => [c.id, c]));
    keepingFocus(() => {
      renderHealth(health);
      renderBreakers(health.providerBreakers || []);
      renderConnections(cooldowns.data, names);
      renderLockouts(lockouts.data, names);
      renderQueues(rateLimits.data);
      renderSessions(health.sessions, sessions);
      renderCombos(combos.data);
      renderPlugins(plugins);
    });
    $('refreshed').textContent = 'Updated ' + new Date().toLocaleTimeString();
  } catch (e) {
    handle(e);
  } finally {
    refreshing = false;
  }
  if (refreshAgain && refreshTimer) {
    refreshAgain = false;
    await refresh();
  }
}

// Rows are rebuilt on every refresh; a keyboard user's focus must not fall back to the page.
function keepingFocus(render) {
  const id = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.testid : null;
  render();
  if (id) {
    const again = document.querySelector(`[data-testid="${CSS.escape(id)}"]`);
    if (again) {
      again.focus();
    }
  }
}

// ---- small DOM helpers ----------------------------------------------------------------------

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) {
      continue;
    }
    if (k === 'class') {
      e.className = v;
    } else if (k === 'testid') {
      e.dataset.testid = v;
    } else if (k === 'onclick') {
      e.addEventListener('click', v);
    } else {
      e.setAttribute(k, v === true ? '' : String(v));
    }
  }
  for (const c of children) {
    if (c !== null && c !== undefined && c !== false) {
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
  }
  return e;
}

function td(...children) {
  return el('td', {}, ...children);
}

function numTd(v) {
  return el('td', { class: 'num' }, v ?? '—');
}

function badge(state) {
  const s = String(state || 'unknown');
  return el('span', { class: 'badge state-' + s.toLowerCase() }, s);
}

function emptyRow(tbody, columns, text) {
  renderRows(tbody, [el('tr', { 'data-key': 'empty' }, el('td', { class: 'empty', colspan: columns }, text))]);
}

// Puts freshly built rows (each with a data-key) into a table body, keeping every existing cell whose
// markup did not change: a button does not vanish under the pointer or the keyboard focus because
// the row's countdown moved on. The kept buttons' handlers use only what the row's key names.
function renderRows(tbody, fresh) {
  const old = new Map([...tbody.children].map((tr) => [tr.dataset.key, tr]));
  const rows = fresh.map((tr) => {
    const current = old.get(tr.dataset.key);
    if (!current) {
      return tr;
    }
    morph(current, tr);
    return current;
  });
  for (const child of [...tbody.children]) {
    if (!rows.includes(child)) {
      child.remove();
    }
  }
  rows.forEach((tr, i) => {
    if (tbody.children[i] !== tr) {
      tbody.insertBefore(tr, tbody.children[i] || null);
    }
  });
}

function morph(current, fresh) {
  for (const a of [...current.attributes]) {
    if (!fresh.hasAttribute(a.name)) {
      current.removeAttribute(a.name);
    }
  }
  for (const a of [...fresh.attributes]) {
    if (current.getAttribute(a.name) !== a.value) {
      current.setAttribute(a.name, a.value);
    }
  }
  if (current.children.length !== fresh.children.length) {
    current.replaceChildren(...fresh.childNodes);
    return;
  }
  [...fresh.children].forEach((cell, i) => {
    if (current.children[i].outerHTML !== cell.outerHTML) {
      current.children[i].replaceWith(cell);
    }
  });
}

function duration(ms) {
  if (!ms || ms <= 0) {
    return '—';
  }
  let s = Math.ceil(ms / 1000);
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  return h ? `${h}h ${m}m` : m ? `${m}m ${s}s` : `${s}s`;
}

function time(epochMs) {
  return epochMs ? new Date(epochMs).toLocaleTimeString() : '—';
}

function connectionLabel(id, names) {
  const c = names.get(id);
  // the key as /api/providers masks it (sk-…abcd): the one masked form, never computed here
  const key = c && c.apiKey ? el('span', { class: 'sub', testid: 'connection-key-' + id }, c.apiKey) : null;
  return [c ? c.name : id, el('span', { class: 'sub' }, id), key];
}

// An action button: disabled while its call runs, then the views refresh.
function actionButton(testid, label, accessibleName, action) {
  const b = el('button', { type: 'button', testid, 'aria-label': accessibleName }, label);
  b.addEventListener('click', async () => {
    b.disabled = true;
    try {
      $('action-status').textContent = await action();
    } catch (e) {
      handle(e);
    }
    await refresh();
  });
  return b;
}

// ---- the views -------------------------------------------------------------------------------

function renderHealth(health) {
  const c = health.connections || {};
  $('health').textContent = `${health.status} · ${c.total ?? 0} connections, ${c.cooling ?? 0} cooling, `
    + `${c.terminal ?? 0} terminal, ${health.lockouts ?? 0} model lockouts`;
}

function renderBreakers(breakers) {
  const tbody = $('breakers');
  if (breakers.length === 0) {
    emptyRow(tbody, 7, 'No provider has a connection yet.');
    return;
  }
  const byProvider = new Map();
  for (const b of breakers) {
    if (!byProvider.has(b.provider)) {
      byProvider.set(b.provider, []);
    }
    byProvider.get(b.provider).push(b);
  }
  const rows = [];
  for (const [provider, list] of [...byProvider].sort((a, b) => a[0].localeCompare(b[0]))) {
    // the worst host first: its row is the provider's (breaker-<provider>) and holds the reset
    list.sort((a, b) => (STATE_ORDER[a.state] ?? 9) - (STATE_ORDER[b.state] ?? 9));
    list.forEach((b, i) => {
      const row = el('tr', { testid: i === 0 ? 'breaker-' + provider : null, 'data-key': `${provider} ${b.host || ''}` },
        i === 0 ? el('th', { scope: 'row', rowspan: list.length }, provider) : null,
        td(b.host || '—'),
        td(badge(b.state)),
        numTd(b.failureCount),
        td(duration(b.retryAfterMs)),
        td(b.lastFailureAt ? `${time(b.lastFailureAt)} ${b.lastFailureKind || ''}` : '—'),
        i === 0 ? el('td', { rowspan: list.length },
          actionButton('breaker-reset-' + provider, 'Reset', `Reset the breakers of ${provider}`, async () => {
            const r = await json('POST', '/api/resilience/reset', { provider });
            return `Reset ${r.reset} breaker(s) of ${provider}.`;
          })) : null);
      rows.push(row);
    });
  }
  renderRows(tbody, rows);
}

function renderConnections(list, names) {
  const tbody = $('connections');
  if (list.length === 0) {
    emptyRow(tbody, 7, 'No connections. Add one with POST /api/providers.');
    return;
  }
  renderRows(tbody, list.map((c) => {
    const conn = names.get(c.connectionId) || {};
    const terminal = TERMINAL.has(c.testStatus);
    const status = conn.enabled === false ? 'disabled' : c.testStatus;
    const cooling = c.remainingMs > 0 || (c.modelLockouts || []).length > 0;
    const lastError = conn.lastError || c.errorCode;
    return el('tr', { testid: 'connection-' + c.connectionId, 'data-key': c.connectionId },
      el('th', { scope: 'row' }, ...connectionLabel(c.connectionId, names)),
      td(c.provider),
      td(badge(status), terminal ? el('span', { class: 'sub' }, 'terminal: fix its credentials, or reactivate once the cause is gone') : null),
      td(duration(c.remainingMs)),
      numTd(c.backoffLevel),
      td(c.lastErrorType || '—', lastError ? el('span', { class: 'error-text' }, lastError) : null),
      td(cooling && !terminal
        ? actionButton('cooldown-clear-' + c.connectionId, 'Clear', `Clear the cooldown of ${conn.name || c.connectionId}`, async () => {
          const r = await json('POST', '/api/resilience/cooldowns', { connectionIds: [c.connectionId] });
          return `Cleared ${r.cleared.length} cooldown(s) and ${r.lockoutsCleared} model lockout(s).`;
        })
        // issue 27: a terminal account comes back once its credit is refilled, without new credentials
        : terminal ? actionButton('connection-reactivate-' + c.connectionId, 'Reactivate',
          `Bring ${conn.name || c.connectionId} back to active`, async () => {
            const r = await json('POST', '/api/resilience/cooldowns', { connectionIds: [c.connectionId], reactivate: true });
            return `Reactivated ${r.reactivated.length} connection(s).`;
          })
          : null));
  }));
}

function renderLockouts(list, names) {
  const tbody = $('lockouts');
  if (list.length === 0) {
    emptyRow(tbody, 7, 'No model is locked out.');
    return;
  }
  renderRows(tbody, list.map((l) => el('tr', { testid: `lockout-${l.provider}-${l.model}`, 'data-key': `${l.provider} ${l.connectionId} ${l.model}` },
    el('th', { scope: 'row' }, l.provider),
    td(l.model, el('span', { class: 'sub' }, l.scope)),
    td(...connectionLabel(l.connectionId, names)),
    td(l.reason),
    td(duration(l.remainingMs)),
    numTd(l.failureCount),
    td(actionButton(`lockout-enable-${l.provider}-${l.connectionId}-${l.model}`, 'Re-enable',
      `Re-enable ${l.model} on ${l.provider}`, async () => {
        await json('DELETE', '/api/resilience/model-cooldowns', { provider: l.provider, connection: l.connectionId, model: l.model });
        return `Re-enabled ${l.provider}/${l.model}.`;
      })))));
}

function renderQueues(list) {
  const tbody = $('queues');
  if (list.length === 0) {
    emptyRow(tbody, 5, 'No connections.');
    return;
  }
  renderRows(tbody, list.map((q) => {
    const paused = [];
    if (q.pausedUntil) {
      paused.push('all until ' + time(q.pausedUntil));
    }
    for (const [model, until] of Object.entries(q.pausedModels || {})) {
      paused.push(`${model} until ${time(until)}`);
    }
    return el('tr', { 'data-key': q.connectionId },
      el('th', { scope: 'row' }, q.name || q.connectionId, el('span', { class: 'sub' }, q.provider)),
      td(q.protected ? 'yes' : 'no'),
      numTd(q.running),
      numTd(q.queued),
      td(paused.length ? paused.join(', ') : '—'));
  }));
}

function renderSessions(counts, sessions) {
  const c = counts || {};
  $('sessions').replaceChildren(
    el('div', {}, el('dt', {}, 'Session pins'), el('dd', {}, c.pins ?? sessions.pins.length)),
    el('div', {}, el('dt', {}, 'Active leases'), el('dd', {}, c.activeLeases ?? sessions.leases.length)),
    el('div', {}, el('dt', {}, 'Affinity TTL'), el('dd', {}, duration(sessions.sessionAffinityTtlMs))));
  const tbody = $('leases');
  if (sessions.leases.length === 0) {
    emptyRow(tbody, 4, 'No active leases.');
    return;
  }
  const now = Date.now();
  renderRows(tbody, sessions.leases.map((l) => el('tr', { 'data-key': l.id },
    el('th', { scope: 'row' }, l.id, el('span', { class: 'sub' }, `${l.state} · generation ${l.generation}`)),
    td(l.connectionId),
    td(l.model || '—'),
    td(duration(l.expiresAt - now)))));
}

function renderCombos(list) {
  const tbody = $('combos');
  if (list.length === 0) {
    emptyRow(tbody, 3, 'No combos.');
    return;
  }
  renderRows(tbody, list.map((c) => el('tr', { 'data-key': c.name },
    el('th', { scope: 'row' }, c.name),
    td(c.strategy),
    td(c.targets.map((t) => t.model + (t.connectionId ? ` @${t.connectionId.slice(0, 8)}` : '')).join(', ')))));
}

function renderPlugins(p) {
  const box = $('plugins');
  const items = (p.data || []).map((plugin) => {
    const rules = [
      ...(plugin.restatementRules || []).map((r) => `restate ${r.provider} ${(r.fromStatuses || []).join('/')} → ${r.toStatus} (${r.id})`),
      ...(plugin.errorRules || []).map((r) => `error ${r.provider} ${r.status ?? ''} → ${r.reason}, ${r.scope} (${r.id})`),
      ...(plugin.egressBucketing || []).map((h) => `egress bucketing ${h.name}: ${(h.providers || []).join(', ')}`),
    ];
    return el('div', { class: 'plugin' },
      el('h3', {}, plugin.name, ' ', el('span', { class: 'sub' }, `${plugin.source} · SPI ${plugin.spiVersion}`)),
      el('p', { class: 'sub' }, 'Providers: ' + ((plugin.providers || []).map((d) => d.id).join(', ') || 'none')
        + (plugin.executors && plugin.executors.length ? ' · executors: ' + plugin.executors.map((x) => x.name || x).join(', ') : '')
        + (plugin.comboStrategies && plugin.comboStrategies.length ? ' · combo strategies: ' + plugin.comboStrategies.join(', ') : '')),
      rules.length ? el('ul', {}, ...rules.map((r) => el('li', {}, r))) : el('p', { class: 'sub' }, 'No rules.'));
  });
  for (const f of p.failures || []) {
    // issue 27: the providers a refused plugin keeps claimed answer 503 until it is fixed
    const claimed = (f.providers || []).join(', ');
    items.push(el('div', { class: 'plugin' }, el('h3', {}, f.source, ' ', badge('refused')), el('p', { class: 'sub' }, f.reason),
      el('p', { class: 'sub' }, claimed ? `Providers unavailable (503 provider_unavailable; new connections refused): ${claimed}`
        + (f.providersGuessed ? ' (taken from its file and module names)' : '') : 'Claims no provider id.')));
  }
  if (items.length === 0) {
    items.push(el('p', { class: 'empty' }, 'No plugins loaded.'));
  }
  box.replaceChildren(...items);
}

// ---- the metrics chart -----------------------------------------------------------------------

function startMetrics() {
  $('chart-message').hidden = true;
  $('chart-box').hidden = false;
  scrape();
  metricsTimer = setInterval(scrape, METRICS_MS);
}

function metricsUnavailable(text) {
  clearInterval(metricsTimer);
  metricsTimer = null;
  $('chart-box').hidden = true;
  $('chart-legend').replaceChildren();
  $('chart-message').hidden = false;
  $('chart-message').textContent = text;
}

async function scrape() {
  if (document.hidden) {
    return;
  }
  try {
    const res = await api('GET', '/metrics');
    if (res.status === 404) {
      // a server without GET /metrics: the rest of the dashboard works without it
      metricsUnavailable('Metrics not available: this server does not serve /metrics.');
      return;
    }
    if (!res.ok) {
      metricsUnavailable(`Metrics not available: /metrics answered ${res.status}.`);
      return;
    }
    series.add(Date.now(), totalsByProvider(await res.text()));
    draw($('chart'), series);
    renderLegend();
  } catch (e) {
    handle(e);
  }
}

function renderLegend() {
  const latest = series.latest();
  $('chart-legend').replaceChildren(...series.providers.map((p, k) => {
    const r = latest.get(p) || { requests: 0, errors: 0 };
    return el('li', {}, el('span', { class: `swatch c${k % 8}` }),
      `${p}: ${formatRate(r.requests)} req/s, ${formatRate(r.errors)} errors/s (dashed)`);
  }));
  if (series.providers.length === 0) {
    $('chart-legend').replaceChildren(el('li', {}, 'No requests counted yet.'));
  }
}

// ---- start -----------------------------------------------------------------------------------

$('login-form').addEventListener('submit', login);
$('logout').addEventListener('click', () => showLogin('Logged out.'));
document.addEventListener('visibilitychange', () => {
  if (!document.hidden && refreshTimer) {
    refresh();
  }
});
window.addEventListener('resize', () => {
  if (metricsTimer) {
    draw($('chart'), series);
  }
});
if (sessionStorage.getItem(KEY_STORAGE)) {
  showDashboard();
} else {
  showLogin('');
}
