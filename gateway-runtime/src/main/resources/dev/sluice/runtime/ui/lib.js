// Shared pieces of the console: the admin API client, polling, tables, times. Everything is
// rendered through htm/Preact, which sets server values as text: no markup is ever built from them.
import { h, render } from './preact.js';
import { useState, useEffect, useRef } from './preact-hooks.js';
import htm from './htm.js';

export const html = htm.bind(h);
export { render, useState, useEffect, useRef };

export const KEY_STORAGE = 'sluice.adminKey';   // sessionStorage: gone when the tab closes, never a cookie
export const TERMINAL = new Set(['banned', 'expired', 'credits_exhausted']);

export class AuthError extends Error {}

/** A non-2xx answer of the admin API: its status, error code, message and the field it names. */
export class ApiError extends Error {
  constructor(status, code, message, param) {
    super(message);
    this.status = status;
    this.code = code;
    this.param = param;
  }
}

let authFailed = () => {};
export function onAuthFailure(f) {
  authFailed = f;
}

// ---- the request budget (issue 33) ------------------------------------------------------------
// A view issues at most one request per GAP_MS, strictly: every read (GET) waits for its slot, two
// reads never start less than GAP_MS apart, and none starts while the tab is hidden. An operator's
// action (POST, PATCH, DELETE…) goes at once — a click is never delayed — and takes the slot, so the
// read that refreshes the view after it waits its turn. A new view gets a new budget; reads still
// queued for the old one are dropped.
export const GAP_MS = 2000;

export class Dropped extends Error {}

let budget = newBudget();

function newBudget() {
  return { next: 0, chain: Promise.resolve(), view: null };
}

/** Starts the budget of a view (the app calls it when the page changes). */
export function enterView(view) {
  if (budget.view !== view) {
    const last = budget.next;
    budget = newBudget();
    budget.view = view;
    budget.next = last;   // the previous view's last request still counts for the first of this one
  }
}

const visible = () => new Promise((resolve) => {
  if (!document.hidden) {
    resolve();
    return;
  }
  const f = () => {
    if (!document.hidden) {
      document.removeEventListener('visibilitychange', f);
      resolve();
    }
  };
  document.addEventListener('visibilitychange', f);
});

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs a read when the view's budget allows it: GAP_MS after the previous request, the tab visible. */
function inTurn(fn) {
  const b = budget;
  const turn = b.chain.then(async () => {
    for (;;) {
      await visible();
      const wait = b.next - performance.now();
      if (wait <= 0 && !document.hidden) {
        break;
      }
      await pause(Math.max(wait, 0));
    }
    if (budget !== b) {
      throw new Dropped('The view changed.');
    }
    b.next = performance.now() + GAP_MS;
    return fn();
  });
  b.chain = turn.catch(() => {});
  return turn;
}

export async function request(method, path, body) {
  if (method === 'GET') {
    return inTurn(() => send(method, path, body));
  }
  budget.next = performance.now() + GAP_MS;
  return send(method, path, body);
}

async function send(method, path, body) {
  const key = sessionStorage.getItem(KEY_STORAGE);
  if (!key) {
    throw new AuthError('Log in with the admin key.');
  }
  const headers = { Authorization: 'Bearer ' + key };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
  }
  const res = await fetch(path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store', credentials: 'omit',
  });
  if (res.status === 401 || res.status === 403) {
    const e = await errorOf(res);
    throw new AuthError(`The server refused the key (${res.status}${e.message ? ': ' + e.message : ''}).`);
  }
  return res;
}

async function errorOf(res) {
  try {
    const body = await res.json();
    return (body && body.error) || {};
  } catch {
    return {};
  }
}

/** Calls the admin API and answers its JSON; a refusal is an ApiError naming the field. */
export async function api(method, path, body) {
  const res = await request(method, path, body);
  if (!res.ok) {
    const e = await errorOf(res);
    throw new ApiError(res.status, e.code, `${method} ${path} answered ${res.status}${e.message ? ': ' + e.message : ''}`, e.param);
  }
  return res.json();
}

/** Runs an action of the operator; an AuthError logs out, anything else is returned as text. */
export async function act(fn) {
  try {
    return { ok: true, value: await fn() };
  } catch (e) {
    if (e instanceof AuthError) {
      authFailed(e);
    }
    return { ok: false, error: e, dropped: e instanceof Dropped };
  }
}

/**
 * Loads a view's data now and then `every` ms after the previous load ended; each read of the load
 * waits for the view's request budget (one request per 2 s, nothing while the tab is hidden), so a
 * load of n reads takes about 2·(n−1) s. Answers [data, error, reload]; reload (after an action)
 * queues a load at once, which the budget starts in its turn.
 */
