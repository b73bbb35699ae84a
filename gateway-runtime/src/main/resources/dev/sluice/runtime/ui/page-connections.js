// Connections: list with live state, add / edit / enable / test / delete, and "Add account" for
// providers with a subscription login. Provider-specific fields come from the providers' descriptors
// (GET /api/plugins: connectionFields, plugins' options included), never from a list in the page.
import { html, useState, useEffect, api, act, usePoll, duration, Time, Badge, ErrorText, Table, ConfirmButton, TERMINAL } from './lib.js';
import { AddAccount } from './oauth.js';

const EMPTY = { provider: '', name: '', apiKey: '', baseUrl: '', priority: '', maxConcurrent: '', authType: '' };

export function ConnectionsPage() {
  const [status, setStatus] = useState('');
  const [editing, setEditing] = useState(null);   // null, 'new' or a connection
  const [descriptors, setDescriptors] = useState([]);
  const [customFields, setCustomFields] = useState([]);
  const [logins, setLogins] = useState([]);
  const [tests, setTests] = useState({});
  const [data, error, reload] = usePoll(async () => {
    const [providers, cooldowns] = await Promise.all([api('GET', '/api/providers'), api('GET', '/api/resilience/cooldowns')]);
    return { list: providers.data, cooling: new Map(cooldowns.data.map((c) => [c.connectionId, c])) };
  }, [], { every: 5000 });
  useEffect(() => {
    act(() => api('GET', '/api/plugins')).then((r) => {
      if (r.ok) {
        const all = [...(r.value.builtinProviders || []), ...(r.value.data || []).flatMap((p) => p.providers || [])];
        setDescriptors(all.sort((a, b) => a.id.localeCompare(b.id)));
        setCustomFields(r.value.customProviderConnectionFields || []);
      }
    });
    act(() => api('GET', '/api/oauth/providers')).then((r) => r.ok && setLogins(r.value.data));
  }, []);
  const run = async (fn) => {
    const r = await act(fn);
    setStatus(r.ok ? r.value : r.error.message);
    reload();
    return r;
  };
  const test = async (c) => {
    const r = await act(() => api('POST', `/api/providers/${encodeURIComponent(c.id)}/test`));
    if (!r.ok) {
      setTests((t) => ({ ...t, [c.id]: r.error.message }));
      return;
    }
    if (!r.value.modelDiscoveryStarted) {
      setTests((t) => ({ ...t, [c.id]: 'Not tested: the connection is disabled, its provider does not list models, or discovery is off.' }));
      return;
    }
    setTests((t) => ({ ...t, [c.id]: 'Asking the upstream for its models…' }));
    // discovery runs in the background: read its outcome once after 2 s
    setTimeout(async () => {
      const d = await act(() => api('GET', `/api/providers/${encodeURIComponent(c.id)}`));
      const m = d.ok ? d.value.modelDiscovery : null;
      setTests((t) => ({ ...t, [c.id]: !d.ok ? d.error.message : !m ? 'No answer yet: press Test again in a moment.'
        : m.error ? 'Failed: ' + m.error : `OK: the upstream listed ${m.count} model(s).` }));
    }, 2000);
  };
  const list = data ? data.list : [];
  return html`
    <h2>Connections</h2>
    <p class="action-status" role="status" aria-live="polite" data-testid="connections-status">${status}</p>
    <${ErrorText} error=${error} />
    <div class="toolbar">
      <button type="button" data-testid="connection-add" onClick=${() => setEditing('new')}>Add connection</button>
    </div>
    ${editing ? html`<${ConnectionForm} key=${editing === 'new' ? 'new' : editing.id} connection=${editing === 'new' ? null : editing}
      descriptors=${descriptors} customFields=${customFields} onDone=${(msg) => { setEditing(null); if (msg) { setStatus(msg); } reload(); }} />` : null}
    <${Table} testid="connections-table" rows=${list} rowKey=${(c) => c.id}
      empty=${data ? 'No connections yet: press "Add connection", or use Add account below for a subscription login.' : 'Loading…'}
      columns=${[
        { label: 'Connection', sort: (c) => c.name },
        { label: 'Provider', sort: (c) => c.provider },
        { label: 'State', sort: (c) => stateOf(c, data && data.cooling.get(c.id)).text },
        { label: 'Priority', num: true, sort: (c) => c.priority },
        { label: 'Caps' },
        { label: 'Last error' },
        { label: 'Actions' },
      ]}
      row=${(c) => {
        const state = stateOf(c, data.cooling.get(c.id));
        return html`<tr data-testid="connection-row" data-connection-id=${c.id}>
          <th scope="row">${c.name}<span class="sub">${c.id}</span>${c.apiKey ? html`<span class="sub">key ${c.apiKey}</span>` : null}</th>
          <td>${c.provider}<span class="sub">${c.baseUrl || 'default base URL'}</span></td>
          <td data-testid="connection-state"><${Badge} state=${state.badge} /> ${state.text}
            ${c.oauth && c.oauth.expiresAt ? html`<span class="sub">token expires <${Time} ms=${c.oauth.expiresAt} /></span>` : null}</td>
          <td class="num">${c.priority}</td>
          <td>${caps(c)}</td>
          <td>${c.lastErrorType || '—'}${c.lastError ? html`<span class="error-text">${c.lastError}</span>` : null}</td>
          <td class="actions">
            <button type="button" class="secondary" data-testid="connection-edit" aria-label=${'Edit ' + c.name} onClick=${() => setEditing(c)}>Edit</button>
            <button type="button" class="secondary" data-testid="connection-toggle" aria-pressed=${c.enabled ? 'true' : 'false'}
              aria-label=${(c.enabled ? 'Disable ' : 'Enable ') + c.name}
              onClick=${() => run(async () => { await api('PATCH', `/api/providers/${encodeURIComponent(c.id)}`, { enabled: !c.enabled });
                return `${c.name} ${c.enabled ? 'disabled' : 'enabled'}.`; })}>${c.enabled ? 'Disable' : 'Enable'}</button>
            <button type="button" class="secondary" data-testid="connection-test" aria-label=${'Test ' + c.name} onClick=${() => test(c)}>Test</button>
            <${ConfirmButton} testid="connection-delete" label="Delete" confirmLabel="Delete for good" name=${'Delete ' + c.name}
              onConfirm=${() => run(async () => { await api('DELETE', `/api/providers/${encodeURIComponent(c.id)}`); return `${c.name} deleted.`; })} />
            ${tests[c.id] ? html`<span class="sub" data-testid="connection-test-result" role="status">${tests[c.id]}</span>` : null}
          </td></tr>`;
      }} />
    <${AddAccount} logins=${logins} onConnected=${reload} />`;
}

