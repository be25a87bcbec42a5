// Usage and cost: what AI consumption costs, against which budget.
import { z } from 'zod';
import { area, op } from './shared.js';

export const usage = area('usage', [
  op({
    name: 'get_engagement_costs',
    title: 'Get engagement costs',
    description: 'AI cost of one engagement, broken down by usage. Use to answer "how much has this audit cost so far".',
    method: 'GET',
    path: '/engagements/{engagement}/costs',
  }),
  op({
    name: 'list_usage_alerts',
    title: 'List usage alerts',
    description: 'Budget alerts of the workspace (warning or exceeded), newest first.',
    method: 'GET',
    path: '/workspace/usage/alerts',
    paginated: true,
  }),
  op({
    name: 'acknowledge_usage_alert',
    title: 'Acknowledge usage alert',
    description: 'Mark a budget alert as seen so it stops being shown as new.',
    method: 'POST',
    path: '/workspace/usage/alerts/{alert}/acknowledge',
    destructive: false,
  }),
  op({
    name: 'get_usage_budget',
    title: 'Get usage budget',
    description: 'The monthly AI budget of the workspace: amount, warning ratio, whether tests count.',
    method: 'GET',
    path: '/workspace/usage/budget',
  }),
  op({
    name: 'set_usage_budget',
    title: 'Set usage budget',
    description: 'Create or replace the monthly AI budget. warning_ratio is the share of the amount (0 to 1) that raises a warning.',
    method: 'PUT',
    path: '/workspace/usage/budget',
    destructive: false,
    fields: {
      monthly_amount: z.number().min(1).max(1_000_000),
      // The spec publishes min 0 and max 0 (an error in its description); a ratio is read as 0 to 1.
      warning_ratio: z.number().min(0).max(1).optional(),
      include_tests: z.boolean().optional(),
    },
  }),
  op({
    name: 'delete_usage_budget',
    title: 'Delete usage budget',
    description: 'Remove the monthly AI budget: spending is no longer capped or warned about.',
    method: 'DELETE',
    path: '/workspace/usage/budget',
    destructive: true,
  }),
  op({
    name: 'get_usage_dashboard',
    title: 'Get usage dashboard',
    description: 'Usage dashboard of the workspace: spend this month against the budget, trend, top consumers.',
    method: 'GET',
    path: '/workspace/usage/dashboard',
  }),
  op({
    name: 'list_usage_entries',
    title: 'List usage entries',
    description: 'Individual AI usage records (driver, model, usage, units, cost), newest first.',
    method: 'GET',
    path: '/workspace/usage/entries',
    paginated: true,
  }),
  op({
    name: 'export_usage',
    title: 'Export usage',
    description: 'Usage records of the workspace as a CSV file, for accounting.',
    method: 'GET',
    path: '/workspace/usage/export',
    response: 'file',
  }),
  op({
    name: 'get_usage_options',
    title: 'Get usage options',
    description: 'Values the usage filters accept (periods, usages, drivers, engagements).',
    method: 'GET',
    path: '/workspace/usage/options',
    reference: true,
  }),
  op({
    name: 'get_usage_summary',
    title: 'Get usage summary',
    description: 'Totals of AI usage and cost for the current period, by usage and by engagement.',
    method: 'GET',
    path: '/workspace/usage/summary',
  }),
]);
