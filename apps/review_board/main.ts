// The review board: one card per finding with its evidences; validate, reject or reopen one or
// many, edit a statement or details in place. Every change is a call of the server's own tools
// through the host (review_findings, update_finding), and after each batch the model is told what
// was decided (ui/update-model-context). A read-only session gets the cards and no write control.
import type { App } from '@modelcontextprotocol/ext-apps';
import { append, h } from '../shared/dom.js';
import { startView, type ToolResultLike, textOf } from '../shared/host.js';
import { clock, num, tr, words } from '../shared/i18n.js';
import { findingType } from '../shared/labels.js';

type Json = Record<string, unknown>;
interface Evidence {
  id: string;
  excerpt: string;
  source_type: string;
  participant: string | null;
  role: string | null;
  interview: string | null;
  at_ms: number | null;
}
interface Finding {
  id: string;
  type: string;
  statement: string;
  details: string | null;
  quantity: Json | null;
  review_status: string;
  evidences: Evidence[];
}
interface Board {
  engagement: string;
  filter: { review_status: string; type: string | null };
  total: number;
  can_write: boolean;
  findings: Finding[];
}

const T = {
  title: { fr: 'Revue des constats', en: 'Finding review' },
  proposed: { fr: 'proposé', en: 'proposed' },
  validated: { fr: 'validé', en: 'validated' },
  rejected: { fr: 'rejeté', en: 'rejected' },
  status: { fr: 'Statut', en: 'Status' },
  type: { fr: 'Type', en: 'Type' },
  allTypes: { fr: 'Tous les types', en: 'All types' },
  validate: { fr: 'Valider', en: 'Validate' },
  reject: { fr: 'Rejeter', en: 'Reject' },
  reopen: { fr: 'Rouvrir', en: 'Reopen' },
  edit: { fr: 'Modifier', en: 'Edit' },
  save: { fr: 'Enregistrer', en: 'Save' },
  cancel: { fr: 'Annuler', en: 'Cancel' },
  select: { fr: 'Sélectionner', en: 'Select' },
  selectAll: { fr: 'Tout sélectionner', en: 'Select all' },
  selected: { fr: 'sélectionnés', en: 'selected' },
  statement: { fr: 'Énoncé', en: 'Statement' },
  details: { fr: 'Détails', en: 'Details' },
  quantity: { fr: 'Quantité', en: 'Quantity' },
  evidences: { fr: 'Preuves', en: 'Evidences' },
  passage: { fr: 'Passage de document', en: 'Document passage' },
  readOnly: { fr: 'Lecture seule : aucune décision possible dans cette session.', en: 'Read-only: nothing can be decided in this session.' },
  none: { fr: 'Aucun constat à afficher.', en: 'No finding to show.' },
  working: { fr: 'Envoi…', en: 'Sending…' },
  done: { fr: 'Enregistré', en: 'Saved' },
  failed: { fr: 'Échec', en: 'Failed' },
} as const;

const SOURCE_NAMES: Record<string, { fr: string; en: string }> = {
  transcript_segment: { fr: 'Transcription', en: 'Transcript' },
  artifact_chunk: T.passage,
  external_source_item: { fr: 'Source externe', en: 'External source' },
  recap_item: { fr: 'Récapitulatif', en: 'Recap' },
  screen_frame: { fr: "Capture d'écran", en: 'Screen frame' },
  pin: { fr: 'Repère', en: 'Pin' },
};

let app: App;
let board: Board | undefined;
let error = '';
let typeFilter = '';
const selected = new Set<string>();
const editing = new Set<string>();
const root = document.getElementById('board') as HTMLElement;
const status = document.getElementById('status') as HTMLElement;

function say(text: string): void {
  status.textContent = text;
}

const PLURAL = {
  proposed: { fr: 'proposés', en: 'proposed' },
  validated: { fr: 'validés', en: 'validated' },
  rejected: { fr: 'rejetés', en: 'rejected' },
} as const;

