// The deliverable's five charts and the dashboard's bars, drawn as SVG from the data they are given:
// no chart library, no remote asset. Each chart is a <figure> whose SVG has role="img" and a text
// alternative that says the figures, and carries data-chart with its name.
import { h, s } from './dom.js';
import { currentLang, num, words } from './i18n.js';
import { findingType, topicName } from './labels.js';

type Json = Record<string, unknown>;

const fr = () => currentLang() === 'fr';
const L = (f: string, e: string) => (fr() ? f : e);

function figure(name: string, title: string, svg: SVGElement, summary: string): HTMLElement {
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', `${title}. ${summary}`);
  return h('figure', { class: 'chart', 'data-chart': name }, svg, h('figcaption', { class: 'muted' }, title));
}

/** A text split at the last space before `n` characters: the first line and the rest. */
function splitAt(text: string, n: number): [string, string] {
  if (text.length <= n) return [text, ''];
  const at = text.lastIndexOf(' ', n);
  const i = at > 0 ? at : n;
  return [text.slice(0, i), text.slice(i).trim()];
}

function cut(text: string, n: number): string {
  return text.length > n ? `${text.slice(0, n - 1)}…` : text;
}

/** Horizontal bars: one row per label, values to scale, the figure written at the end of each bar. */
export function bars(name: string, title: string, rows: { label: string; value: number; part?: number }[], opts: { partLabel?: string } = {}): HTMLElement {
  const w = 460;
  const row = 24;
  const left = 170;
  const max = Math.max(1, ...rows.map((r) => r.value));
  // Drawn at its own scale (at most its view box wide), so figures read the same in a narrow or a wide host.
  const svg = s('svg', { viewBox: `0 0 ${w} ${rows.length * row + 8}`, width: '100%', style: `max-width:${w}px` });
  const room = w - left - 64;
  rows.forEach((r, i) => {
    const y = i * row + 4;
    const len = (room * r.value) / max;
    svg.append(
      s('text', { x: left - 6, y: y + 15, 'text-anchor': 'end' }, cut(r.label, 28)),
      s('rect', { x: left, y: y + 3, width: Math.max(len, 1), height: row - 8, rx: 3, fill: 'var(--accent)', opacity: r.part === undefined ? 0.85 : 0.35 }),
    );
    if (r.part !== undefined)
      svg.append(s('rect', { x: left, y: y + 3, width: ((w - left - 40) * r.part) / max, height: row - 8, rx: 3, fill: 'var(--accent)' }));
    svg.append(s('text', { x: left + len + 6, y: y + 15 }, r.part === undefined ? num(r.value) : `${num(r.part)}/${num(r.value)}`));
  });
  const summary = rows.map((r) => `${r.label}: ${r.part === undefined ? r.value : `${r.part} ${opts.partLabel ?? ''} / ${r.value}`}`).join('; ');
  return figure(name, title, svg, summary);
}

/** Interviews per department, the completed ones in full colour. */
export function coverageBars(title: string, interviews: Json[]): HTMLElement {
  const by = new Map<string, { value: number; part: number }>();
  for (const i of interviews) {
    const k = String(i.department ?? L('Non renseigné', 'Not given'));
    const g = by.get(k) ?? { value: 0, part: 0 };
    g.value += 1;
    if (i.status === 'completed') g.part += 1;
    by.set(k, g);
  }
  return bars(
    'coverage_bars',
    title,
    [...by].map(([label, g]) => ({ label, ...g })),
    { partLabel: L('terminés', 'completed') },
  );
}

/** Findings per topic (deliverable category), the validated ones in full colour. */
export function topicCoverage(title: string, topics: Json[]): HTMLElement {
  const rows = topics.map((t) => ({
    label: t.topic ? topicName(t.topic) : L('sans thème', 'no topic'),
    value: Number(t.findings ?? 0),
    part: Number(t.validated ?? 0),
  }));
  return bars('topic_coverage', title, rows, { partLabel: L('validés', 'validated') });
}

