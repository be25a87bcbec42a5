// The document preview: one deliverable document as the client will see it. Every block type of
// the API (heading, paragraph, message, key figures, item list, table, chart, process, quote,
// callout), the five charts drawn from the figures they name, refs linked to the findings and
// evidences they cite, and which documents the deliverable includes or leaves out.
import { coverageBars, gainEffortMatrix, painHeatmap, roadmapLanes, topicCoverage } from '../shared/charts.js';
import { h } from '../shared/dom.js';
import { freshResult, rec, startView, type ToolResultLike } from '../shared/host.js';
import { tr, words } from '../shared/i18n.js';

type Json = Record<string, unknown>;

const T = {
  included: { fr: 'inclus', en: 'included' },
  excluded: { fr: 'exclu', en: 'excluded' },
  documents: { fr: 'Documents du livrable', en: 'Documents of the deliverable' },
  excludedDoc: { fr: 'Ce document est exclu du livrable.', en: 'This document is left out of the deliverable.' },
  refs: { fr: 'Sources', en: 'Cites' },
  unknown: { fr: 'élément introuvable', en: 'item not found' },
  participant: { fr: 'Participant', en: 'Participant' },
  notPublishable: { fr: 'non publiable (constat non validé)', en: 'not publishable (finding not validated)' },
} as const;

const root = document.getElementById('view') as HTMLElement;
const arr = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);
const text = (v: unknown) => (typeof v === 'string' ? v : '');

interface Ctx {
  /** Anchors the document itself holds (an item of a list, a quote): a ref to one is a link to it. */
  anchors: Set<string>;
  records: Record<string, Record<string, Json>>;
  data: Json;
  /** Opportunities known from the charts' figures: their titles for item lists. */
  opportunities: Map<string, Json>;
}

/** The words of a record a block cites, and its anchor when the preview shows it. */
function labelOf(ctx: Ctx, type: string, id: string): string {
  const r = ctx.records[type]?.[id] ?? (type === 'opportunity' ? ctx.opportunities.get(id) : undefined);
  if (!r) return `${words(type)} ${id} (${tr(T, 'unknown')})`;
  return text(r.statement) || text(r.title) || text(r.topic) || text(r.excerpt) || id;
}

/**
 * A ref as the reader follows it: a link to the item or quote when the document shows it, else a
 * disclosure that opens on the cited finding's statement or evidence's excerpt.
 */
function refLink(ctx: Ctx, type: string, id: string): HTMLElement {
  const name = `${words(type)} ${id.slice(-6)}`;
  if (ctx.anchors.has(`${type}-${id}`))
    return h('a', { class: 'ref', href: `#${type}-${id}`, 'data-ref': `${type}:${id}`, title: labelOf(ctx, type, id) }, name);
  return h('details', { class: 'ref', 'data-ref': `${type}:${id}` }, h('summary', {}, name), h('span', {}, labelOf(ctx, type, id)));
}

/** The anchors the blocks will hold, known before they are drawn (a ref may come before its target). */
function anchorsOf(blocks: Json[]): Set<string> {
  const out = new Set<string>();
  for (const b of blocks) {
    if (b.type === 'item_list') for (const id of Array.isArray(b.ids) ? b.ids : []) out.add(`${text(b.item_type) || 'finding'}-${String(id)}`);
    if (b.type === 'quote' && text(b.evidence_id)) out.add(`evidence-${text(b.evidence_id)}`);
    if (b.type === 'process') for (const st of arr(rec(b.options).steps)) out.add(`process_step-${String(st.id)}`);
  }
  return out;
}

function chart(b: Json, ctx: Ctx): HTMLElement {
  const title = text(b.title) || words(b.chart);
  const opts = rec(b.options);
  switch (b.chart) {
    case 'coverage_bars':
      return coverageBars(title, arr(ctx.data.interviews));
    case 'topic_coverage':
      return topicCoverage(title, arr(ctx.data.topics));
    case 'pain_heatmap':
      return painHeatmap(title, arr(opts.steps), arr(ctx.data.pain_findings));
    case 'gain_effort_matrix':
      return gainEffortMatrix(title, arr(opts.items));
    case 'roadmap_lanes':
      return roadmapLanes(title, arr(opts.items));
    default:
      return h('p', { class: 'muted' }, `[${title}]`);
  }
}