/** The connection's admission caps in words: concurrency, pacing, per-model limits (QC-1, QC-2, RQ-10). */
function caps(c) {
  const o = c.rateLimitOverrides || {};
  const parts = [];
  if (c.maxConcurrent || o.maxConcurrent) {
    parts.push(`≤ ${Math.min(...[c.maxConcurrent, o.maxConcurrent].filter((x) => x))} at once`);
  }
  if (o.requestsPerMinute) {
    parts.push(`${o.requestsPerMinute}/min`);
  }
  if (o.minTimeBetweenRequestsMs) {
    parts.push(`≥ ${o.minTimeBetweenRequestsMs} ms apart`);
  }
  for (const [m, n] of Object.entries(o.modelConcurrency || {})) {
    parts.push(`${m} ≤ ${n}`);
  }
  return parts.length ? parts.join(', ') : '—';
}

function stateOf(c, cooling) {
  if (!c.enabled) {
    return { badge: 'disabled', text: '' };
  }
  if (TERMINAL.has(c.testStatus)) {
    return { badge: c.testStatus, text: 'terminal' + (c.lastErrorType ? ': ' + c.lastErrorType : '') };
  }
  if (cooling && cooling.remainingMs > 0) {
    return { badge: 'cooling', text: duration(cooling.remainingMs) + ' left' };
  }
  const locked = cooling ? (cooling.modelLockouts || []).length : 0;
  return { badge: c.testStatus || 'active', text: locked ? `${locked} model(s) locked out` : '' };
}

/** A providerSpecificData value as its form input shows it. */
function fieldText(field, v) {
  if (v === undefined || v === null) {
    return '';
  }
  if (field.type === 'boolean') {
    return v === true ? 'true' : v === false ? 'false' : String(v);
  }
  if (field.type === 'string_list') {
    return Array.isArray(v) ? v.join(', ') : String(v);
  }
  return String(v);
}

