// Six weeks of AI consumption of Atelier Conseil, mostly the Berthier audit: analysis runs, interview
// transcription and voice, audit chat. October crosses 80 % of the 500 EUR budget, hence one alert.
import type { WorkspaceState } from '../types.js';
import { at, ENGAGEMENT_AP, MEMBER_CLAIRE, MEMBER_MARC, MEMBER_SOPHIE } from './ids.js';

interface Pattern {
  usage: string;
  driver: string;
  model: string;
  unit: string;
  /** Units and cost of the first occurrence; later ones vary by a fixed cycle. */
  units: number;
  cost: number;
}

const PATTERNS: Pattern[] = [
  { usage: 'analysis', driver: 'mistral', model: 'mistral-large-latest', unit: 'tokens', units: 2_450_000, cost: 38.4 },
  { usage: 'transcription', driver: 'deepgram', model: 'nova-3', unit: 'seconds', units: 3_300, cost: 2.26 },
  { usage: 'voice', driver: 'openai', model: 'gpt-realtime', unit: 'seconds', units: 2_700, cost: 12.4 },
  { usage: 'chat', driver: 'anthropic', model: 'claude-haiku-4-5', unit: 'tokens', units: 180_000, cost: 0.74 },
  { usage: 'analysis', driver: 'mistral', model: 'mistral-large-latest', unit: 'tokens', units: 3_100_000, cost: 46.9 },
  { usage: 'tts', driver: 'elevenlabs', model: 'eleven_flash_v2_5', unit: 'characters', units: 42_000, cost: 3.15 },
  { usage: 'embedding', driver: 'openai', model: 'text-embedding-3-large', unit: 'tokens', units: 900_000, cost: 0.11 },
  { usage: 'ocr', driver: 'mistral', model: 'mistral-ocr-latest', unit: 'pages', units: 120, cost: 0.11 },
];

const VARIATION = [1, 1.15, 0.85, 1.3, 0.95, 1.05, 0.8, 1.2];

const USAGE_ENTRY_COUNT = 40;

export function seedUsage(ws: WorkspaceState): void {
  const members = [MEMBER_CLAIRE, MEMBER_MARC, MEMBER_SOPHIE];
  for (let i = 0; i < USAGE_ENTRY_COUNT; i++) {
    const p = PATTERNS[i % PATTERNS.length];
    const v = VARIATION[(i * 3) % VARIATION.length];
    if (p === undefined || v === undefined) throw new Error('The usage seed needs its patterns and variations.');
    // Work intensifies as the audit moves on: days 0 to 39, busier in October.
    const day = Math.floor((i * 39) / (USAGE_ENTRY_COUNT - 1));
    const when = at(day, 9 + (i % 8));
    // Embeddings and OCR run for the whole workspace (document index), not for one engagement.
    const workspaceWide = p.usage === 'embedding' || p.usage === 'ocr';
    ws.c('usage_entries').insert({
      occurred_at: when,
      driver: p.driver,
      model: p.model,
      usage: p.usage,
      engagement_id: workspaceWide ? null : ENGAGEMENT_AP,
      member_id: members[i % members.length],
      units: Math.round(p.units * v),
      unit: p.unit,
      cost_eur: Math.round(p.cost * v * (day >= 17 ? 1.6 : 1) * 100) / 100,
      is_test: false,
      created_at: when,
    });
  }

  ws.workspace.usage_budget = {
    monthly_amount: 500,
    warning_ratio: 0.8,
    include_tests: false,
    currency: 'EUR',
    updated_by: MEMBER_CLAIRE,
    updated_at: at(-10),
  };

  ws.c('usage_alerts').insert({
    level: 'warning',
    month: '2026-10',
    threshold_ratio: 0.8,
    threshold_eur: 400,
    spent_eur: 415.3,
    message: { fr: 'Le budget IA d’octobre a atteint 80 %.', en: 'October AI budget has reached 80%.' },
    triggered_at: at(36, 13),
    acknowledged_at: null,
    acknowledged_by: null,
    created_at: at(36, 13),
  });
}
