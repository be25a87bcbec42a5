// The engagement dashboard: engagement_overview's answer drawn as tiles and charts (interview
// coverage, findings by type and by review status, open contradictions, the latest analysis run's
// progress, the deliverable's stage, AI cost so far). Read-only: it calls nothing.
import { bars, progress, topicCoverage } from '../shared/charts.js';
import { h } from '../shared/dom.js';
import { freshResult, rec, startView, type ToolResultLike } from '../shared/host.js';
import { num, tr, words } from '../shared/i18n.js';
import { findingType, reviewStatus, usageName } from '../shared/labels.js';

type Json = Record<string, unknown>;

const T = {
  interviews: { fr: 'Couverture des entretiens', en: 'Interview coverage' },
  interviewsHint: { fr: 'constats cités par entretien', en: 'findings cited per interview' },
  topics: { fr: 'Constats par thème (validés en plein)', en: 'Findings by topic (validated in full)' },
  byType: { fr: 'Constats par type', en: 'Findings by type' },
  byStatus: { fr: 'Constats par statut de revue', en: 'Findings by review status' },
  contradictions: { fr: 'Contradictions ouvertes', en: 'Open contradictions' },
  run: { fr: 'Dernière analyse', en: 'Latest analysis run' },
  stage: { fr: 'Livrable', en: 'Deliverable' },
  cost: { fr: 'Coût IA à ce jour', en: 'AI cost so far' },
  findings: { fr: 'Constats', en: 'Findings' },
  none: { fr: 'Aucune', en: 'None' },
  noRun: { fr: 'Aucune analyse', en: 'No run yet' },
  unavailable: { fr: 'Indisponible', en: 'Unavailable' },
} as const;

/** Run states and deliverable stages in the host's language; others as the API words them. */
const STATES: Record<string, { fr: string; en: string }> = {
  queued: { fr: 'en attente', en: 'queued' },
  running: { fr: 'en cours', en: 'running' },
  succeeded: { fr: 'terminée', en: 'succeeded' },
  failed: { fr: 'en échec', en: 'failed' },
  cancelled: { fr: 'annulée', en: 'cancelled' },
  interim: { fr: 'intermédiaire', en: 'interim' },
  final: { fr: 'final', en: 'final' },
};
const state = (v: unknown) => (typeof v === 'string' && STATES[v] ? tr(STATES, v) : words(v));

const root = document.getElementById('view') as HTMLElement;
const isErr = (v: unknown): v is { error: string } => typeof v === 'object' && v !== null && 'error' in v;
const entries = (v: unknown, name: (k: string) => string) =>
  Object.entries(rec(v)).map(([label, value]) => ({ label: name(label), value: Number(value) || 0 }));

function tile(label: string, value: string, extra?: HTMLElement): HTMLElement {
  return h('section', { class: 'tile', 'aria-label': label }, h('span', { class: 'muted' }, label), h('strong', {}, value), extra);
}

function render(r: ToolResultLike): void {
  const o = freshResult(root, r, 'No overview.');
  if (!o) return;
  const eng = rec(o.engagement);
  const findings = rec(o.findings);
  const contradictions = rec(o.contradictions);
  const run = rec(o.latest_analysis_run);
  const deliverable = rec(o.deliverable);
  const cost = rec(o.ai_cost);
  const coverage = rec(o.coverage);
  const interviews = Array.isArray(coverage.interviews) ? (coverage.interviews as Json[]) : [];
  const topics = Array.isArray(coverage.topics) ? (coverage.topics as Json[]) : [];
  const runPct = typeof run.progress === 'number' ? run.progress : run.status === 'succeeded' || run.status === 'completed' ? 100 : 0;
  root.append(
    h('h1', {}, String(eng.name ?? eng.id ?? '')),
    h(
      'div',
      { class: 'tiles' },
      tile(tr(T, 'findings'), isErr(findings) ? tr(T, 'unavailable') : num(Number(findings.total ?? 0))),
      tile(
        tr(T, 'contradictions'),
        isErr(contradictions) ? tr(T, 'unavailable') : `${num(Number(contradictions.open ?? 0))} / ${num(Number(contradictions.total ?? 0))}`,
      ),
      tile(tr(T, 'run'), Object.keys(run).length ? state(run.status) : tr(T, 'noRun'), Object.keys(run).length ? progress(tr(T, 'run'), runPct) : undefined),
      tile(tr(T, 'stage'), isErr(deliverable) ? tr(T, 'unavailable') : state(deliverable.stage ?? '-')),
      tile(
        tr(T, 'cost'),
        isErr(cost) || cost.total_eur === null || cost.total_eur === undefined
          ? tr(T, 'unavailable')
          : num(Number(cost.total_eur), { style: 'currency', currency: String(cost.currency ?? 'EUR') }),
      ),
    ),
    h(
      'div',
      { class: 'grid2' },
      bars(
        'interview_coverage',
        `${tr(T, 'interviews')} (${tr(T, 'interviewsHint')})`,
        interviews.map((i) => ({ label: String(i.interviewee_name ?? i.title ?? ''), value: Number(i.findings ?? 0) })),
      ),
      topicCoverage(tr(T, 'topics'), topics),
      bars('findings_by_type', tr(T, 'byType'), entries(findings.by_type, findingType)),
      bars('findings_by_status', tr(T, 'byStatus'), entries(findings.by_review_status, reviewStatus)),
    ),
  );
  const open = Array.isArray(contradictions.items) ? (contradictions.items as Json[]) : [];
  root.append(
    h('h2', {}, `${tr(T, 'contradictions')} (${open.length})`),
    open.length ? h('ul', { class: 'contradictions' }, ...open.map((c) => h('li', {}, String(c.topic ?? c.id)))) : h('p', { class: 'muted' }, tr(T, 'none')),
  );
  if (Array.isArray(cost.by_usage) && cost.by_usage.length)
    root.append(
      bars(
        'ai_cost',
        `${tr(T, 'cost')} (EUR)`,
        (cost.by_usage as Json[]).map((u) => ({ label: usageName(u.usage), value: Math.round(Number(u.cost_eur ?? 0) * 100) / 100 })),
      ),
    );
}

void startView('engagement-dashboard', render);