/** A form input back to its providerSpecificData value: undefined = unset; {error} when it cannot be one. */
function fieldValue(field, text) {
  const t = String(text).trim();
  if (t === '') {
    return { value: undefined };
  }
  switch (field.type) {
    case 'boolean':
      return { value: t === 'true' };
    case 'string_list':
      return { value: t.split(/[\s,]+/).filter(Boolean) };
    case 'integer':
      return /^-?\d+$/.test(t) ? { value: Number(t) } : { error: 'Write a whole number.' };
    default:
      return { value: t };
  }
}

function ConnectionForm({ connection, descriptors, customFields, onDone }) {
  const psd = connection && connection.providerSpecificData ? connection.providerSpecificData : {};
  const [f, setF] = useState(connection ? {
    ...EMPTY, provider: connection.provider, name: connection.name, baseUrl: connection.baseUrl || '', priority: String(connection.priority),
    maxConcurrent: connection.maxConcurrent ? String(connection.maxConcurrent) : '', authType: connection.authType,
  } : EMPTY);
  const [extra, setExtra] = useState({});   // field name → its input's text, once edited
  const [errors, setErrors] = useState({});
  const [busy, setBusy] = useState(false);
  const d = descriptors.find((x) => x.id === f.provider.trim());
  const fields = d ? d.connectionFields || [] : f.provider.trim() ? customFields : [];
  const declared = new Set(fields.map((x) => x.name));
  // what the descriptor does not declare (a login's account data, an older option) stays as JSON; until
  // the operator edits it, it follows the declared fields (the descriptors may arrive after the form opened)
  const [otherEdited, setOther] = useState(null);
  const rest = Object.fromEntries(Object.entries(psd).filter(([k]) => !declared.has(k)));
  const other = otherEdited !== null ? otherEdited : Object.keys(rest).length ? JSON.stringify(rest) : '';
  const authType = f.authType || (d ? d.defaultClass : 'apikey');
  const set = (k) => (e) => setF({ ...f, [k]: e.target.value });
  const textOf = (x) => (x.name in extra ? extra[x.name] : fieldText(x, psd[x.name]));
  const submit = async (e) => {
    e.preventDefault();
    const body = { name: f.name.trim() || null, baseUrl: f.baseUrl.trim() || null, priority: f.priority.trim() ? Number(f.priority) : null,
      maxConcurrent: f.maxConcurrent.trim() ? Number(f.maxConcurrent) : null };
    let data = {};
    if (other.trim()) {
      try {
        data = JSON.parse(other);
      } catch {
        setErrors({ providerSpecificData: 'Not JSON: write an object such as {"key": "value"}.' });
        return;
      }
      if (!data || typeof data !== 'object' || Array.isArray(data)) {
        setErrors({ providerSpecificData: 'Write a JSON object.' });
        return;
      }
    }
    for (const x of fields) {
      const v = fieldValue(x, textOf(x));
      if (v.error) {
        setErrors({ ['psd.' + x.name]: v.error });
        return;
      }
      if (v.value === undefined) {
        delete data[x.name];
      } else {
        data[x.name] = v.value;
      }
    }
    body.providerSpecificData = Object.keys(data).length ? data : null;
    if (f.apiKey) {
      body.apiKey = f.apiKey;   // empty: the stored key stays (it is never shown again)
    }
    if (!connection) {
      body.provider = f.provider.trim();
      body.authType = authType;
    }
    setBusy(true);
    const r = await act(() => connection ? api('PATCH', `/api/providers/${encodeURIComponent(connection.id)}`, body) : api('POST', '/api/providers', body));
    setBusy(false);
    if (r.ok) {
      onDone(`${r.value.name} saved.`);
    } else {
      setErrors({ [r.error.param || '_']: r.error.message });
    }
  };
  const err = (k) => errors[k] ? html`<span class="field-error" role="alert" data-testid=${'connection-error-' + k}>${errors[k]}</span>` : null;
  const input = (x) => {
    const id = 'connection-field-' + x.name;
    const onInput = (e) => setExtra({ ...extra, [x.name]: e.target.value });
    const control = x.type === 'boolean'
      ? html`<select id=${id} data-testid=${id} value=${textOf(x)} onChange=${onInput} aria-describedby=${id + '-help'}>
          <option value="">default</option><option value="true">on</option><option value="false">off</option></select>`
      : html`<input id=${id} data-testid=${id} value=${textOf(x)} onInput=${onInput} spellcheck="false" aria-describedby=${id + '-help'}
          inputmode=${x.type === 'integer' ? 'numeric' : undefined} placeholder=${x.type === 'string_list' ? 'comma-separated' : ''} />`;
    return html`<label key=${x.name} for=${id}>${x.label} <code class="sub">${x.name}</code> ${control}
      <span class="help" id=${id + '-help'}>${x.description}</span>${err('psd.' + x.name)}</label>`;
  };
  return html`<form class="panel form" onSubmit=${submit} novalidate aria-labelledby="connection-form-title">
    <h3 id="connection-form-title">${connection ? 'Edit ' + connection.name : 'Add a connection'}</h3>
    <label>Provider <input data-testid="connection-provider" list="provider-ids" value=${f.provider} onInput=${set('provider')}
      disabled=${!!connection} required autocomplete="off" spellcheck="false" aria-describedby="provider-help" />
      <datalist id="provider-ids">${descriptors.map((x) => html`<option value=${x.id}>${x.displayName}</option>`)}</datalist>
      <span id="provider-help" class="help">${d ? `${d.displayName}: ${d.defaultClass} by default, base URL ${d.defaultBaseUrl || 'none'}${(d.models || []).length ? `, models ${d.models.slice(0, 6).map((m) => m.id).join(', ')}${d.models.length > 6 ? '…' : ''}` : ''}.`
        : 'A built-in or plugin provider id, or any other id for an OpenAI-compatible server (then the base URL is required).'}</span>
      ${err('provider')}</label>
    <label>Name <input data-testid="connection-name" value=${f.name} onInput=${set('name')} maxlength="256" />${err('name')}</label>
    <label>Authentication <select value=${authType} onChange=${set('authType')} disabled=${!!connection}>
      <option value="apikey">API key</option><option value="oauth">OAuth token (use Add account to log in)</option><option value="local">none (local server)</option>
    </select>${err('authType')}</label>
    ${authType === 'apikey' ? html`<label>API key <input data-testid="connection-apikey" type="password" autocomplete="off" value=${f.apiKey} onInput=${set('apiKey')}
      placeholder=${connection ? 'unchanged (' + (connection.apiKey || 'none') + ')' : ''} />
      <span class="help">Never shown again after saving: the list shows it masked.</span>${err('apiKey')}</label>` : null}
    <label>Base URL <input data-testid="connection-baseurl" type="url" value=${f.baseUrl} onInput=${set('baseUrl')} spellcheck="false"
      placeholder=${d && d.defaultBaseUrl ? d.defaultBaseUrl : 'https://host/v1 (required for a custom provider)'} />${err('baseUrl')}</label>
    <label>Priority <input data-testid="connection-priority" type="number" min="1" max="1000000" value=${f.priority} onInput=${set('priority')} placeholder="1 (lower is tried first)" />${err('priority')}</label>
    <label>Max concurrent <input data-testid="connection-maxconcurrent" type="number" min="1" max="100000" value=${f.maxConcurrent} onInput=${set('maxConcurrent')} placeholder="no cap" />${err('maxConcurrent')}</label>
    ${fields.length ? html`<fieldset class="wide" data-testid="connection-fields"><legend>${d ? d.displayName : 'OpenAI-compatible'} options (providerSpecificData)</legend>
      <div class="fields">${fields.map(input)}</div></fieldset>` : null}
    <label class="wide">Other provider-specific data (JSON) <textarea rows="2" data-testid="connection-other-data" value=${other} onInput=${(e) => setOther(e.target.value)}
      spellcheck="false" placeholder="{} — members the provider does not declare (a login keeps its account here)"></textarea>${err('providerSpecificData')}</label>
    ${err('_')}
    <div class="buttons wide"><button type="submit" data-testid="connection-save" disabled=${busy}>Save</button>
      <button type="button" class="secondary" onClick=${() => onDone(null)}>Cancel</button></div>
  </form>`;
}
