// Keys: create (the secret is shown once), edit name, scopes, allowed connections and models, revoke.
import { html, useState, api, act, usePoll, Time, ErrorText, Table, ConfirmButton } from './lib.js';

export function KeysPage() {
  const [status, setStatus] = useState('');
  const [editing, setEditing] = useState(null);   // null, 'new' or a key
  const [secret, setSecret] = useState(null);
  const [data, error, reload] = usePoll(async () => {
    const [keys, providers] = await Promise.all([api('GET', '/api/keys'), api('GET', '/api/providers')]);
    return { keys: keys.data, connections: providers.data };
  }, [], { every: 10000 });
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
    <div class="toolbar"><button type="button" data-testid="key-add" onClick=${() => { setEditing('new'); setSecret(null); }}>Create key</button></div>
    ${editing ? html`<${KeyForm} key=${editing === 'new' ? 'new' : editing.id} editing=${editing === 'new' ? null : editing}
      connections=${data ? data.connections : []}
      onDone=${(saved) => { const wasNew = editing === 'new'; setEditing(null);
        if (saved && wasNew) { setSecret(saved); setStatus(''); } else if (saved) { setStatus(`${saved.name} saved: its next request uses the change.`); }
        reload(); }} />` : null}
    ${secret ? html`<${Secret} created=${secret} onClose=${() => setSecret(null)} />` : null}
    <${Table} testid="keys-table" rows=${data ? data.keys : []} rowKey=${(k) => k.id} empty=${data ? 'No keys yet: press "Create key".' : 'Loading…'}
      columns=${[{ label: 'Name', sort: (k) => k.name }, { label: 'Key' }, { label: 'Scopes' }, { label: 'Allowed connections' },
        { label: 'Allowed models' }, { label: 'Created', sort: (k) => k.createdAt }, { label: 'Actions' }]}
      row=${(k) => html`<tr data-testid="key-row" data-key-id=${k.id}>
        <th scope="row">${k.name}<span class="sub">${k.id}</span></th><td><code>${k.keyPreview}</code></td>
        <td>${(k.scopes || []).join(', ') || '—'}</td>
        <td>${(k.allowedConnections || []).length ? k.allowedConnections.map((id) => html`<span class="sub">${names.get(id) || id}</span>`) : 'all'}</td>
        <td data-testid="key-models">${(k.allowedModels || []).length ? k.allowedModels.map((m) => html`<span class="sub"><code>${m}</code></span>`) : 'all'}</td>
        <td><${Time} ms=${k.createdAt} /></td>
        <td class="actions"><button type="button" class="secondary" data-testid="key-edit" aria-label=${'Edit ' + k.name}
          onClick=${() => { setEditing(k); setSecret(null); }}>Edit</button>
          <${ConfirmButton} testid="key-revoke" label="Revoke" confirmLabel="Revoke for good" name=${'Revoke ' + k.name} onConfirm=${() => revoke(k)} /></td>
      </tr>`} />`;
}

/** Model entries as the operator types them: one per line or separated by commas. */
function modelList(text) {
  return [...new Set(String(text).split(/[\n,]+/).map((m) => m.trim()).filter(Boolean))];
}

function KeyForm({ editing, connections, onDone }) {
  const [name, setName] = useState(editing ? editing.name : '');
  const [scopes, setScopes] = useState(editing ? editing.scopes || [] : []);
  const [allowed, setAllowed] = useState(editing ? editing.allowedConnections || [] : []);
  const [models, setModels] = useState(editing ? (editing.allowedModels || []).join('\n') : '');
  const [error, setError] = useState(null);
  const toggle = (list, set, v) => set(list.includes(v) ? list.filter((x) => x !== v) : [...list, v]);
  const submit = async (e) => {
    e.preventDefault();
    const body = { name, scopes, allowedConnections: allowed, allowedModels: modelList(models) };
    const r = await act(() => editing ? api('PATCH', `/api/keys/${encodeURIComponent(editing.id)}`, body) : api('POST', '/api/keys', body));
    if (r.ok) {
      onDone(r.value);
    } else {
      setError(r.error);
    }
  };
  const at = (param) => error && error.param === param ? html`<span class="field-error" role="alert" data-testid=${'key-error-' + param}>${error.message}</span>` : null;
  return html`<form class="panel form" onSubmit=${submit} novalidate aria-labelledby="key-form-title">
    <h3 id="key-form-title">${editing ? 'Edit ' + editing.name : 'Create a key'}</h3>
    <label>Name <input data-testid="key-name" value=${name} onInput=${(e) => setName(e.target.value)} maxlength="256" required />${at('name')}</label>
    <fieldset><legend>Scopes</legend>
      ${[['admin', 'may use the admin API'], ['lease:exclusive', 'may hold exclusive session leases (needs allowed connections)']].map(([s, why]) => html`
        <label class="check"><input type="checkbox" checked=${scopes.includes(s)} onChange=${() => toggle(scopes, setScopes, s)} /> ${s} <span class="help">${why}</span></label>`)}
      ${at('scopes')}
    </fieldset>
    <fieldset class="wide"><legend>Allowed connections (none ticked: all)</legend>
      ${connections.length === 0 ? html`<p class="help">No connections yet.</p>` : connections.map((c) => html`
        <label class="check"><input type="checkbox" data-testid="key-connection" value=${c.id} checked=${allowed.includes(c.id)}
          onChange=${() => toggle(allowed, setAllowed, c.id)} /> ${c.name} <span class="help">${c.provider}</span></label>`)}
      ${at('allowedConnections')}
    </fieldset>
    <label class="wide">Allowed models (empty: all)
      <textarea data-testid="key-allowed-models" rows="3" value=${models} onInput=${(e) => setModels(e.target.value)} spellcheck="false"
        aria-describedby="key-models-help" aria-invalid=${error && error.param === 'allowedModels' ? 'true' : undefined}
        placeholder=${'openai/gpt-4o-mini\nglm/*\nmy-combo'}></textarea>
      <span class="help" id="key-models-help">One per line: a model as clients name it (provider/model, an alias or a combo), or a prefix ending in *.
        Any other model is refused with 403 model_not_allowed, and GET /v1/models lists only these.</span>
      ${at('allowedModels')}</label>
    ${error && !['name', 'scopes', 'allowedConnections', 'allowedModels'].includes(error.param) ? html`<p class="field-error wide" role="alert">${error.message}</p>` : null}
    <div class="buttons wide"><button type="submit" data-testid="key-save">${editing ? 'Save' : 'Create'}</button>
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
