// The live chart's data: Prometheus text → per-provider request and error rates (uPlot draws them).

export const COLORS = ['#1f77b4', '#2ca02c', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#bcbd22', '#7f7f7f'];

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\S+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?\s*/g;

/** The samples of one metric family in a Prometheus text exposition: [{labels, value}]. */
export function samples(text, name) {
  const out = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || !line.startsWith(name)) {
      continue;
    }
    const m = SAMPLE.exec(line);
    if (!m || m[1] !== name) {
      continue;
    }
    const labels = {};
    if (m[2]) {
      for (const l of m[2].matchAll(LABEL)) {
        labels[l[1]] = l[2].replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
      }
    }
    const value = Number(m[3]);
    if (Number.isFinite(value)) {
      out.push({ labels, value });
    }
  }
  return out;
}

/** Whether a request's status label counts as an error: anything but a 2xx or an "ok". */
export function isError(status) {
  return !/^(2\d\d|ok|success)$/i.test(String(status ?? ''));
}

/** Request and error totals per provider from {@code sluice_requests_total}. */
export function totalsByProvider(text) {
  const totals = new Map();
  for (const s of samples(text, 'sluice_requests_total')) {
    const provider = s.labels.provider || '(none)';
    const t = totals.get(provider) || { requests: 0, errors: 0 };
    t.requests += s.value;
    if (isError(s.labels.status)) {
      t.errors += s.value;
    }
    totals.set(provider, t);
  }
  return totals;
}

/** Rates between successive scrapes, kept for the last {@code capacity} points. */
export class RateSeries {
  constructor(capacity = 60) {
    this.capacity = capacity;
    this.previous = null;
    this.points = [];            // [{t, rates: Map(provider → {requests, errors})}]
    this.providers = [];         // in order of first appearance, so colours stay put
  }

  add(timeMs, totals) {
    for (const p of totals.keys()) {
      if (!this.providers.includes(p)) {
        this.providers.push(p);
      }
    }
    if (this.previous) {
      const dt = (timeMs - this.previous.t) / 1000;
      if (dt > 0) {
        const rates = new Map();
        for (const [p, now] of totals) {
          const before = this.previous.totals.get(p) || { requests: 0, errors: 0 };
          rates.set(p, {
            requests: delta(now.requests, before.requests) / dt,
            errors: delta(now.errors, before.errors) / dt,
          });
        }
        this.points.push({ t: timeMs, rates });
        if (this.points.length > this.capacity) {
          this.points.shift();
        }
      }
    }
    this.previous = { t: timeMs, totals };
  }

  latest() {
    return this.points.length ? this.points[this.points.length - 1].rates : new Map();
  }
}

// A counter that went down was reset (a restart): everything counted since is new.
function delta(now, before) {
  return now >= before ? now - before : now;
}

export function formatRate(v) {
  return v >= 10 ? v.toFixed(0) : v >= 1 ? v.toFixed(1) : v.toFixed(2);
}
