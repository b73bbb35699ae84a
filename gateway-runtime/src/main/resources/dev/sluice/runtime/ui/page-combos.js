// Combos: create, edit, delete, explain; each target with its live state beside it.
import { html, useState, api, act, usePoll, duration, ErrorText, Table, ConfirmButton, Badge } from './lib.js';

export function CombosPage() {
  const [status, setStatus] = useState('');
  const [editing, setEditing] = useState(null);
  const [explained, setExplained] = useState(null);
  const [data, error, reload] = usePoll(async () => {
    const [combos, health, cooldowns, lockouts] = await Promise.all([api('GET', '/api/combos'), api('GET', '/api/monitoring/health'),
      api('GET', '/api/resilience/cooldowns'), api('GET', '/api/resilience/model-cooldowns')]);
    return { combos: combos.data, strategies: combos.strategies || [], breakers: health.providerBreakers || [],
      cooldowns: cooldowns.data, lockouts: lockouts.data };
  }, [], { every: 8000 });
  const run = async (fn) => {
    const r = await act(fn);
    setStatus(r.ok ? r.value : r.error.message);
    reload();
  };
  const explain = async (c) => {
    const r = await act(() => api('POST', `/api/combos/${encodeURIComponent(c.name)}/explain`, { messages: [{ role: 'user', content: 'explain' }] }));
    setExplained(r.ok ? r.value : { error: r.error.message, combo: c.name });
  };
  return html`
    <h2>Combos</h2>
    <p class="help">A combo is a model name clients can ask for; its strategy picks which target to try first. See docs/combos.md.</p>
    <p class="action-status" role="status" aria-live="polite">${status}</p>
    <${ErrorText} error=${error} />
    <div class="toolbar"><button type="button" data-testid="combo-add" onClick=${() => setEditing('new')}>Add combo</button></div>
    ${editing ? html`<${ComboForm} key=${editing === 'new' ? 'new' : editing.name} combo=${editing === 'new' ? null : editing}
      strategies=${data ? data.strategies : []} onDone=${(msg) => { setEditing(null); if (msg) { setStatus(msg); } reload(); }} />` : null}
    ${explained ? html`<${Explained} result=${explained} onClose=${() => setExplained(null)} />` : null}
    <${Table} testid="combos-table" rows=${data ? data.combos : []} rowKey=${(c) => c.name} empty=${data ? 'No combos yet: press "Add combo".' : 'Loading…'}
      columns=${[{ label: 'Name', sort: (c) => c.name }, { label: 'Strategy', sort: (c) => c.strategy }, { label: 'Targets and their state now' }, { label: 'Actions' }]}
      row=${(c) => html`<tr data-testid="combo-row" data-combo-name=${c.name}>
        <th scope="row">${c.name}</th><td>${c.strategy}</td>
        <td><ul class="targets">${c.targets.map((t) => html`<li>${t.model}${t.connectionId ? html` <span class="help">@${t.connectionId.slice(0, 8)}</span>` : null}
          ${t.weight != null ? html` <span class="help">weight ${t.weight}</span>` : null}${t.priority != null ? html` <span class="help">priority ${t.priority}</span>` : null}
          ${' '}<${TargetState} target=${t} data=${data} /></li>`)}</ul></td>
        <td class="actions">
          <button type="button" class="secondary" data-testid="combo-edit" aria-label=${'Edit ' + c.name} onClick=${() => setEditing(c)}>Edit</button>
          <button type="button" class="secondary" data-testid="combo-explain" aria-label=${'Explain the order of ' + c.name} onClick=${() => explain(c)}>Explain</button>
          <${ConfirmButton} testid="combo-delete" label="Delete" name=${'Delete ' + c.name}
            onConfirm=${() => run(async () => { await api('DELETE', `/api/combos/${encodeURIComponent(c.name)}`); return `${c.name} deleted.`; })} />
        </td></tr>`} />`;
}

/** What holds a target back now: its provider's breaker, its connections' cooldowns, its model's lockouts. */
function TargetState({ target, data }) {
  const slash = target.model.indexOf('/');
  const provider = slash > 0 ? target.model.slice(0, slash) : null;
  const model = slash > 0 ? target.model.slice(slash + 1) : target.model;
  const notes = [];
  const worst = data.breakers.filter((b) => b.provider === provider && b.state !== 'CLOSED');
  worst.forEach((b) => notes.push(html`<${Badge} state=${b.state} /> breaker${b.retryAfterMs ? ' ' + duration(b.retryAfterMs) : ''}`));
  data.cooldowns.filter((c) => (target.connectionId ? c.connectionId === target.connectionId : c.provider === provider) && c.remainingMs > 0)
    .forEach((c) => notes.push(html`<${Badge} state="cooling" /> ${c.name} ${duration(c.remainingMs)}`));
  data.lockouts.filter((l) => l.provider === provider && l.model === model && (!target.connectionId || l.connectionId === target.connectionId))
    .forEach((l) => notes.push(html`<${Badge} state="locked_out" /> ${l.reason} ${duration(l.remainingMs)}`));
  return html`<span class="target-state" data-testid="combo-target-state">${notes.length ? notes.map((n) => html`<span class="note">${n}</span>`) : html`<${Badge} state="ready" />`}</span>`;
}

