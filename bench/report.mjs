// Turns the measured rows into a Markdown table and an SVG chart of the ratios.

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * The ratio of two contenders measured in pairs (the agent's i-th figure beside its
 * baseline's i-th, run back to back): the median of the pair ratios, so that a change of
 * the host's speed between pairs cancels out. Unpaired: the ratio of the medians.
 */
export function pairRatio(agent, baseline) {
  if (agent.length !== baseline.length) return median(agent) / median(baseline);
  return median(pairRatios(agent, baseline));
}

/** Each pair's ratio, agent over baseline, in the order run. */
export function pairRatios(agent, baseline) {
  return agent.map((a, i) => a / baseline[i]);
}

const fmt = (x, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');
const range = (xs, d) => `${fmt(median(xs), d)} (${fmt(Math.min(...xs), d)}–${fmt(Math.max(...xs), d)})`;

/**
 * rows: { figure, unit, agent: number[], baseline?: number[], baselineName?,
 *         target: string, ok: boolean, aim?: boolean, digits? }
 * A row with `aim` has a figure to report and an aim for it (the "report; aim ≤ x"),
 * not a target: missed, it says so as "aim missed", apart from a missed target's "no".
 */
/**
 * A memory figure over a baseline, in MB, as two rows: as measured (reported), then less the
 * executable's code pages it faulted in (bench/procs.mjs, codeRssKb: paged in once per
 * process, clean and shared), which carries the target `≤ +limit MB`.
 */
export function lessCodeRows({ figure, mb, codeMb, pages, limit, target = `≤ +${limit} MB` }) {
  const held = mb - codeMb;
  return [
    { figure, unit: 'MB', agent: [mb], target: `report (≤ +${limit} MB less code, next row)`, ok: true },
    { figure: `the same, less the executable's code pages ${pages}`, unit: 'MB', agent: [held], target, ok: held <= limit },
  ];
}

export function table(rows) {
  const lines = ['| figure | agent | baseline | ratio | target | met |', '|---|---|---|---|---|---|'];
  for (const r of rows) {
    const d = r.digits ?? 1;
    const base = r.baseline ? `${range(r.baseline, d)} ${r.unit} (${r.baselineName})` : '—';
    const ratio = r.baseline ? fmt(pairRatio(r.agent, r.baseline), 2) : '—';
    lines.push(
      `| ${r.figure} | ${range(r.agent, d)} ${r.unit} | ${base} | ${ratio} | ${r.target} | ${r.ok ? 'yes' : r.aim ? '**aim missed**' : '**no**'} |`,
    );
  }
  return lines.join('\n');
}

/** A horizontal bar per ratio, with the target marked. */
export function svg(bars) {
  const w = 720;
  const rowH = 34;
  const left = 300;
  const scale = (w - left - 40) / 2; // ratio 2.0 fills the width
  const h = 40 + bars.length * rowH + 20;
  const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" font-family="sans-serif" font-size="13">`,
    `<rect width="${w}" height="${h}" fill="white"/>`,
    `<text x="10" y="22" font-weight="bold">device-agent / baseline (median of rounds; dashed line: target)</text>`,
  ];
  bars.forEach((b, i) => {
    const y = 40 + i * rowH;
    const len = Math.max(0, Math.min(b.ratio, 2)) * scale;
    parts.push(`<text x="10" y="${y + 17}">${esc(b.label)}</text>`);
    parts.push(`<rect x="${left}" y="${y + 4}" width="${len.toFixed(1)}" height="18" fill="${b.ok ? '#3a7d44' : '#b33a3a'}"/>`);
    parts.push(`<text x="${left + len + 6}" y="${y + 17}">${b.ratio.toFixed(2)}</text>`);
    const tx = left + b.target * scale;
    parts.push(`<line x1="${tx}" x2="${tx}" y1="${y + 1}" y2="${y + 25}" stroke="black" stroke-dasharray="3,2"/>`);
  });
  const one = left + scale;
  parts.push(`<line x1="${one}" x2="${one}" y1="34" y2="${h - 14}" stroke="#888"/>`);
  parts.push(`<text x="${one - 8}" y="${h - 2}" fill="#555">1.0</text>`);
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}
