// Sluice operator console (issue 33): login, navigation by URL fragment, one page per fragment.
// Preact + htm (vendored, no build step); every server value is rendered as text.
import { html, render, useState, useEffect, api, AuthError, KEY_STORAGE, onAuthFailure, enterView } from './lib.js';
import { ConnectionsPage } from './page-connections.js';
import { KeysPage } from './page-keys.js';
import { CombosPage } from './page-combos.js';
import { UsagePage } from './page-usage.js';
import { LogsPage } from './page-logs.js';
import { SettingsPage } from './page-settings.js';
import { HealthPage } from './page-health.js';

const PAGES = [
  ['connections', 'Connections', ConnectionsPage],
  ['keys', 'Keys', KeysPage],
  ['combos', 'Combos', CombosPage],
  ['usage', 'Usage', UsagePage],
  ['logs', 'Logs', LogsPage],
  ['settings', 'Settings', SettingsPage],
  ['health', 'Health', HealthPage],
];
const DEFAULT_PAGE = 'health';

function pageOf(hash) {
  const name = String(hash || '').replace(/^#\/?/, '').split(/[/?]/)[0];
  return PAGES.some((p) => p[0] === name) ? name : DEFAULT_PAGE;
}

function Login({ message, onLogin }) {
  const [key, setKey] = useState('');
  const [text, setText] = useState(message || '');
  const [busy, setBusy] = useState(false);
  useEffect(() => setText(message || ''), [message]);
  const submit = async (e) => {
    e.preventDefault();
    if (!key.trim()) {
      setText('Enter the admin key.');
      return;
    }
    sessionStorage.setItem(KEY_STORAGE, key.trim());
    setBusy(true);
    try {
      await api('GET', '/api/monitoring/health');
      setKey('');
      onLogin();
    } catch (err) {
      sessionStorage.removeItem(KEY_STORAGE);
      setKey('');   // a refused key is not left in the field to be sent again
      setText(err instanceof AuthError ? err.message : 'Cannot reach Sluice: ' + err.message);
    } finally {
      setBusy(false);
    }
  };
  return html`<section id="login-view" class="login" aria-labelledby="login-title">
    <h2 id="login-title">Log in</h2>
    <form id="login-form" novalidate onSubmit=${submit}>
      <label for="admin-key">Admin key</label>
      <input id="admin-key" type="password" autocomplete="off" spellcheck="false" required autofocus
        data-testid="admin-key" aria-describedby="login-help login-message" value=${key} onInput=${(e) => setKey(e.target.value)} />
      <button type="submit" data-testid="login" disabled=${busy}>Log in</button>
      <p id="login-help" class="help">The key is kept in this tab's session storage only (never in the URL or local
        storage), and sent as <code>Authorization: Bearer</code> with every call to the admin API.</p>
      <p id="login-message" class="message" role="alert">${text}</p>
    </form>
  </section>`;
}

function App() {
  const [loggedIn, setLoggedIn] = useState(!!sessionStorage.getItem(KEY_STORAGE));
  const [message, setMessage] = useState('');
  const [page, setPage] = useState(pageOf(location.hash));
  useEffect(() => {
    const f = () => setPage(pageOf(location.hash));
    window.addEventListener('hashchange', f);
    return () => window.removeEventListener('hashchange', f);
  }, []);
  useEffect(() => {
    onAuthFailure((e) => {
      sessionStorage.removeItem(KEY_STORAGE);
      setMessage(e.message);
      setLoggedIn(false);
    });
  }, []);
  useEffect(() => {
    const title = PAGES.find((p) => p[0] === page)[1];
    document.title = `${title} · Sluice`;
  }, [page]);
  const logout = () => {
    sessionStorage.removeItem(KEY_STORAGE);
    setMessage('Logged out.');
    setLoggedIn(false);
  };
  const Page = PAGES.find((p) => p[0] === page)[2];
  enterView(loggedIn ? page : 'login');   // each view has its own request budget (lib.js), set before its effects run
  return html`
    <header class="top">
      <h1>Sluice</h1>
      ${loggedIn ? html`<nav class="nav" aria-label="Pages">
        ${PAGES.map(([id, label]) => html`<a href=${'#/' + id} data-testid=${'nav-' + id}
          aria-current=${id === page ? 'page' : undefined}>${label}</a>`)}
      </nav>
      <button type="button" id="logout" class="secondary" onClick=${logout}>Log out</button>` : null}
    </header>
    <main>
      ${loggedIn
        ? html`<div id="dashboard" class="page"><${Page} key=${page} /></div>`
        : html`<${Login} message=${message} onLogin=${() => { setMessage(''); setLoggedIn(true); }} />`}
    </main>`;
}

render(html`<${App} />`, document.getElementById('app'));
