import { escapeHtml } from './render.js';

// Slack's chart block (`data_visualization`) drawn as inline SVG on the sandbox page, with no
// library: the title, then a bar chart (series grouped by category), a line or an area chart (areas
// layered in array order, first at the back) with its axes, axis titles and category labels, or a
// pie. A legend names the series (or the slices) when there is more than one. Pure functions.

const COLORS = ['#1264a3', '#2bac76', '#e8912d', '#cd2553', '#7c3085', '#4a4a4a'];
const W = 560;
const H = 260;
const PAD = { left: 64, right: 16, top: 16, bottom: 56 };

/** A value as an axis tick shows it: 1.2k, 3.4M. */
export function shortNumber(value) {
  const abs = Math.abs(value);
  if (abs >= 1e6) return `${+(value / 1e6).toFixed(1)}M`;
  if (abs >= 1e3) return `${+(value / 1e3).toFixed(1)}k`;
  return String(+value.toFixed(2));
}

/** Round ticks from the lowest value (or 0) to the highest (or 0). */
export function ticks(min, max, count = 4) {
  const low = Math.min(0, min);
  const high = Math.max(0, max);
  if (low === high) return [0, 1];
  const raw = (high - low) / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const result = [];
  for (let t = Math.floor(low / step) * step; t < high + step; t += step) result.push(+t.toFixed(10));
  return result;
}

/** The names beside their colour (the page's policy allows no inline style: an SVG swatch). */
function legend(names, always = false) {
  if (names.length < 2 && !always) return '';
  return `<ul class="chart-legend">${names
    .map(
      (name, i) =>
        `<li><svg class="swatch" viewBox="0 0 10 10" aria-hidden="true"><rect width="10" height="10" fill="${COLORS[i % COLORS.length]}"></rect></svg>${escapeHtml(name)}</li>`,
    )
    .join('')}</ul>`;
}

function cartesian(chart) {
  const categories = chart.axis_config?.categories ?? [];
  const series = chart.series ?? [];
  const pointValue = (one, category) => one.data?.find((point) => point.label === category)?.value;
  const values = series.flatMap((one) => categories.map((c) => pointValue(one, c))).filter(Number.isFinite);
  const axis = ticks(Math.min(...values, 0), Math.max(...values, 0));
  const low = axis[0];
  const high = axis.at(-1);
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const y = (value) => PAD.top + plotH - ((value - low) / (high - low)) * plotH;
  const slot = plotW / Math.max(categories.length, 1);
  const x = (i) => PAD.left + slot * (i + 0.5);
  const parts = [];
  for (const t of axis)
    parts.push(
      `<line class="grid" x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(t)}" y2="${y(t)}"></line><text class="tick" x="${PAD.left - 6}" y="${y(t) + 4}" text-anchor="end">${shortNumber(t)}</text>`,
    );
  // Every label while they fit, else every nth (a hover title still names each point).
  const every = Math.ceil(categories.length / 12);
  categories.forEach((c, i) => {
    if (i % every === 0)
      parts.push(
        `<text class="category" x="${x(i)}" y="${H - PAD.bottom + 16}" text-anchor="middle">${escapeHtml(c)}</text>`,
      );
  });
  series.forEach((one, s) => {
    const color = COLORS[s % COLORS.length];
    const points = categories.map((c, i) => [i, pointValue(one, c)]).filter(([, v]) => Number.isFinite(v));
    const title = (c, v) => `<title>${escapeHtml(`${one.name}, ${c}: ${v}`)}</title>`;
    if (chart.type === 'bar') {
      const width = (slot * 0.8) / series.length;
      for (const [i, v] of points) {
        const left = PAD.left + slot * i + slot * 0.1 + width * s;
        const top = Math.min(y(v), y(0));
        parts.push(
          `<rect class="bar" x="${left}" y="${top}" width="${width}" height="${Math.abs(y(v) - y(0))}" fill="${color}">${title(categories[i], v)}</rect>`,
        );
      }
      return;
    }
    const path = points.map(([i, v]) => `${x(i)},${y(v)}`).join(' ');
    if (chart.type === 'area' && points.length > 0) {
      const base = `${x(points.at(-1)[0])},${y(0)} ${x(points[0][0])},${y(0)}`;
      parts.push(
        `<polygon class="area" points="${path} ${base}" fill="${color}" fill-opacity="0.35" stroke="${color}"></polygon>`,
      );
    } else
      parts.push(
        `<polyline class="line" points="${path}" fill="none" stroke="${color}" stroke-width="2"></polyline>`,
      );
    for (const [i, v] of points)
      parts.push(
        `<circle cx="${x(i)}" cy="${y(v)}" r="2.5" fill="${color}">${title(categories[i], v)}</circle>`,
      );
  });
  parts.push(`<line class="axis" x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(0)}" y2="${y(0)}"></line>`);
  const { x_label: xLabel, y_label: yLabel } = chart.axis_config ?? {};
  if (xLabel)
    parts.push(
      `<text class="axis-title" x="${PAD.left + plotW / 2}" y="${H - 8}" text-anchor="middle">${escapeHtml(xLabel)}</text>`,
    );
  if (yLabel)
    parts.push(
      `<text class="axis-title" transform="translate(14 ${PAD.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escapeHtml(yLabel)}</text>`,
    );
  return { svg: parts.join(''), legend: legend(series.map((one) => one.name ?? '')) };
}

function pie(chart) {
  const segments = (chart.segments ?? []).filter((s) => Number.isFinite(s.value) && s.value > 0);
  const total = segments.reduce((sum, s) => sum + s.value, 0);
  const [cx, cy, r] = [W / 2, H / 2, H / 2 - 16];
  let angle = -Math.PI / 2;
  const parts = segments.map((segment, i) => {
    const share = segment.value / total;
    const end = angle + share * 2 * Math.PI;
    const point = (a) => `${cx + r * Math.cos(a)} ${cy + r * Math.sin(a)}`;
    const title = `<title>${escapeHtml(`${segment.label}: ${segment.value} (${Math.round(share * 100)}%)`)}</title>`;
    const color = COLORS[i % COLORS.length];
    const shape =
      share >= 1
        ? `<circle class="slice" cx="${cx}" cy="${cy}" r="${r}" fill="${color}">${title}</circle>`
        : `<path class="slice" d="M ${cx} ${cy} L ${point(angle)} A ${r} ${r} 0 ${share > 0.5 ? 1 : 0} 1 ${point(end)} Z" fill="${color}">${title}</path>`;
    angle = end;
    return shape;
  });
  // A pie's legend always names its slices (a slice has no label of its own here).
  const names = segments.map((s) => `${s.label} (${Math.round((s.value / total) * 100)}%)`);
  return { svg: parts.join(''), legend: legend(names, true) };
}

export function renderChart(block) {
  const chart = block.chart ?? {};
  const drawn = chart.type === 'pie' ? pie(chart) : cartesian(chart);
  const title = escapeHtml(block.title ?? '');
  return `<figure class="block data-chart" data-chart-type="${escapeHtml(chart.type ?? '')}">
      <figcaption class="chart-title">${title}</figcaption>
      <svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${title}" xmlns="http://www.w3.org/2000/svg">${drawn.svg}</svg>
      ${drawn.legend}
    </figure>`;
}
