// The chart of CPU load and memory use over the last 10 minutes (uPlot, ~20 KB gzipped:
// canvas drawing, no inline styles beyond CSSOM properties, which the CSP allows).
import type uPlot from 'uplot';

const WINDOW_S = 600;
const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });

let library: Promise<typeof uPlot> | undefined;

/** uPlot from /ui/uplot.js (src/browser/uplot-global.ts), fetched on first use. */
function loadUplot(): Promise<typeof uPlot> {
  return (library ??= new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = '/ui/uplot.js';
    script.onload = () => resolve((window as unknown as { uPlot: typeof uPlot }).uPlot);
    script.onerror = () => {
      library = undefined; // a later chart tries again
      reject(new Error('the chart script could not be loaded'));
    };
    document.head.append(script);
  }));
}

function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || 'gray';
}

export interface Chart {
  el: HTMLElement;
  push(timeS: number, cpuPercent: number | null, memoryPercent: number | null): void;
  destroy(): void;
}

export function chart(): Chart {
  const el = document.createElement('div');
  el.className = 'chart';
  el.setAttribute('role', 'img');
  el.setAttribute('aria-label', 'Chart of CPU load and memory use, in percent, over the last 10 minutes');
  const data: [number[], (number | null)[], (number | null)[]] = [[], [], []];
  let plot: uPlot | undefined;
  let last = 0;
  let destroyed = false;

  let loading = false;
  const make = (UPlot: typeof uPlot) => {
    const fg = cssVar('--muted');
    const grid = cssVar('--line');
    const axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    plot = new UPlot(
      {
        width: Math.max(200, el.clientWidth),
        height: 180,
        legend: { show: false },
        cursor: { show: false },
        scales: { x: { time: true, range: () => [last - WINDOW_S, last] }, y: { range: [0, 100] } },
        axes: [
          { ...axis, space: 80, values: (_u, ticks) => ticks.map((t) => clock.format(t * 1000)) },
          { ...axis, size: 60, values: (_u, ticks) => ticks.map((v) => `${v} %`) },
        ],
        series: [
          {},
          { label: 'CPU load', stroke: cssVar('--cpu'), width: 2, spanGaps: true },
          { label: 'Memory', stroke: cssVar('--mem'), width: 2, spanGaps: true },
        ],
      },
      data,
      el,
    );
  };
  const resize = new ResizeObserver(() => {
    if (plot && el.clientWidth > 0) plot.setSize({ width: el.clientWidth, height: 180 });
  });
  resize.observe(el);

  return {
    el,
    push(t, cpu, mem) {
      last = t;
      data[0].push(t);
      data[1].push(cpu);
      data[2].push(mem);
      while (data[0].length > 0 && data[0][0]! < t - WINDOW_S) for (const s of data) s.shift();
      if (plot) plot.setData(data);
      else if (!loading && el.isConnected) {
        loading = true;
        loadUplot().then(
          (UPlot) => {
            if (!destroyed) make(UPlot);
          },
          () => {
            loading = false;
          },
        );
      }
    },
    destroy() {
      destroyed = true;
      resize.disconnect();
      plot?.destroy();
    },
  };
}