export function usePoll(load, deps, { every = 5000 } = {}) {
  const [state, setState] = useState({ data: null, error: null });
  const handle = useRef({ reload: () => {} });
  useEffect(() => {
    let alive = true;
    let timer = null;
    let running = false;
    let again = false;
    const run = async () => {
      clearTimeout(timer);
      if (!alive) {
        return;
      }
      if (running) {
        again = true;
        return;
      }
      running = true;
      try {
        const data = await load();
        if (alive) {
          setState({ data, error: null });
        }
      } catch (e) {
        if (e instanceof AuthError) {
          authFailed(e);
          return;
        }
        if (alive && !(e instanceof Dropped)) {
          setState((s) => ({ data: s.data, error: e }));
        }
      } finally {
        running = false;
      }
      if (again) {
        again = false;
        run();
      } else if (alive) {
        timer = setTimeout(run, every);   // a hidden tab's reads wait in the budget until it is shown
      }
    };
    handle.current.reload = run;
    run();
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, deps);
  return [state.data, state.error, () => handle.current.reload()];
}

// ---- formatting ------------------------------------------------------------------------------

export function duration(ms) {
  if (!ms || ms <= 0) {
    return '—';
  }
  let s = Math.ceil(ms / 1000);
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const hr = Math.floor(s / 3600);
  s -= hr * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  return d ? `${d}d ${hr}h` : hr ? `${hr}h ${m}m` : m ? `${m}m ${s}s` : `${s}s`;
}

/** A time in the browser's zone; the exact instant (UTC, ISO-8601) on hover. */
export function Time({ ms, timeOnly }) {
  if (!ms) {
    return html`<span>—</span>`;
  }
  const d = new Date(ms);
  return html`<time datetime=${d.toISOString()} title=${d.toISOString()}>${timeOnly ? d.toLocaleTimeString() : d.toLocaleString()}</time>`;
}

export function Badge({ state }) {
  const s = String(state || 'unknown');
  return html`<span class=${'badge state-' + s.toLowerCase().replace(/[^a-z0-9_]/g, '_')}>${s}</span>`;
}

export function ErrorText({ error }) {
  return error ? html`<p class="message" role="alert">${error.message || String(error)}</p>` : null;
}

export function number(v, digits = 0) {
  return v === null || v === undefined ? '—' : Number(v).toLocaleString(undefined, { maximumFractionDigits: digits });
}

// ---- tables ----------------------------------------------------------------------------------

/**
 * A table that sorts by any column with a sort value (click or Enter on the header's button) and
 * pages long lists. columns: [{label, sort?: row → value, num?}]; row: row → <tr>.
 */
export function Table({ columns, rows, row, rowKey, pageSize = 25, empty, caption, testid }) {
  const [sort, setSort] = useState({ by: -1, desc: false });
  const [page, setPage] = useState(0);
  const list = [...(rows || [])];
  if (sort.by >= 0 && columns[sort.by].sort) {
    const f = columns[sort.by].sort;
    list.sort((a, b) => {
      const x = f(a);
      const y = f(b);
      const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x ?? '').localeCompare(String(y ?? ''));
      return sort.desc ? -c : c;
    });
  }
  const pages = Math.max(1, Math.ceil(list.length / pageSize));
  const current = Math.min(page, pages - 1);
  const shown = list.slice(current * pageSize, (current + 1) * pageSize);
  const header = (c, i) => {
    const label = c.sort
      ? html`<button type="button" class="sort" onClick=${() => setSort({ by: i, desc: sort.by === i ? !sort.desc : false })}>
          ${c.label}${sort.by === i ? (sort.desc ? ' ▼' : ' ▲') : ''}</button>`
      : c.label;
    return html`<th scope="col" class=${c.num ? 'num' : ''}
      aria-sort=${sort.by === i ? (sort.desc ? 'descending' : 'ascending') : undefined}>${label}</th>`;
  };
  return html`<div class="table-wrap">
    <table data-testid=${testid}>
      ${caption ? html`<caption>${caption}</caption>` : null}
      <thead><tr>${columns.map(header)}</tr></thead>
      <tbody>
        ${shown.length === 0
          ? html`<tr><td class="empty" colspan=${columns.length}>${empty || 'Nothing here yet.'}</td></tr>`
          : shown.map((r) => { const tr = row(r); if (tr && rowKey) { tr.key = rowKey(r); } return tr; })}
      </tbody>
    </table>
    ${pages > 1 ? html`<nav class="pager" aria-label="Pages">
      <button type="button" disabled=${current === 0} onClick=${() => setPage(current - 1)}>Previous</button>
      <span>Page ${current + 1} of ${pages} (${list.length} rows)</span>
      <button type="button" disabled=${current >= pages - 1} onClick=${() => setPage(current + 1)}>Next</button>
    </nav>` : null}
  </div>`;
}

/** A button that asks again before acting: the first press shows Confirm and Cancel. */
export function ConfirmButton({ testid, label, confirmLabel, onConfirm, name }) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return html`<button type="button" class="danger" data-testid=${testid} aria-label=${name} onClick=${() => setAsking(true)}>${label}</button>`;
  }
  return html`<span class="confirm">
    <button type="button" class="danger" data-testid=${testid + '-confirm'} onClick=${() => { setAsking(false); onConfirm(); }}>${confirmLabel || 'Confirm'}</button>
    <button type="button" class="secondary" onClick=${() => setAsking(false)}>Cancel</button>
  </span>`;
}
