// Settings: the resilience and general documents as forms built from the server's schemas (type,
// bounds, default, description, what a section affects); errors are shown at their field.
import { html, useState, useEffect, api, act, ErrorText } from './lib.js';

const get = (o, path) => path.split('.').reduce((x, k) => (x == null ? undefined : x[k]), o);

function setIn(o, path, v) {
  const keys = path.split('.');
  let x = o;
  keys.slice(0, -1).forEach((k) => { x = x[k] = x[k] || {}; });
  x[keys[keys.length - 1]] = v;
}

function shown(v) {
  return typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
}

export function SettingsPage() {
  const [schema, setSchema] = useState(null);
  const [tree, setTree] = useState(null);
  const [general, setGeneral] = useState(null);
  const [generalSchema, setGeneralSchema] = useState(null);
  const [error, setError] = useState(null);
  const load = async () => {
    const r = await act(() => Promise.all([api('GET', '/api/settings/schema'), api('GET', '/api/settings'),
      api('GET', '/api/resilience/schema'), api('GET', '/api/resilience')]));
    if (r.ok) {
      setGeneralSchema(r.value[0]);
      setGeneral(r.value[1]);
      setSchema(r.value[2]);
      setTree(r.value[3]);
    } else if (!r.dropped) {
      setError(r.error);
    }
  };
  useEffect(() => { load(); }, []);
  return html`<h2>Settings</h2>
    <p class="help">Changes apply to the next request, without a restart, and are kept in the database (they win over conf/sluice.yaml).</p>
    <${ErrorText} error=${error} />
    ${general && generalSchema ? html`<${GeneralForm} schema=${generalSchema} settings=${general} onSaved=${setGeneral} />` : null}
    ${schema && tree ? html`<${ResilienceForm} schema=${schema} tree=${tree} onSaved=${setTree} />` : error ? null : html`<p class="empty">Loading…</p>`}`;
}

function ResilienceForm({ schema, tree, onSaved }) {
  const [values, setValues] = useState({});
  const [errors, setErrors] = useState({});
  const [status, setStatus] = useState('');
  const value = (f) => (f.path in values ? values[f.path] : inputOf(f, get(tree, f.path)));
  const submit = async (e) => {
    e.preventDefault();
    const patch = {};
    const local = {};
    for (const s of schema.sections) {
      for (const f of s.fields) {
        if (!(f.path in values)) {
          continue;
        }
        const v = parse(f, values[f.path]);
        if (v.error) {
          local[f.path] = v.error;
        } else {
          setIn(patch, f.path, v.value);
        }
      }
    }
    if (Object.keys(local).length) {
      setErrors(local);
      return;
    }
    if (Object.keys(patch).length === 0) {
      setStatus('Nothing changed.');
      return;
    }
    const r = await act(() => api('PATCH', '/api/resilience', patch));
    if (r.ok) {
      setErrors({});
      setValues({});
      setStatus('Saved: the next request uses the new settings.');
      onSaved(r.value);
    } else {
      setStatus('');
      setErrors({ [r.error.param || '_']: r.error.message });
    }
  };
  return html`<form class="settings" onSubmit=${submit} novalidate aria-labelledby="resilience-title">
    <h3 id="resilience-title">Resilience <span class="unit">(GET/PATCH /api/resilience; docs/resilience.md)</span></h3>
    ${schema.sections.map((s) => html`<fieldset class="panel" key=${s.name}>
      <legend>${s.name}</legend><p class="help" data-testid=${'setting-affects-' + s.name}>Affects: ${s.affects}</p>
      <div class="fields">${s.fields.map((f) => html`<${Field} key=${f.path} field=${f} value=${value(f)} error=${errors[f.path]}
        onInput=${(v) => setValues({ ...values, [f.path]: v })} />`)}</div>
    </fieldset>`)}
    ${errors._ ? html`<p class="field-error" role="alert">${errors._}</p>` : null}
    <div class="buttons sticky"><button type="submit" data-testid="settings-save">Save resilience settings</button>
      <span role="status" data-testid="settings-status">${status}</span></div>
  </form>`;
}

function inputOf(f, v) {
  if (f.type === 'boolean') {
    return !!v;
  }
  if (f.type === 'integerList') {
    return (v || []).join(', ');
  }
  if (f.type === 'integerMap') {
    return JSON.stringify(v || {});
  }
  return v == null ? '' : String(v);
}

function parse(f, raw) {
  if (f.type === 'boolean') {
    return { value: !!raw };
  }
  if (f.type === 'integerList') {
    const parts = String(raw).split(/[\s,]+/).filter(Boolean);
    return parts.every((p) => /^-?\d+$/.test(p)) ? { value: parts.map(Number) } : { error: 'Write whole numbers separated by commas.' };
  }
  if (f.type === 'integerMap') {
    try {
      return { value: JSON.parse(raw || '{}') };
    } catch {
      return { error: 'Not JSON: write an object such as {"rate_limited": 60000}.' };
    }
  }
  const t = String(raw).trim();
  // the server checks the bounds and names the field: its message is the one shown
  return /^-?\d+$/.test(t) ? { value: Number(t) } : { error: 'Write a whole number.' };
}

