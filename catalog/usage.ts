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
    example: { engagement: '$demo.engagement' },
    askedAs: {
      en: ['AI cost of a project', 'what this engagement has cost', 'how much AI this audit consumed'],
      fr: ['coût IA d’une mission', 'ce que cette mission a coûté', 'combien d’IA cette mission a consommé', 'coût de la mission en IA'],
    },
  }),
  op({
    name: 'list_usage_alerts',
    title: 'List usage alerts',
    description: 'Budget alerts of the workspace (warning or exceeded), newest first.',
    method: 'GET',
    path: '/workspace/usage/alerts',
    askedAs: {
      en: ['budget warnings', 'overspending alerts', 'are we over budget', 'warnings that we spend too much'],
      fr: ['alertes de budget', 'avertissements de dépassement', 'a-t-on dépassé le budget', 'avertissements de dépenses excessives'],
    },
    paginated: true,
  }),
  op({
    name: 'acknowledge_usage_alert',
    title: 'Acknowledge usage alert',
    description: 'Mark a budget alert as seen so it stops being shown as new.',
    method: 'POST',
    path: '/workspace/usage/alerts/{alert}/acknowledge',
    example: { alert: '$demo.alert' },
    askedAs: {
      en: ['dismiss a budget alert', 'mark an alert as read', 'seen the warning, clear it'],
      fr: ['marquer une alerte comme lue', 'acquitter une alerte', 'alerte vue, la faire disparaître'],
    },
    destructive: false,
  }),
  op({
    name: 'get_usage_budget',
    title: 'Get usage budget',
    description: 'The monthly AI budget of the workspace: amount, warning ratio, whether tests count.',
    method: 'GET',
    path: '/workspace/usage/budget',
    askedAs: {
      en: ['what our AI budget is', 'monthly spending limit', 'how much we allowed for AI each month'],
      fr: ['notre budget IA', 'plafond mensuel de dépenses', 'montant autorisé pour l’IA chaque mois'],
    },
  }),
  op({
    name: 'set_usage_budget',
    title: 'Set usage budget',
    description: 'Create or replace the monthly AI budget. warning_ratio is the share of the amount (0 to 1) that raises a warning.',
    method: 'PUT',
    path: '/workspace/usage/budget',
    askedAs: {
      en: [
        'set a spending cap',
        'change the monthly budget',
        'raise the AI limit',
        'cap AI spending per month',
        'limit what we spend on AI',
        'warn at a share of the budget',
        'whether test calls count against the budget',
      ],
      fr: [
        'fixer un plafond de dépenses',
        'changer le budget mensuel',
        'augmenter la limite IA',
        'fixer une enveloppe IA mensuelle',
        'limiter ce qu’on dépense en IA',
        'seuil d’alerte du budget',
        'compter ou non les tests dans le budget',
      ],
    },
    destructive: false,
    fields: () => ({
      monthly_amount: z.number().min(1).max(1_000_000),
      // The spec publishes min 0 and max 0 (an error in its description); a ratio is read as 0 to 1.
      warning_ratio: z.number().min(0).max(1).optional(),
      include_tests: z.boolean().optional(),
    }),
  }),
  op({
    name: 'delete_usage_budget',
    title: 'Delete usage budget',
    description: 'Remove the monthly AI budget: spending is no longer capped or warned about.',
    method: 'DELETE',
    path: '/workspace/usage/budget',
    askedAs: {
      en: ['remove the spending cap', 'no more AI budget', 'no more limit on AI spending'],
      fr: ['supprimer le plafond de dépenses', 'plus de budget IA', 'ne plus limiter les dépenses IA'],
    },
    destructive: true,
  }),
  op({
    name: 'get_usage_dashboard',
    title: 'Get usage dashboard',
    description: 'Usage dashboard of the workspace: spend this month against the budget, trend, top consumers.',
    method: 'GET',
    path: '/workspace/usage/dashboard',
    askedAs: {
      en: ['AI consumption overview', 'spend against budget', 'who uses the most AI', 'are we close to the limit'],
      fr: ['vue d’ensemble de la consommation IA', 'dépenses par rapport au budget', 'qui consomme le plus', 'est-on proche du plafond'],
    },
  }),
  op({
    name: 'list_usage_entries',
    title: 'List usage entries',
    description: 'Individual AI usage records (driver, model, usage, units, cost), newest first.',
    method: 'GET',
    path: '/workspace/usage/entries',
    example: { limit: 10 },
    askedAs: {
      en: ['detailed AI charges', 'every AI call and its cost', 'usage log', 'each charge in detail'],
      fr: ['détail des frais IA', 'chaque appel IA et son coût', 'journal de consommation', 'chaque dépense en détail'],
    },
    paginated: true,
  }),
  op({
    name: 'export_usage',
    title: 'Export usage',
    description: 'Usage records of the workspace as a CSV file, for accounting.',
    method: 'GET',
    path: '/workspace/usage/export',
    askedAs: {
      en: ['download usage as CSV', 'AI costs for accounting', 'usage export for finance', 'usage file for the accountant'],
      fr: ['exporter la consommation en CSV', 'coûts IA pour la comptabilité', 'dépenses IA dans un tableur pour la compta'],
    },
    response: 'file',
  }),
  op({
    name: 'get_usage_options',
    title: 'Get usage options',
    description: 'Values the usage filters accept (periods, usages, drivers, engagements).',
    method: 'GET',
    path: '/workspace/usage/options',
    askedAs: {
      en: ['filters for the usage reports', 'periods and filters for usage'],
      fr: ['filtres des rapports de consommation', 'périodes et filtres de la consommation'],
    },
    reference: true,
  }),
  op({
    name: 'get_usage_summary',
    title: 'Get usage summary',
    description: 'Totals of AI usage and cost for the current period, by usage and by engagement.',
    method: 'GET',
    path: '/workspace/usage/summary',
    askedAs: {
      en: ['total AI spend this month', 'AI consumption totals', 'how much AI we used', 'spend broken down by mission'],
      fr: ['dépenses IA totales du mois', 'total de la consommation IA', 'combien d’IA avons-nous utilisé', 'totaux par mission sur la période'],
    },
  }),
]);