/** Pain findings by process step (rows) and pain type (columns); darker cells hold more findings. */
export function painHeatmap(title: string, steps: Json[], findings: Json[]): HTMLElement {
  const types = [...new Set(findings.map((f) => String(f.type)))];
  const stepRows = [...steps.map((st) => ({ id: String(st.id), name: String(st.name ?? st.id) })), { id: '', name: L('Sans étape', 'No step') }];
  const count = (step: string, type: string) => findings.filter((f) => String(f.step_id ?? '') === step && String(f.type) === type).length;
  const rows = stepRows.filter((r) => types.some((t) => count(r.id, t) > 0));
  const max = Math.max(1, ...rows.flatMap((r) => types.map((t) => count(r.id, t))));
  const left = 170;
  const cw = Math.max(44, Math.floor(300 / Math.max(1, types.length)));
  const top = 56;
  const svg = s('svg', { viewBox: `0 0 ${left + types.length * cw + 4} ${top + rows.length * 26 + 4}`, width: '100%' });
  types.forEach((t, j) => {
    const x = left + j * cw + cw / 2;
    svg.append(s('text', { x, y: top - 8, 'text-anchor': 'middle', transform: `rotate(-25 ${x} ${top - 8})` }, cut(findingType(t), 16)));
  });
  const parts: string[] = [];
  rows.forEach((r, i) => {
    const y = top + i * 26;
    svg.append(s('text', { x: left - 6, y: y + 17, 'text-anchor': 'end' }, cut(r.name, 28)));
    types.forEach((t, j) => {
      const n = count(r.id, t);
      svg.append(
        s('rect', {
          x: left + j * cw + 1,
          y: y + 1,
          width: cw - 2,
          height: 24,
          rx: 3,
          fill: n ? 'var(--bad)' : 'var(--bg2)',
          opacity: n ? 0.25 + (0.75 * n) / max : 1,
        }),
      );
      if (n) {
        svg.append(s('text', { x: left + j * cw + cw / 2, y: y + 17, 'text-anchor': 'middle' }, String(n)));
        parts.push(`${r.name}, ${findingType(t)}: ${n}`);
      }
    });
  });
  return figure('pain_heatmap', title, svg, parts.join('; '));
}

const LEVELS = ['low', 'medium', 'high'];
const levelName = (v: string) => ({ low: L('faible', 'low'), medium: L('moyen', 'medium'), high: L('fort', 'high') })[v] ?? v;

/** Opportunities placed by effort (across) and gain (up), numbered as in the list below the chart. */
export function gainEffortMatrix(title: string, items: Json[]): HTMLElement {
  const size = 340;
  const pad = 84;
  const cell = (size - pad) / 3;
  const svg = s('svg', { viewBox: `0 0 ${size + 10} ${size - pad + 44}`, width: '100%', style: 'max-width:440px' });
  for (let gx = 0; gx < 3; gx++)
    for (let gy = 0; gy < 3; gy++)
      svg.append(
        s('rect', {
          x: pad + gx * cell,
          y: gy * cell,
          width: cell,
          height: cell,
          fill: gx === 0 && gy === 0 ? 'var(--ok)' : 'var(--bg2)',
          opacity: gx === 0 && gy === 0 ? 0.18 : 1,
          stroke: 'var(--line)',
        }),
      );
  LEVELS.forEach((lv, i) => {
    svg.append(s('text', { x: pad + i * cell + cell / 2, y: size - pad + 16, 'text-anchor': 'middle' }, levelName(lv)));
    svg.append(s('text', { x: pad - 6, y: (2 - i) * cell + cell / 2, 'text-anchor': 'end' }, levelName(lv)));
  });
  svg.append(s('text', { x: pad + (size - pad) / 2, y: size - pad + 32, 'text-anchor': 'middle' }, L('Effort', 'Effort')));
  svg.append(s('text', { x: 14, y: (size - pad) / 2, transform: `rotate(-90 14 ${(size - pad) / 2})`, 'text-anchor': 'middle' }, L('Gain', 'Gain')));
  const placed = new Map<string, number>();
  const list = h('ol', { class: 'legend' });
  items.forEach((it, n) => {
    const gx = LEVELS.indexOf(String(it.effort));
    const gy = 2 - LEVELS.indexOf(String(it.gain));
    const key = `${gx},${gy}`;
    const k = placed.get(key) ?? 0;
    placed.set(key, k + 1);
    const cx = pad + Math.max(0, gx) * cell + 18 + (k % 3) * 26;
    const cy = Math.max(0, gy) * cell + 22 + Math.floor(k / 3) * 26;
    svg.append(
      s('circle', { cx, cy, r: 10, fill: 'var(--accent)' }),
      s('text', { x: cx, y: cy + 4, 'text-anchor': 'middle', style: 'fill:#fff' }, String(n + 1)),
    );
    list.append(
      h('li', {}, `${String(it.title)} (${L('gain', 'gain')} ${levelName(String(it.gain))}, ${L('effort', 'effort')} ${levelName(String(it.effort))})`),
    );
  });
  const fig = figure(
    'gain_effort_matrix',
    title,
    svg,
    items.map((it, n) => `${n + 1}. ${String(it.title)}: gain ${String(it.gain)}, effort ${String(it.effort)}`).join('; '),
  );
  fig.append(list);
  return fig;
}