/** A status after a count: French agrees it with the count. */
function statusCounted(s: string, n: number): string {
  return n > 1 && (s === 'proposed' || s === 'validated' || s === 'rejected') ? tr(PLURAL, s) : statusName(s);
}

function statusName(s: string): string {
  return s === 'validated' || s === 'rejected' || s === 'proposed' ? tr(T, s) : words(s);
}

function sourceLine(e: Evidence): string {
  const kind = SOURCE_NAMES[e.source_type] ? tr(SOURCE_NAMES, e.source_type) : words(e.source_type);
  const who = [e.participant, e.role].filter(Boolean).join(', ');
  const when = e.at_ms !== null ? clock(e.at_ms) : '';
  return [kind, who, e.interview, when].filter(Boolean).join(' · ');
}

function quantityText(q: Json): string {
  return Object.entries(q)
    .map(([k, v]) => `${words(k)}: ${typeof v === 'number' ? num(v) : words(v)}`)
    .join(', ');
}

/** A server tool through the host; a host that refuses or fails answers as a tool error would. */
async function call(name: string, args: Record<string, unknown>): Promise<ToolResultLike> {
  try {
    return (await app.callServerTool({ name, arguments: args })) as ToolResultLike;
  } catch (err) {
    return { isError: true, content: [{ type: 'text', text: err instanceof Error ? err.message : String(err) }] };
  }
}

/** Decisions through review_findings, then the model told what was decided. */
async function decide(ids: string[], to: 'validated' | 'rejected' | 'proposed'): Promise<void> {
  if (!board || !ids.length) return;
  say(tr(T, 'working'));
  const res = await call('review_findings', { engagement: board.engagement, reviews: ids.map((finding) => ({ finding, review_status: to })) });
  const results = (res.structuredContent?.results as Json[] | undefined) ?? [];
  const applied = results.filter((r) => r.ok).map((r) => String(r.finding));
  if (!results.length) {
    say(`${tr(T, 'failed')}: ${textOf(res)}`);
    return;
  }
  for (const f of board.findings) if (applied.includes(f.id)) f.review_status = to;
  for (const id of applied) selected.delete(id);
  const failed = results.filter((r) => !r.ok);
  const lines = board.findings.filter((f) => applied.includes(f.id)).map((f) => `- ${f.id} "${f.statement}": now ${to}`);
  await app
    .updateModelContext({
      content: [
        {
          type: 'text',
          text: `On the review board of engagement ${board.engagement}, the user set ${applied.length} finding(s) to ${to}:\n${lines.join('\n')}${failed.length ? `\n${failed.length} not applied: ${failed.map((r) => `${String(r.finding)} (${String(r.error)})`).join(', ')}` : ''}`,
        },
      ],
      structuredContent: { engagement: board.engagement, decided: applied.map((finding) => ({ finding, review_status: to })) },
    })
    .catch(() => {});
  say(`${tr(T, 'done')}: ${applied.length} → ${statusName(to)}${failed.length ? ` · ${tr(T, 'failed')}: ${failed.length}` : ''}`);
  render();
}

async function saveEdit(f: Finding, statement: string, details: string): Promise<void> {
  if (!board) return;
  say(tr(T, 'working'));
  const res = await call('update_finding', { engagement: board.engagement, finding: f.id, statement, details: details || null });
  if (res.isError) {
    say(`${tr(T, 'failed')}: ${textOf(res)}`);
    return;
  }
  f.statement = statement;
  f.details = details || null;
  editing.delete(f.id);
  await app
    .updateModelContext({
      content: [
        { type: 'text', text: `On the review board, the user edited finding ${f.id}: statement now "${statement}"${details ? `, details "${details}"` : ''}.` },
      ],
    })
    .catch(() => {});
  say(tr(T, 'done'));
  render();
}

/** Another status is another list: asked of the server again (through the host), not filtered here. */
async function loadStatus(to: string): Promise<void> {
  if (!board) return;
  show(await call('review_board', { engagement: board.engagement, review_status: to }));
}

