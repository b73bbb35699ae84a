// A uPlot chart as a Preact component: made once, given new data on every render, resized with its box.
import { html, useEffect, useRef } from './lib.js';
import uPlot from './uplot.js';

/** series: [{label, stroke, dash?, scale?}]; data: [xs (epoch s), ...ys]; axes: uPlot axes or null. */
export function Plot({ id, testid, series, data, axes, height = 220, label }) {
  const box = useRef(null);
  const plot = useRef(null);
  const shape = JSON.stringify(series.map((s) => [s.label, s.scale || 'y']));
  useEffect(() => {
    const width = Math.max(200, box.current.clientWidth);
    plot.current = new uPlot({
      width, height,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.stroke, dash: s.dash, width: 2, scale: s.scale || 'y',
        points: { show: false } }))],
      axes: axes || [{}, {}],
      scales: { x: { time: true } },
    }, data, box.current);
    const resize = new ResizeObserver(() => {
      const w = box.current ? box.current.clientWidth : 0;
      if (w > 0 && plot.current) {
        plot.current.setSize({ width: w, height });
      }
    });
    resize.observe(box.current);
    return () => {
      resize.disconnect();
      plot.current.destroy();
      plot.current = null;
    };
  }, [shape, height]);
  useEffect(() => {
    if (plot.current) {
      plot.current.setData(data);
    }
  }, [data]);
  return html`<div id=${id} data-testid=${testid} class="plot" ref=${box} role="img" aria-label=${label}></div>`;
}