function block(b: Json, ctx: Ctx): HTMLElement {
  const el = (() => {
    switch (b.type) {
      case 'heading': {
        const level = Math.min(4, Math.max(2, Number(b.level ?? 1) + 1));
        return h(`h${level}` as 'h2', {}, text(b.text) || text(b.title));
      }
      case 'paragraph':
        return h('div', {}, b.title ? h('h3', {}, text(b.title)) : null, h('p', {}, text(b.text)));
      case 'message':
        return h('p', { class: 'message' }, text(b.text));
      case 'key_figures':
        return h('div', {}, b.title ? h('h3', {}, text(b.title)) : null, h('ul', { class: 'key-figures' }, ...arr(b.items).map((i) => h('li', {}, String(i)))));
      case 'item_list': {
        const type = text(b.item_type) || 'finding';
        const ids = (Array.isArray(b.ids) ? b.ids : []).map(String);
        const items = ids.map((id) => {
          const r = ctx.records[type]?.[id];
          const note = type === 'finding' && r && r.review_status !== 'validated' ? h('span', { class: 'chip' }, tr(T, 'notPublishable')) : null;
          return h('li', { id: `${type}-${id}`, 'data-item': `${type}:${id}` }, labelOf(ctx, type, id), ' ', note);
        });
        for (const extra of Array.isArray(b.items) ? b.items : []) items.push(h('li', {}, String(extra)));
        return h('div', {}, b.title ? h('h3', {}, text(b.title)) : null, h(b.display === 'compact' ? 'ul' : 'ol', {}, ...items));
      }
      case 'table': {
        const o = rec(b.options);
        const cols = (Array.isArray(o.columns) ? o.columns : []).map(String);
        const rows = (Array.isArray(o.rows) ? o.rows : []) as unknown[][];
        return h(
          'table',
          {},
          b.title ? h('caption', {}, text(b.title)) : null,
          h('thead', {}, h('tr', {}, ...cols.map((c) => h('th', { scope: 'col' }, c)))),
          h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((c) => h('td', {}, String(c ?? '')))))),
        );
      }
      case 'chart':
        return chart(b, ctx);
      case 'process': {
        const steps = arr(rec(b.options).steps);
        return h(
          'div',
          {},
          h('h3', {}, text(b.title) || words('process')),
          h(
            'ol',
            { class: 'process', 'aria-label': text(b.title) || 'process' },
            ...steps.map((st) => h('li', { id: `process_step-${String(st.id)}` }, String(st.name ?? st.id))),
          ),
        );
      }
      case 'quote': {
        const id = text(b.evidence_id);
        const e = id ? ctx.records.evidence?.[id] : undefined;
        const said = text(b.text) || text(e?.excerpt);
        return h(
          'blockquote',
          { class: 'quote', id: id ? `evidence-${id}` : undefined },
          h('p', {}, `« ${said} »`),
          h('footer', {}, `— ${text(e?.role) || tr(T, 'participant')}`, id ? ' · ' : '', id ? refLink(ctx, 'evidence', id) : null),
        );
      }
      case 'callout':
        return h(
          'aside',
          { class: `callout ${text(b.tone) || 'info'}`, role: 'note' },
          b.title ? h('strong', {}, text(b.title)) : null,
          h('p', {}, text(b.text)),
        );
      default:
        return h('p', { class: 'muted' }, text(b.text) || words(b.type));
    }
  })();
  const wrap = h('section', { class: 'block', 'data-block': String(b.type), 'data-block-id': text(b.id) || undefined }, el);
  const refs = arr(b.refs);
  if (refs.length)
    wrap.append(h('p', { class: 'refs muted' }, `${tr(T, 'refs')}: `, ...refs.flatMap((r, i) => [i ? ', ' : '', refLink(ctx, String(r.type), String(r.id))])));
  return wrap;
}

function render(r: ToolResultLike): void {
  const o = freshResult(root, r, 'No document.');
  if (!o) return;
  const doc = rec(o.document);
  const blocks = arr(doc.blocks);
  const opportunities = new Map<string, Json>();
  for (const b of blocks) for (const it of arr(rec(b.options).items)) opportunities.set(String(it.id), it);
  const ctx: Ctx = { anchors: anchorsOf(blocks), records: rec(o.records) as Ctx['records'], data: rec(o.data), opportunities };
  const docs = arr(o.documents);
  root.append(
    h(
      'nav',
      { 'aria-label': tr(T, 'documents') },
      h(
        'ul',
        { class: 'docs' },
        ...docs.map((d) => {
          const inc = d.included === true;
          return h(
            'li',
            {
              class: `chip ${inc ? 'included' : 'excluded'}${d.kind === doc.kind ? ' current' : ''}`,
              'data-document': String(d.kind),
              'data-included': String(inc),
              'aria-current': d.kind === doc.kind ? 'page' : undefined,
            },
            `${text(d.title) || words(d.kind)} (${tr(T, inc ? 'included' : 'excluded')})`,
          );
        }),
      ),
    ),
  );
  const article = h('article', { class: 'doc', 'aria-label': text(doc.title) });
  if (doc.included !== true) article.append(h('p', { class: 'callout caution', role: 'note' }, tr(T, 'excludedDoc')));
  for (const b of blocks) article.append(block(b, ctx));
  root.append(article);
}

void startView('document-preview', render);
