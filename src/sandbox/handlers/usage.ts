// Usage and cost, computed from the usage entries when asked: summaries, the dashboard against the
// monthly budget, one engagement's costs, and a CSV export for accounting.

import { seedUsage } from '../data/usage.js';
import { csv } from '../files/csv.js';
import type { HandlerContext, HandlerTable, Rec, SandboxArea, WorkspaceState } from '../types.js';

const cents = (n: number) => Math.round(n * 100) / 100;
const monthOf = (iso: unknown) => String(iso).slice(0, 7);

interface Budget {
  monthly_amount: number;
  warning_ratio: number;
  include_tests: boolean;
  currency: string;
  updated_at?: string;
  updated_by?: string;
}

function budgetOf(ws: WorkspaceState): Budget | null {
  return (ws.workspace.usage_budget as Budget | null | undefined) ?? null;
}

function entries(ws: WorkspaceState): Rec[] {
  return ws
    .c('usage_entries')
    .all()
    .sort((a, b) => String(a.occurred_at).localeCompare(String(b.occurred_at)));
}

/**
 * The month reported on: the month of the latest usage. The catalog offers no period filter, and the
 * demo data sit in autumn 2026: a calendar "this month" would show an empty dashboard most of the time.
 */
function reportingMonth(ws: WorkspaceState, now: Date): string {
  const last = entries(ws).at(-1);
  return last ? monthOf(last.occurred_at) : now.toISOString().slice(0, 7);
}

function groupBy(rs: Rec[], key: (r: Rec) => string | null): { key: string | null; cost_eur: number; count: number; units: number }[] {
  const m = new Map<string | null, { key: string | null; cost_eur: number; count: number; units: number }>();
  for (const r of rs) {
    const k = key(r);
    const g = m.get(k) ?? { key: k, cost_eur: 0, count: 0, units: 0 };
    g.cost_eur += Number(r.cost_eur ?? 0);
    g.count += 1;
    g.units += Number(r.units ?? 0);
    m.set(k, g);
  }
  return [...m.values()].map((g) => ({ ...g, cost_eur: cents(g.cost_eur) })).sort((a, b) => b.cost_eur - a.cost_eur);
}

const total = (rs: Rec[]) => cents(rs.reduce((s, r) => s + Number(r.cost_eur ?? 0), 0));

function engagementName(ws: WorkspaceState, id: string | null): string | null {
  return id ? String(ws.c('engagements').get(id)?.name ?? '') || null : null;
}

/** Where the month stands against the budget; tests count only when the budget says so. */
function budgetStatus(ws: WorkspaceState, month: string) {
  const budget = budgetOf(ws);
  const monthEntries = entries(ws).filter((e) => monthOf(e.occurred_at) === month && (budget?.include_tests || !e.is_test));
  const spent = total(monthEntries);
  if (!budget) return { month, spent_eur: spent, budget_eur: null, ratio: null, status: 'no_budget' as const };
  const ratio = Math.round((spent / budget.monthly_amount) * 1000) / 1000;
  const status = ratio >= 1 ? 'exceeded' : ratio >= budget.warning_ratio ? 'warning' : 'ok';
  return { month, spent_eur: spent, budget_eur: budget.monthly_amount, ratio, status };
}