const HORIZONS = ['quick_win', 'mid_term', 'long_term'];
const horizonName = (v: string) =>
  ({ quick_win: L('Gains rapides', 'Quick wins'), mid_term: L('Moyen terme', 'Mid term'), long_term: L('Long terme', 'Long term') })[v] ?? words(v);

/** Opportunities in lanes by horizon, from quick wins to the long term. */
export function roadmapLanes(title: string, items: Json[]): HTMLElement {
  const lanes = [...HORIZONS, ...new Set(items.map((i) => String(i.horizon)).filter((x) => !HORIZONS.includes(x)))];
  const laneW = 200;
  const rowH = 52;
  const maxIn = Math.max(1, ...lanes.map((l) => items.filter((i) => String(i.horizon) === l).length));
  const svg = s('svg', { viewBox: `0 0 ${lanes.length * laneW} ${40 + maxIn * rowH}`, width: '100%' });
  lanes.forEach((lane, j) => {
    const x = j * laneW;
    svg.append(s('rect', { x: x + 2, y: 0, width: laneW - 4, height: 40 + maxIn * rowH, rx: 6, fill: 'var(--bg2)' }));
    svg.append(s('text', { x: x + 10, y: 22, style: 'font-weight:600' }, horizonName(lane)));
    items
      .filter((i) => String(i.horizon) === lane)
      .forEach((it, k) => {
        const y = 34 + k * rowH;
        svg.append(s('rect', { x: x + 8, y, width: laneW - 16, height: rowH - 6, rx: 4, fill: 'var(--bg)', stroke: 'var(--accent)' }));
        // The title on two lines of the lane's width, the second cut if it runs longer.
        const [first, rest] = splitAt(String(it.title), 30);
        svg.append(s('text', { x: x + 14, y: y + 19 }, first), s('text', { x: x + 14, y: y + 36 }, cut(rest, 30)));
      });
  });
  const summary = lanes
    .map(
      (l) =>
        `${horizonName(l)}: ${
          items
            .filter((i) => String(i.horizon) === l)
            .map((i) => String(i.title))
            .join(', ') || '-'
        }`,
    )
    .join('; ');
  return figure('roadmap_lanes', title, svg, summary);
}

/** A progress bar with its percentage, for a run or a job. */
export function progress(label: string, pct: number): HTMLElement {
  const v = Math.max(0, Math.min(100, Math.round(pct)));
  return h(
    'div',
    { class: 'progress', role: 'progressbar', 'aria-label': label, 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': v },
    h('span', { style: `width:${v}%` }),
    h('em', {}, `${v} %`),
  );
}