function toggleEdit(id: string, on: boolean): void {
  if (on) editing.add(id);
  else editing.delete(id);
  render();
}

function card(f: Finding, canWrite: boolean): HTMLElement {
  const headingId = `st-${f.id}`;
  const el = h('article', { class: `card finding ${f.review_status}`, 'aria-labelledby': headingId, 'data-finding': f.id, tabindex: -1 });
  const head = h('header', {});
  if (canWrite) {
    const box = h('input', { type: 'checkbox', 'aria-label': `${tr(T, 'select')}: ${f.statement}`, 'data-select': f.id });
    box.checked = selected.has(f.id);
    box.addEventListener('change', () => {
      if (box.checked) selected.add(f.id);
      else selected.delete(f.id);
      render();
    });
    head.append(box);
  }
  append(head, [h('span', { class: 'chip' }, findingType(f.type)), h('span', { class: 'chip' }, statusName(f.review_status))]);
  el.append(head);
  if (canWrite && editing.has(f.id)) {
    const st = h('textarea', { 'aria-label': tr(T, 'statement'), maxlength: 2000 });
    st.value = f.statement;
    const de = h('textarea', { 'aria-label': tr(T, 'details'), maxlength: 5000 });
    de.value = f.details ?? '';
    for (const area of [st, de])
      area.addEventListener('keydown', (e) => {
        if (e.key === 'Escape') toggleEdit(f.id, false);
      });
    append(el, [
      h('label', {}, tr(T, 'statement'), st),
      h('label', {}, tr(T, 'details'), de),
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'button', onclick: () => void saveEdit(f, st.value.trim(), de.value.trim()) }, tr(T, 'save')),
        h('button', { type: 'button', onclick: () => toggleEdit(f.id, false) }, tr(T, 'cancel')),
      ),
    ]);
    queueMicrotask(() => st.focus());
  } else {
    append(el, [h('h2', { class: 'statement', id: headingId }, f.statement), f.details ? h('p', { class: 'details' }, f.details) : null]);
  }
  if (f.quantity && Object.keys(f.quantity).length) el.append(h('p', { class: 'muted' }, `${tr(T, 'quantity')}: ${quantityText(f.quantity)}`));
  if (f.evidences.length) {
    el.append(h('h3', {}, `${tr(T, 'evidences')} (${f.evidences.length})`));
    el.append(
      h(
        'ul',
        { class: 'evidences' },
        ...f.evidences.map((e) =>
          h('li', { 'data-evidence': e.id }, h('blockquote', {}, `« ${e.excerpt} »`), h('div', { class: 'source muted' }, sourceLine(e))),
        ),
      ),
    );
  }
  if (canWrite && !editing.has(f.id)) {
    const actions = h('div', { class: 'actions', role: 'group', 'aria-label': f.statement });
    if (f.review_status !== 'validated')
      actions.append(h('button', { type: 'button', 'data-action': 'validate', onclick: () => void decide([f.id], 'validated') }, tr(T, 'validate')));
    if (f.review_status !== 'rejected')
      actions.append(h('button', { type: 'button', 'data-action': 'reject', onclick: () => void decide([f.id], 'rejected') }, tr(T, 'reject')));
    if (f.review_status !== 'proposed')
      actions.append(h('button', { type: 'button', 'data-action': 'reopen', onclick: () => void decide([f.id], 'proposed') }, tr(T, 'reopen')));
    actions.append(h('button', { type: 'button', 'data-action': 'edit', onclick: () => toggleEdit(f.id, true) }, tr(T, 'edit')));
    el.append(actions);
  }
  return el;
}

/** Where keyboard focus is, as a selector that finds the same control again after a re-render. */
function focusKey(): string | undefined {
  const el = document.activeElement as HTMLElement | null;
  if (!el || el === document.body) return undefined;
  if (el.dataset.select) return `[data-select="${el.dataset.select}"]`;
  if (el.dataset.bulk) return `[data-bulk="${el.dataset.bulk}"]`;
  if (el.id) return `#${el.id}`;
  const card = el.closest<HTMLElement>('[data-finding]');
  if (card && el.dataset.action) return `[data-finding="${card.dataset.finding}"] [data-action="${el.dataset.action}"]`;
  return undefined;
}

