// "Add account" (issue 36's login on the dashboard): start a flow, open the provider's page or show
// the device code, paste the code or the redirect URL back, and watch the flow's status.
import { html, useState, useEffect, api, act, ErrorText } from './lib.js';

export function AddAccount({ logins, onConnected }) {
  const [flow, setFlow] = useState(null);
  const [error, setError] = useState(null);
  const [paste, setPaste] = useState('');
  const [state, setState] = useState(null);
  useEffect(() => {
    if (!flow) {
      return undefined;
    }
    let alive = true;
    let timer = null;
    const poll = async () => {
      if (!alive) {
        return;
      }
      if (!document.hidden) {
        const r = await act(() => api('GET', `/api/oauth/flows/${encodeURIComponent(flow.flowId)}`));
        if (!alive) {
          return;
        }
        if (r.ok) {
          setState(r.value);
          if (r.value.status !== 'pending') {
            if (r.value.status === 'connected') {
              onConnected();
            }
            return;
          }
        } else {
          setError(r.error);
        }
      }
      timer = setTimeout(poll, 3000);
    };
    poll();
    return () => { alive = false; clearTimeout(timer); };
  }, [flow]);
  if (!logins || logins.length === 0) {
    return null;
  }
  const start = async (provider, type) => {
    setError(null);
    setState(null);
    setPaste('');
    const r = await act(() => api('POST', `/api/oauth/${encodeURIComponent(provider)}/start`, type ? { flow: type } : {}));
    if (r.ok) {
      setFlow({ ...r.value, provider });
    } else {
      setError(r.error);
    }
  };
  const submit = async (e) => {
    e.preventDefault();
    const text = paste.trim();
    const body = /^https?:\/\//i.test(text) ? { callbackUrl: text } : { code: text };
    const r = await act(() => api('POST', `/api/oauth/flows/${encodeURIComponent(flow.flowId)}/code`, body));
    if (r.ok) {
      setState(r.value);
      if (r.value.status === 'connected') {
        onConnected();
      }
    } else {
      setError(r.error);
    }
  };
  const status = state ? state.status : flow ? 'pending' : null;
  return html`<section class="panel" aria-labelledby="accounts-title">
    <h3 id="accounts-title">Add account</h3>
    <p class="help">Log in to a subscription account instead of pasting a token: Sluice runs the provider's login and creates the connection.</p>
    <div class="toolbar">${logins.map((l) => html`<button type="button" data-testid=${'oauth-start-' + l.provider}
      onClick=${() => start(l.provider)}>Add ${l.provider} account</button>
      ${(l.flows || []).slice(1).map((f) => html`<button type="button" data-testid=${'oauth-start-' + l.provider + '-' + f}
        onClick=${() => start(l.provider, f)}>Add ${l.provider} account (${f === 'device' ? 'device code' : f})</button>`)}`)}</div>
    <${ErrorText} error=${error} />
    ${flow ? html`<div class="oauth-flow">
      ${flow.authorizeUrl ? html`<p>1. Open <a data-testid="oauth-authorize-link" href=${flow.authorizeUrl} target="_blank" rel="noopener noreferrer">the ${flow.provider} login page</a>
        and approve. 2. Paste the code it shows, or the whole URL the browser was sent to:</p>` : null}
      ${flow.userCode ? html`<p>Enter the code <code data-testid="oauth-user-code">${flow.userCode}</code> at
        <a href=${flow.verificationUri} target="_blank" rel="noopener noreferrer">${flow.verificationUri}</a>; this page notices when you approve.</p>` : null}
      ${flow.authorizeUrl ? html`<form class="inline" onSubmit=${submit}>
        <label>Code or redirect URL <input data-testid="oauth-paste" value=${paste} onInput=${(e) => setPaste(e.target.value)} autocomplete="off" spellcheck="false" /></label>
        <button type="submit" data-testid="oauth-submit" disabled=${!paste.trim()}>Submit</button></form>` : null}
      <p data-testid="oauth-status" role="status" aria-live="polite" data-status=${status}>Status: ${status}
        ${state && state.error ? ' — ' + state.error : ''}${state && state.connectionId ? ' — connection ' + state.connectionId : ''}</p>
    </div>` : null}
  </section>`;
}