const handlers: HandlerTable = {
  get_engagement_costs: (ctx) => {
    const e = ctx.ws.c('engagements').must(ctx.params.engagement ?? '', 'engagement');
    const rs = entries(ctx.ws).filter((r) => r.engagement_id === e.id);
    return {
      data: {
        engagement_id: e.id,
        currency: 'EUR',
        total_eur: total(rs),
        entries_count: rs.length,
        first_at: rs[0]?.occurred_at ?? null,
        last_at: rs.at(-1)?.occurred_at ?? null,
        by_usage: groupBy(rs, (r) => String(r.usage)).map(({ key, ...g }) => ({ usage: key, ...g })),
        by_model: groupBy(rs, (r) => `${String(r.driver)}/${String(r.model)}`).map(({ key, ...g }) => ({ model: key, ...g })),
        by_month: groupBy(rs, (r) => monthOf(r.occurred_at))
          .map(({ key, ...g }) => ({ month: key, ...g }))
          .sort((a, b) => String(a.month).localeCompare(String(b.month))),
      },
    };
  },

  list_usage_alerts: (ctx) => ctx.page(ctx.ws.c('usage_alerts').all().reverse()),

  acknowledge_usage_alert: (ctx) => {
    const alert = ctx.ws.c('usage_alerts').must(ctx.params.alert ?? '', 'usage alert');
    // Acknowledging twice keeps the first acknowledgement: who saw it first is what matters.
    if (!alert.acknowledged_at) {
      ctx.ws.c('usage_alerts').update(alert.id, { acknowledged_at: ctx.now().toISOString(), acknowledged_by: ctx.member.id });
    }
    return { data: alert };
  },

  get_usage_budget: (ctx) => ({ data: budgetOf(ctx.ws) }),

  set_usage_budget: (ctx) => {
    const previous = budgetOf(ctx.ws);
    const budget: Budget = {
      monthly_amount: Number(ctx.input.monthly_amount),
      warning_ratio: Number(ctx.input.warning_ratio ?? previous?.warning_ratio ?? 0.8),
      include_tests: Boolean(ctx.input.include_tests ?? previous?.include_tests ?? false),
      currency: 'EUR',
      updated_at: ctx.now().toISOString(),
      updated_by: ctx.member.id,
    };
    ctx.ws.workspace.usage_budget = budget;
    return { data: budget };
  },

  delete_usage_budget: (ctx) => {
    ctx.ws.workspace.usage_budget = null;
    return { status: 204 };
  },

  get_usage_dashboard: (ctx) => {
    const month = reportingMonth(ctx.ws, ctx.now());
    const rs = entries(ctx.ws).filter((e) => monthOf(e.occurred_at) === month);
    const status = budgetStatus(ctx.ws, month);
    const days = groupBy(rs, (r) => String(r.occurred_at).slice(0, 10))
      .map(({ key, cost_eur }) => ({ date: key, cost_eur }))
      .sort((a, b) => String(a.date).localeCompare(String(b.date)));
    // Straight-line forecast from the last day with usage to the end of the month.
    const lastDay = Number(String(days.at(-1)?.date ?? `${month}-01`).slice(8, 10));
    const [y, m] = month.split('-').map(Number) as [number, number];
    const monthDays = new Date(Date.UTC(y, m, 0)).getUTCDate();
    return {
      data: {
        ...status,
        currency: 'EUR',
        forecast_eur: cents((status.spent_eur / Math.max(1, lastDay)) * monthDays),
        daily: days,
        top_models: groupBy(rs, (r) => `${String(r.driver)}/${String(r.model)}`)
          .slice(0, 5)
          .map(({ key, ...g }) => ({ model: key, ...g })),
        top_engagements: groupBy(rs, (r) => (r.engagement_id as string | null) ?? null)
          .slice(0, 5)
          .map(({ key, ...g }) => ({ engagement_id: key, name: engagementName(ctx.ws, key), ...g })),
        open_alerts: ctx.ws.c('usage_alerts').all((a) => !a.acknowledged_at).length,
        rate_limited_requests: ctx.ws.counters.rate_limited ?? 0,
      },
    };
  },

  list_usage_entries: (ctx) => ctx.page(entries(ctx.ws).reverse()),

  export_usage: (ctx) => {
    const rows = entries(ctx.ws).map((e) => [
      e.occurred_at,
      e.usage,
      e.driver,
      e.model,
      e.engagement_id ?? '',
      engagementName(ctx.ws, (e.engagement_id as string | null) ?? null) ?? '',
      e.units,
      e.unit,
      Number(e.cost_eur ?? 0).toFixed(2),
      e.is_test ? 'true' : 'false',
    ]);
    const body = csv(['occurred_at', 'usage', 'driver', 'model', 'engagement_id', 'engagement', 'units', 'unit', 'cost_eur', 'is_test'], rows);
    return { file: { contentType: 'text/csv; charset=utf-8', filename: `usage-${ctx.ws.slug}.csv`, body, size: body.length } };
  },

  get_usage_options: (ctx) => {
    const rs = entries(ctx.ws);
    const distinct = (f: (r: Rec) => unknown) => [...new Set(rs.map(f).filter((v) => v !== null && v !== undefined))].map(String).sort();
    return {
      data: {
        months: distinct((r) => monthOf(r.occurred_at)),
        usages: distinct((r) => r.usage),
        drivers: distinct((r) => r.driver),
        models: distinct((r) => `${String(r.driver)}/${String(r.model)}`),
        engagements: distinct((r) => r.engagement_id).map((id) => ({ id, name: engagementName(ctx.ws, id) })),
        currency: 'EUR',
      },
    };
  },

  get_usage_summary: (ctx) => summary(ctx),
};

function summary(ctx: HandlerContext) {
  const month = reportingMonth(ctx.ws, ctx.now());
  const rs = entries(ctx.ws).filter((e) => monthOf(e.occurred_at) === month);
  return {
    data: {
      period: { month, from: `${month}-01`, to: rs.at(-1)?.occurred_at ?? null },
      currency: 'EUR',
      total_eur: total(rs),
      tests_eur: total(rs.filter((r) => r.is_test)),
      entries_count: rs.length,
      by_usage: groupBy(rs, (r) => String(r.usage)).map(({ key, ...g }) => ({ usage: key, ...g })),
      by_engagement: groupBy(rs, (r) => (r.engagement_id as string | null) ?? null).map(({ key, ...g }) => ({
        engagement_id: key,
        name: engagementName(ctx.ws, key),
        ...g,
      })),
      budget: budgetStatus(ctx.ws, month),
      // Rate-limit refusals count in the workspace usage (spec, Errors rule 2).
      rate_limited_requests: ctx.ws.counters.rate_limited ?? 0,
    },
  };
}

export const area: SandboxArea = {
  toolset: 'usage',
  handlers,
  seeds: [seedUsage],
  demo: {
    alert: (ws) => ws.c('usage_alerts').all().at(-1)?.id,
  },
};