function targetsText(targets) {
  return targets.map((t) => [t.model, t.connectionId ? 'connection=' + t.connectionId : null, t.weight != null ? 'weight=' + t.weight : null,
    t.priority != null ? 'priority=' + t.priority : null, t.costPer1kTokens != null ? 'cost=' + t.costPer1kTokens : null].filter(Boolean).join(' ')).join('\n');
}

function parseTargets(text) {
  return text.split('\n').map((l) => l.trim()).filter(Boolean).map((line) => {
    const [model, ...opts] = line.split(/\s+/);
    const t = { model };
    for (const o of opts) {
      const [k, v] = o.split('=');
      if (k === 'connection') { t.connectionId = v; } else if (k === 'weight') { t.weight = Number(v); } else if (k === 'priority') { t.priority = Number(v); } else if (k === 'cost') { t.costPer1kTokens = Number(v); }
    }
    return t;
  });
}

function ComboForm({ combo, strategies, onDone }) {
  const [name, setName] = useState(combo ? combo.name : '');
  const [strategy, setStrategy] = useState(combo ? combo.strategy : 'priority');
  const [targets, setTargets] = useState(combo ? targetsText(combo.targets) : '');
  const [error, setError] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    const body = { name, strategy, targets: parseTargets(targets) };
    if (combo && combo.strategyOptions && Object.keys(combo.strategyOptions).length) {
      body.strategyOptions = combo.strategyOptions;
    }
    const r = await act(() => combo ? api('PUT', `/api/combos/${encodeURIComponent(combo.name)}`, body) : api('POST', '/api/combos', body));
    if (r.ok) {
      onDone(`${r.value.name} saved.`);
    } else {
      setError(r.error);
    }
  };
  const at = (p) => error && error.param && (error.param === p || error.param.startsWith(p + '[') || error.param.startsWith(p + '.'))
    ? html`<span class="field-error" role="alert">${error.message}</span>` : null;
  const known = strategies.includes(strategy) ? strategies : [strategy, ...strategies];
  return html`<form class="panel form" onSubmit=${submit} novalidate aria-labelledby="combo-form-title">
    <h3 id="combo-form-title">${combo ? 'Edit ' + combo.name : 'Add a combo'}</h3>
    <label>Name <input data-testid="combo-name" value=${name} onInput=${(e) => setName(e.target.value)} disabled=${!!combo} spellcheck="false" />${at('name')}</label>
    <label>Strategy <select data-testid="combo-strategy" value=${strategy} onChange=${(e) => setStrategy(e.target.value)}>
      ${known.map((s) => html`<option value=${s}>${s}</option>`)}</select>${at('strategy')}</label>
    <label class="wide">Targets, one per line: <code>provider/model</code> then optionally <code>connection=ID weight=N priority=N cost=USD</code>
      <textarea data-testid="combo-targets" rows="4" value=${targets} onInput=${(e) => setTargets(e.target.value)} spellcheck="false"></textarea>${at('targets')}</label>
    ${error && !['name', 'strategy'].includes(error.param) && !(error.param || '').startsWith('targets') ? html`<p class="field-error wide" role="alert">${error.message}</p>` : null}
    <div class="buttons wide"><button type="submit" data-testid="combo-save">Save</button>
      <button type="button" class="secondary" onClick=${() => onDone(null)}>Cancel</button></div>
  </form>`;
}

function Explained({ result, onClose }) {
  return html`<section class="panel" data-testid="combo-explain-result" aria-labelledby="explain-title">
    <h3 id="explain-title">Order of ${result.combo} for a request now</h3>
    ${result.error ? html`<p class="message">${result.error}</p>` : html`
      <p class="help">Strategy ${result.strategy}${result.strategyFound ? '' : ' (not found: the default order)'}; no upstream was called.</p>
      <ol>${(result.order || []).map((o) => html`<li>${o.model}${o.pinnedConnectionId ? ' @' + o.pinnedConnectionId.slice(0, 8) : ''}${' '}
        <span class="help">${o.startsOn ? 'starts on ' + o.startsOn : ''} priority ${o.figures ? o.figures.priority : '—'}, in flight ${o.figures ? o.figures.inFlight : '—'}</span></li>`)}</ol>
      ${(result.heldBack || []).length ? html`<p>Held back:</p><ul>${result.heldBack.map((x) => html`<li>${x.model} ${x.connectionId || ''}: ${x.reason}, ${duration(x.remainingMs)}${x.cause ? ' (' + x.cause + ')' : ''}</li>`)}</ul>` : html`<p class="help">Nothing held back.</p>`}`}
    <button type="button" class="secondary" onClick=${onClose}>Close</button>
  </section>`;
}