function render(): void {
  // A re-render replaces the controls: keyboard focus is put back on the same one (or its card).
  const focused = focusKey();
  draw();
  if (focused) (root.querySelector<HTMLElement>(focused) ?? root.querySelector<HTMLElement>(focused.split(' ')[0] as string))?.focus();
}

function draw(): void {
  root.replaceChildren();
  root.setAttribute('aria-busy', 'false');
  if (error) {
    root.append(h('p', { class: 'error', role: 'alert' }, error));
    return;
  }
  if (!board) return;
  const b = board;
  const shown = b.findings.filter((f) => !typeFilter || f.type === typeFilter);
  const types = [...new Set(b.findings.map((f) => f.type))].sort();
  const statusSel = h('select', { 'aria-label': tr(T, 'status'), id: 'status-filter' });
  for (const st of ['proposed', 'validated', 'rejected']) statusSel.append(h('option', { value: st, selected: st === b.filter.review_status }, statusName(st)));
  statusSel.addEventListener('change', () => void loadStatus(statusSel.value));
  const typeSel = h('select', { 'aria-label': tr(T, 'type'), id: 'type-filter' }, h('option', { value: '' }, tr(T, 'allTypes')));
  for (const ty of types) typeSel.append(h('option', { value: ty, selected: ty === typeFilter }, findingType(ty)));
  typeSel.addEventListener('change', () => {
    typeFilter = typeSel.value;
    render();
  });
  const toolbar = h('div', { class: 'toolbar' }, h('label', {}, tr(T, 'status'), statusSel), h('label', {}, tr(T, 'type'), typeSel));
  if (b.can_write) {
    const ids = () => shown.filter((f) => selected.has(f.id)).map((f) => f.id);
    const n = ids().length;
    const all = h('input', { type: 'checkbox', 'aria-label': tr(T, 'selectAll'), id: 'select-all' });
    all.checked = n > 0 && n === shown.length;
    all.addEventListener('change', () => {
      for (const f of shown) {
        if (all.checked) selected.add(f.id);
        else selected.delete(f.id);
      }
      render();
    });
    append(toolbar, [
      h('label', {}, all, tr(T, 'selectAll')),
      h('span', { class: 'muted' }, `${n} ${tr(T, 'selected')}`),
      h('button', { type: 'button', 'data-bulk': 'validate', disabled: n === 0, onclick: () => void decide(ids(), 'validated') }, tr(T, 'validate')),
      h('button', { type: 'button', 'data-bulk': 'reject', disabled: n === 0, onclick: () => void decide(ids(), 'rejected') }, tr(T, 'reject')),
      h('button', { type: 'button', 'data-bulk': 'reopen', disabled: n === 0, onclick: () => void decide(ids(), 'proposed') }, tr(T, 'reopen')),
    ]);
  }
  // The count is of the cards still in the status asked for: one just decided stays shown (to reopen it) but is no longer counted.
  const still = shown.filter((f) => f.review_status === b.filter.review_status).length;
  root.append(h('h1', {}, `${tr(T, 'title')} · ${still} ${statusCounted(b.filter.review_status, still)}`), toolbar);
  if (!b.can_write) root.append(h('p', { class: 'muted', 'data-read-only': true }, tr(T, 'readOnly')));
  if (!shown.length) root.append(h('p', { class: 'muted' }, tr(T, 'none')));
  for (const f of shown) root.append(card(f, b.can_write));
}

function show(r: ToolResultLike): void {
  if (r.isError || !r.structuredContent) {
    error = textOf(r) || 'The board could not be loaded.';
  } else {
    error = '';
    board = r.structuredContent as unknown as Board;
    typeFilter = board.filter.type ?? '';
    selected.clear();
  }
  render();
}

startView('review-board', show, render).then((a) => {
  app = a;
});
