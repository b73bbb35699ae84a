// Usage: requests, tokens and cost over time, and a table per key, provider or model that sums to the totals.
import { html, useState, api, usePoll, ErrorText, Table, number } from './lib.js';
import { Plot } from './plot.js';

const RANGES = { '1h': [3600e3, 'minute', 60e3], '24h': [86400e3, 'hour', 3600e3], '7d': [7 * 86400e3, 'hour', 3600e3], '30d': [30 * 86400e3, 'day', 86400e3] };
const GROUPS = { key: 'Key', provider: 'Provider', model: 'Model' };

export function UsagePage() {
  const [range, setRange] = useState('24h');
  const [group, setGroup] = useState('provider');
  const [data, error] = usePoll(async () => {
    const [span, bucket, step] = RANGES[range];
    // whole buckets: the range starts at a bucket boundary so the chart's first bar is complete
    const to = Date.now();
    const from = Math.floor((to - span) / step) * step + step;
    const q = `from=${from}&to=${to}`;
    const [byTime, byGroup] = await Promise.all([api('GET', `/api/usage?${q}&groupBy=${bucket}`), api('GET', `/api/usage?${q}&groupBy=${group}`)]);
    return { from, to, step, byTime, byGroup };
  }, [range, group], { every: 10000 });
  const t = data ? data.byGroup.totals : null;
  return html`
    <h2>Usage</h2>
    <div class="toolbar" role="group" aria-label="Range">
      ${Object.keys(RANGES).map((r) => html`<button type="button" class=${r === range ? '' : 'secondary'} aria-pressed=${r === range ? 'true' : 'false'}
        data-testid=${'usage-range-' + r} onClick=${() => setRange(r)}>${r}</button>`)}
      <label class="inline">by <select data-testid="usage-group" value=${group} onChange=${(e) => setGroup(e.target.value)}>
        ${Object.entries(GROUPS).map(([k, v]) => html`<option value=${k}>${v}</option>`)}</select></label>
    </div>
    <${ErrorText} error=${error} />
    ${!data ? html`<p class="empty">Loading…</p>` : html`
      <dl class="counts">
        <div><dt>Requests</dt><dd data-testid="usage-total-requests" data-value=${t.requests}>${number(t.requests)}</dd></div>
        <div><dt>Errors</dt><dd data-testid="usage-total-errors">${number(t.errors)}</dd></div>
        <div><dt>Tokens</dt><dd data-testid="usage-total-tokens" data-value=${t.totalTokens}>${number(t.totalTokens)}</dd></div>
        <div><dt>Cost (USD)</dt><dd data-testid="usage-total-cost" data-value=${t.costUsd}>${number(t.costUsd, 6)}</dd></div>
      </dl>
      ${t.unpricedTokens ? html`<p class="help">${number(t.unpricedTokens)} tokens of models without a price are not in the cost: set prices on the Settings page.</p>` : null}
      <${Chart} data=${data} />
      <${Table} testid="usage-table" rows=${data.byGroup.groups} rowKey=${(g) => String(g.group)}
        empty="No requests in this range: send one through /v1/chat/completions and it shows here within seconds."
        columns=${[{ label: GROUPS[group], sort: (g) => g.group || '' }, { label: 'Requests', num: true, sort: (g) => g.requests },
          { label: 'Errors', num: true, sort: (g) => g.errors }, { label: 'Prompt tokens', num: true, sort: (g) => g.promptTokens },
          { label: 'Completion tokens', num: true, sort: (g) => g.completionTokens }, { label: 'Tokens', num: true, sort: (g) => g.totalTokens },
          { label: 'Avg latency ms', num: true, sort: (g) => g.averageLatencyMs }, { label: 'Cost USD', num: true, sort: (g) => g.costUsd }]}
        row=${(g) => html`<tr data-testid="usage-row"><th scope="row">${g.group === null ? '(no provider reached)' : g.group}</th>
          <td class="num">${number(g.requests)}</td><td class="num">${number(g.errors)}</td><td class="num">${number(g.promptTokens)}</td>
          <td class="num">${number(g.completionTokens)}</td><td class="num">${number(g.totalTokens)}</td>
          <td class="num">${number(g.averageLatencyMs)}</td><td class="num">${number(g.costUsd, 6)}</td></tr>`} />
      <p class="help">Counted per minute of arrival (UTC buckets); the table sums to the totals above.</p>`}`;
}

function Chart({ data }) {
  const { from, to, step, byTime } = data;
  const at = new Map(byTime.groups.map((g) => [Date.parse(g.group), g]));
  const xs = [];
  const req = [];
  const err = [];
  const tok = [];
  for (let t = from; t <= to; t += step) {
    const g = at.get(t);
    xs.push(t / 1000);
    req.push(g ? g.requests : 0);
    err.push(g ? g.errors : 0);
    tok.push(g ? g.totalTokens : 0);
  }
  return html`<${Plot} testid="usage-chart" label="Requests, errors and tokens over time" data=${[xs, req, err, tok]}
    series=${[{ label: 'requests', stroke: '#1f77b4' }, { label: 'errors', stroke: '#b3261e', dash: [5, 4] }, { label: 'tokens', stroke: '#2ca02c', scale: 'tokens' }]}
    axes=${[{}, { label: 'requests' }, { scale: 'tokens', side: 1, label: 'tokens', grid: { show: false } }]} />
    <ul class="legend"><li><span class="swatch c0"></span>requests</li><li><span class="swatch bad"></span>errors (dashed)</li><li><span class="swatch c1"></span>tokens (right axis)</li></ul>`;
}
