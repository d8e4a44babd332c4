/** A small line chart as SVG text (no dependency): points joined per series, log or linear x axis. */
export interface Series {
  name: string;
  points: Array<[number, number]>;
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e'];

export function lineChart(options: { title: string; xLabel: string; yLabel: string; series: Series[]; logX?: boolean }): string {
  const W = 560;
  const H = 340;
  const L = 70;
  const R = 150;
  const T = 40;
  const B = 50;
  const all = options.series.flatMap((s) => s.points).filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
  const fx = (x: number) => (options.logX ? Math.log10(x) : x);
  const xs = all.map(([x]) => fx(x));
  const x0 = Math.min(...xs);
  const x1 = Math.max(...xs) === x0 ? x0 + 1 : Math.max(...xs);
  const y1 = Math.max(...all.map(([, y]) => y)) * 1.1 || 1;
  const px = (x: number) => L + ((fx(x) - x0) / (x1 - x0)) * (W - L - R);
  const py = (y: number) => H - B - (y / y1) * (H - T - B);
  const esc = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="20" text-anchor="middle" font-size="14">${esc(options.title)}</text>`,
    `<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="black"/>`,
    `<line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="black"/>`,
    `<text x="${(L + W - R) / 2}" y="${H - 10}" text-anchor="middle">${esc(options.xLabel)}</text>`,
    `<text x="15" y="${(T + H - B) / 2}" text-anchor="middle" transform="rotate(-90 15 ${(T + H - B) / 2})">${esc(options.yLabel)}</text>`,
  ];
  for (let i = 0; i <= 4; i++) {
    const y = (y1 * i) / 4;
    out.push(
      `<line x1="${L - 4}" y1="${py(y)}" x2="${W - R}" y2="${py(y)}" stroke="#ddd"/>`,
      `<text x="${L - 6}" y="${py(y) + 4}" text-anchor="end">${fmt(y)}</text>`,
    );
  }
  for (const x of [...new Set(all.map(([x]) => x))]) out.push(`<text x="${px(x)}" y="${H - B + 16}" text-anchor="middle">${fmt(x)}</text>`);
  options.series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const pts = s.points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
    if (pts.length > 1)
      out.push(
        `<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' ')}"/>`,
      );
    for (const [x, y] of pts) out.push(`<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="3" fill="${color}"/>`);
    out.push(
      `<rect x="${W - R + 10}" y="${T + i * 18}" width="12" height="3" fill="${color}"/>`,
      `<text x="${W - R + 28}" y="${T + i * 18 + 5}">${esc(s.name)}</text>`,
    );
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}

function fmt(v: number): string {
  if (v >= 1000) return `${Math.round(v / 100) / 10}k`;
  if (v >= 10) return String(Math.round(v));
  return String(Math.round(v * 100) / 100);
}
