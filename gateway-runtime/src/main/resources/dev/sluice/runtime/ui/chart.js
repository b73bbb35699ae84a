// The live chart: Prometheus text → per-provider request and error rates → lines on a canvas.
// No charting library: a few lines of canvas code are less to review than a dependency.

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

/** Draws the series: a solid line per provider for requests, a dashed one for errors. */
export function draw(canvas, series) {
  const ratio = window.devicePixelRatio || 1;
  const width = canvas.clientWidth;
  const height = canvas.clientHeight;
  if (width === 0 || height === 0) {
    return;
  }
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  const g = canvas.getContext('2d');
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  g.clearRect(0, 0, width, height);

  const left = 48, right = 10, top = 10, bottom = 22;
  const plotW = width - left - right, plotH = height - top - bottom;
  let max = 0;
  for (const point of series.points) {
    for (const r of point.rates.values()) {
      max = Math.max(max, r.requests, r.errors);
    }
  }
  const scale = niceScale(max);
  max = scale.max;

  g.font = '11px system-ui, sans-serif';
  g.fillStyle = '#5b6270';
  g.strokeStyle = '#d9dde3';
  g.lineWidth = 1;
  for (let i = 0; i <= scale.ticks; i++) {
    const y = top + plotH - (plotH * i) / scale.ticks;
    g.beginPath();
    g.moveTo(left, y);
    g.lineTo(left + plotW, y);
    g.stroke();
    g.textAlign = 'right';
    g.textBaseline = 'middle';
    g.fillText(formatRate((max * i) / scale.ticks), left - 6, y);
  }
  const n = series.capacity;
  const x = (index) => left + (plotW * index) / Math.max(1, n - 1);
  const offset = n - series.points.length;
  // the window is fixed (capacity × the scrape interval), so its edges are labelled, not the points
  const windowS = series.points.length > 1
    ? Math.round(((series.points[series.points.length - 1].t - series.points[0].t) / (series.points.length - 1)) * (n - 1) / 1000)
    : 0;
  g.textBaseline = 'top';
  g.textAlign = 'right';
  g.fillText('now', left + plotW, top + plotH + 6);
  if (windowS > 0) {
    g.textAlign = 'left';
    g.fillText(windowS >= 120 ? `${Math.round(windowS / 60)} min ago` : `${windowS} s ago`, left, top + plotH + 6);
  }
  series.providers.forEach((provider, k) => {
    g.strokeStyle = COLORS[k % COLORS.length];
    for (const kind of ['requests', 'errors']) {
      g.setLineDash(kind === 'errors' ? [5, 4] : []);
      g.lineWidth = kind === 'errors' ? 1.5 : 2;
      g.beginPath();
      series.points.forEach((point, i) => {
        const r = point.rates.get(provider);
        const v = r ? r[kind] : 0;
        const y = top + plotH - (max > 0 ? (plotH * v) / max : 0);
        if (i === 0) {
          g.moveTo(x(offset + i), y);
        } else {
          g.lineTo(x(offset + i), y);
        }
      });
      g.stroke();
    }
  });
  g.setLineDash([]);
}

// A round top for the y axis and a number of grid steps that gives round labels.
function niceScale(v) {
  if (v <= 0) {
    return { max: 1, ticks: 4 };
  }
  const p = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 5]) {
    if (v <= m * p) {
      return { max: m * p, ticks: m === 5 ? 5 : 4 };
    }
  }
  return { max: 10 * p, ticks: 5 };
}

export function formatRate(v) {
  return v >= 10 ? v.toFixed(0) : v >= 1 ? v.toFixed(1) : v.toFixed(2);
}
