// Keys: create (the secret is shown once), scopes and allowed connections, revoke.
import { html, useState, api, act, usePoll, Time, ErrorText, Table, ConfirmButton } from './lib.js';

export function KeysPage() {
  const [status, setStatus] = useState('');
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState(null);
  const [data, error, reload] = usePoll(async () => {
    const [keys, providers] = await Promise.all([api('GET', '/api/keys'), api('GET', '/api/providers')]);
    return { keys: keys.data, connections: providers.data };
  }, [], { every: 10000, requests: 2 });
  const names = new Map((data ? data.connections : []).map((c) => [c.id, c.name]));
  const revoke = async (k) => {
    const r = await act(() => api('DELETE', `/api/keys/${encodeURIComponent(k.id)}`));
    setStatus(r.ok ? `${k.name} revoked: requests with it are refused from now on.` : r.error.message);
    reload();
  };
  return html`
    <h2>Keys</h2>
    <p class="help">Clients (SDKs, agents) call <code>/v1/…</code> with one of these keys. The secret is shown once, when the key is created.</p>
    <p class="action-status" role="status" aria-live="polite">${status}</p>
    <${ErrorText} error=${error} />
    <div class="toolbar"><button type="button" data-testid="key-add" onClick=${() => { setAdding(true); setSecret(null); }}>Create key</button></div>
    ${adding ? html`<${KeyForm} connections=${data ? data.connections : []}
      onDone=${(created) => { setAdding(false); if (created) { setSecret(created); setStatus(''); } reload(); }} />` : null}
    ${secret ? html`<${Secret} created=${secret} onClose=${() => setSecret(null)} />` : null}
    <${Table} testid="keys-table" rows=${data ? data.keys : []} rowKey=${(k) => k.id} empty=${data ? 'No keys yet: press "Create key".' : 'Loading…'}
      columns=${[{ label: 'Name', sort: (k) => k.name }, { label: 'Key' }, { label: 'Scopes' }, { label: 'Allowed connections' },
        { label: 'Created', sort: (k) => k.createdAt }, { label: 'Actions' }]}
      row=${(k) => html`<tr data-testid="key-row" data-key-id=${k.id}>
        <th scope="row">${k.name}<span class="sub">${k.id}</span></th><td><code>${k.keyPreview}</code></td>
        <td>${(k.scopes || []).join(', ') || '—'}</td>
        <td>${(k.allowedConnections || []).length ? k.allowedConnections.map((id) => html`<span class="sub">${names.get(id) || id}</span>`) : 'all'}</td>
        <td><${Time} ms=${k.createdAt} /></td>
        <td><${ConfirmButton} testid="key-revoke" label="Revoke" confirmLabel="Revoke for good" name=${'Revoke ' + k.name} onConfirm=${() => revoke(k)} /></td>
      </tr>`} />`;
}

function KeyForm({ connections, onDone }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState([]);
  const [allowed, setAllowed] = useState([]);
  const [error, setError] = useState(null);
  const toggle = (list, set, v) => set(list.includes(v) ? list.filter((x) => x !== v) : [...list, v]);
  const submit = async (e) => {
    e.preventDefault();
    const r = await act(() => api('POST', '/api/keys', { name, scopes, allowedConnections: allowed }));
    if (r.ok) {
      onDone(r.value);
    } else {
      setError(r.error);
    }
  };
  return html`<form class="panel form" onSubmit=${submit} novalidate aria-labelledby="key-form-title">
    <h3 id="key-form-title">Create a key</h3>
    <label>Name <input data-testid="key-name" value=${name} onInput=${(e) => setName(e.target.value)} maxlength="256" required />
      ${error && error.param === 'name' ? html`<span class="field-error" role="alert">${error.message}</span>` : null}</label>
    <fieldset><legend>Scopes</legend>
      ${[['admin', 'may use the admin API'], ['lease:exclusive', 'may hold exclusive session leases (needs allowed connections)']].map(([s, why]) => html`
        <label class="check"><input type="checkbox" checked=${scopes.includes(s)} onChange=${() => toggle(scopes, setScopes, s)} /> ${s} <span class="help">${why}</span></label>`)}
    </fieldset>
    <fieldset class="wide"><legend>Allowed connections (none ticked: all)</legend>
      ${connections.length === 0 ? html`<p class="help">No connections yet.</p>` : connections.map((c) => html`
        <label class="check"><input type="checkbox" checked=${allowed.includes(c.id)} onChange=${() => toggle(allowed, setAllowed, c.id)} /> ${c.name} <span class="help">${c.provider}</span></label>`)}
    </fieldset>
    ${error && error.param !== 'name' ? html`<p class="field-error wide" role="alert">${error.message}</p>` : null}
    <div class="buttons wide"><button type="submit" data-testid="key-save">Create</button>
      <button type="button" class="secondary" onClick=${() => onDone(null)}>Cancel</button></div>
  </form>`;
}

function Secret({ created, onClose }) {
  const [copied, setCopied] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied('Copied.');
    } catch {
      setCopied('The browser refused the clipboard: select the key and copy it.');
    }
  };
  return html`<section class="panel secret" aria-labelledby="secret-title">
    <h3 id="secret-title">The secret of ${created.name}</h3>
    <p>Shown only now: Sluice keeps just its hash. Give it to the client, then close this box.</p>
    <p><input readonly class="mono" data-testid="key-secret" value=${created.key} aria-label="The new key's secret" onFocus=${(e) => e.target.select()} />
      <button type="button" data-testid="key-copy" onClick=${copy}>Copy</button> <span role="status">${copied}</span></p>
    <button type="button" class="secondary" onClick=${onClose}>I have saved it</button>
  </section>`;
}