function Field({ field: f, value, error, onInput }) {
  const id = 'setting-' + f.path;
  const hint = [f.type === 'integerOrOff' ? `0 (off) or ${f.min}–${f.max}` : f.min !== undefined ? `${f.min}–${f.max}` : null,
    `default ${shown(f.default)}`, f.type === 'integerMap' ? `keys: ${f.keysMeaning} (${(f.keys || []).join(', ')})` : null].filter(Boolean).join(' · ');
  const label = f.path.split('.').slice(1).join('.');
  const input = f.type === 'boolean'
    ? html`<input id=${id} data-testid=${id} type="checkbox" checked=${value} onChange=${(e) => onInput(e.target.checked)} aria-describedby=${id + '-hint'} />`
    : html`<input id=${id} data-testid=${id} type="text" inputmode=${f.type === 'integer' || f.type === 'integerOrOff' ? 'numeric' : undefined}
        value=${value} onInput=${(e) => onInput(e.target.value)} aria-invalid=${error ? 'true' : undefined}
        aria-describedby=${id + '-hint' + (error ? ' ' + id + '-error' : '')} spellcheck="false" />`;
  return html`<div class=${'field' + (error ? ' invalid' : '')}>
    <label for=${id}>${label}</label>${input}
    <span class="help" id=${id + '-hint'}><span data-testid=${'setting-range-' + f.path}>${hint}</span>
      <span class="description" data-testid=${'setting-description-' + f.path}>${f.description || ''}</span></span>
    ${error ? html`<span class="field-error" role="alert" id=${id + '-error'} data-testid=${'setting-error-' + f.path}>${error}</span>` : null}
  </div>`;
}

/** The general settings' fields, in the schema's order, each with its section. */
function generalFields(schema) {
  return schema.sections.flatMap((s) => s.fields.map((f) => ({ ...f, section: s.name })));
}

function GeneralForm({ schema, settings, onSaved }) {
  const [values, setValues] = useState({});
  const [errors, setErrors] = useState({});
  const [status, setStatus] = useState('');
  const fields = generalFields(schema);
  const value = (g) => {
    if (g.path in values) {
      return values[g.path];
    }
    const v = get(settings, g.path);
    return g.type === 'json' ? JSON.stringify(v ?? null, null, 1) : v == null ? '' : String(v);
  };
  const submit = async (e) => {
    e.preventDefault();
    const patch = {};
    for (const g of fields) {
      if (!(g.path in values)) {
        continue;
      }
      const raw = values[g.path].trim();
      if (g.type === 'json') {
        try {
          setIn(patch, g.path, raw ? JSON.parse(raw) : null);
        } catch {
          setErrors({ [g.path]: 'Not JSON.' });
          return;
        }
      } else if (g.type === 'integer') {
        setIn(patch, g.path, raw === '' ? null : /^-?\d+$/.test(raw) ? Number(raw) : raw);
      } else {
        setIn(patch, g.path, raw || null);
      }
    }
    if (Object.keys(patch).length === 0) {
      setStatus('Nothing changed.');
      return;
    }
    const r = await act(() => api('PATCH', '/api/settings', patch));
    if (r.ok) {
      setErrors({});
      setValues({});
      setStatus('Saved.');
      onSaved(r.value);
    } else {
      const p = r.error.param || '_';
      const at = fields.find((g) => p === g.path || p.startsWith(g.path + '.') || p.startsWith(g.path + '['));
      setErrors({ [at ? at.path : '_']: r.error.message });
      setStatus('');
    }
  };
  const field = (g) => {
    const id = 'general-' + g.path;
    // what empty (null) means is in the field's description: the configured value, or none
    const range = g.min !== undefined ? `${g.min}–${g.max}` + (g.nullable ? '; empty = unset' : '') : g.nullable ? 'empty = unset' : '';
    return html`<div class=${'field' + (g.type === 'json' ? ' wide' : '') + (errors[g.path] ? ' invalid' : '')} key=${g.path}>
      <label for=${id}>${g.path}</label>
      ${g.type === 'json' ? html`<textarea id=${id} data-testid=${id} rows="3" value=${value(g)} aria-describedby=${id + '-hint'}
          onInput=${(e) => setValues({ ...values, [g.path]: e.target.value })} spellcheck="false"></textarea>`
        : html`<input id=${id} data-testid=${id} value=${value(g)} inputmode=${g.type === 'integer' ? 'numeric' : undefined} aria-describedby=${id + '-hint'}
          aria-invalid=${errors[g.path] ? 'true' : undefined} onInput=${(e) => setValues({ ...values, [g.path]: e.target.value })} spellcheck="false" />`}
      <span class="help" id=${id + '-hint'}>${range ? html`<span>${range}</span> ` : null}<span class="description" data-testid=${'general-description-' + g.path}>${g.description}</span></span>
      ${errors[g.path] ? html`<span class="field-error" role="alert" data-testid=${'general-error-' + g.path}>${errors[g.path]}</span>` : null}
    </div>`;
  };
  return html`<form class="settings" onSubmit=${submit} novalidate aria-labelledby="general-title">
    <h3 id="general-title">General <span class="unit">(GET/PATCH /api/settings)</span></h3>
    ${schema.sections.map((s) => html`<fieldset class="panel" key=${s.name}>
      <legend>${s.name}</legend><p class="help" data-testid=${'general-affects-' + s.name}>Affects: ${s.affects}</p>
      <div class="fields">${fields.filter((g) => g.section === s.name).map(field)}</div>
    </fieldset>`)}
    ${errors._ ? html`<p class="field-error" role="alert">${errors._}</p>` : null}
    <div class="buttons"><button type="submit" data-testid="general-save">Save general settings</button> <span role="status">${status}</span></div>
  </form>`;
}
