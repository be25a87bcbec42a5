// AI configuration of Atelier Conseil: which provider and model serve each usage, the two provider keys
// (metadata only: the sandbox never holds a secret), the model catalog, prices, voices and trials.
import type { AI_DRIVERS, AI_USAGES, VOICE_ARCHITECTURES } from '../../../catalog/shared.js';
import type { WorkspaceState } from '../types.js';
import { at, ENGAGEMENT_AP, MEMBER_CLAIRE, MEMBER_SOPHIE } from './ids.js';

type Usage = (typeof AI_USAGES)[number];

/** Models per driver and the usages each can serve: what a profile may be set to. */
export const CATALOG: { driver: string; model: string; label: string; usages: Usage[]; capabilities: Record<string, boolean> }[] = [
  {
    driver: 'anthropic',
    model: 'claude-sonnet-4-5',
    label: 'Claude Sonnet 4.5',
    usages: ['analysis', 'chat', 'vision'],
    capabilities: { tools: true, vision: true, long_context: true },
  },
  {
    driver: 'anthropic',
    model: 'claude-haiku-4-5',
    label: 'Claude Haiku 4.5',
    usages: ['analysis', 'chat'],
    capabilities: { tools: true, vision: true, long_context: false },
  },
  { driver: 'openai', model: 'gpt-realtime', label: 'GPT Realtime', usages: ['voice'], capabilities: { realtime: true, tools: true } },
  {
    driver: 'openai',
    model: 'gpt-4.1',
    label: 'GPT-4.1',
    usages: ['analysis', 'chat', 'vision'],
    capabilities: { tools: true, vision: true, long_context: true },
  },
  { driver: 'openai', model: 'text-embedding-3-large', label: 'Text embedding 3 large', usages: ['embedding'], capabilities: {} },
  { driver: 'openai', model: 'gpt-4o-transcribe', label: 'GPT-4o Transcribe', usages: ['stt', 'transcription'], capabilities: { diarization: false } },
  { driver: 'mistral', model: 'mistral-large-latest', label: 'Mistral Large', usages: ['analysis', 'chat'], capabilities: { tools: true, eu_hosting: true } },
  { driver: 'mistral', model: 'mistral-ocr-latest', label: 'Mistral OCR', usages: ['ocr'], capabilities: { eu_hosting: true } },
  { driver: 'deepgram', model: 'nova-3', label: 'Nova-3', usages: ['stt', 'transcription'], capabilities: { diarization: true, streaming: true } },
  { driver: 'elevenlabs', model: 'eleven_flash_v2_5', label: 'Eleven Flash v2.5', usages: ['tts'], capabilities: { streaming: true } },
  { driver: 'tesseract', model: 'tesseract-5', label: 'Tesseract 5 (local)', usages: ['ocr'], capabilities: { local: true } },
];

/** Unit prices in euros; `unit` is what usage entries count. */
const PRICES: { driver: string; model: string; unit: string; input_eur: number; output_eur: number | null }[] = [
  { driver: 'anthropic', model: 'claude-sonnet-4-5', unit: '1M_tokens', input_eur: 2.8, output_eur: 14 },
  { driver: 'anthropic', model: 'claude-haiku-4-5', unit: '1M_tokens', input_eur: 0.95, output_eur: 4.7 },
  { driver: 'openai', model: 'gpt-realtime', unit: 'minute', input_eur: 0.055, output_eur: 0.22 },
  { driver: 'openai', model: 'gpt-4.1', unit: '1M_tokens', input_eur: 1.85, output_eur: 7.4 },
  { driver: 'openai', model: 'text-embedding-3-large', unit: '1M_tokens', input_eur: 0.12, output_eur: null },
  { driver: 'openai', model: 'gpt-4o-transcribe', unit: 'minute', input_eur: 0.0056, output_eur: null },
  { driver: 'mistral', model: 'mistral-large-latest', unit: '1M_tokens', input_eur: 1.8, output_eur: 5.4 },
  { driver: 'mistral', model: 'mistral-ocr-latest', unit: '1000_pages', input_eur: 0.9, output_eur: null },
  { driver: 'deepgram', model: 'nova-3', unit: 'minute', input_eur: 0.0041, output_eur: null },
  { driver: 'elevenlabs', model: 'eleven_flash_v2_5', unit: '1000_characters', input_eur: 0.075, output_eur: null },
  { driver: 'tesseract', model: 'tesseract-5', unit: '1000_pages', input_eur: 0, output_eur: null },
];

export const DRIVER_LABELS: Record<(typeof AI_DRIVERS)[number], string> = {
  openai: 'OpenAI',
  openai_compatible: 'OpenAI-compatible endpoint',
  mistral: 'Mistral AI',
  anthropic: 'Anthropic',
  deepgram: 'Deepgram',
  elevenlabs: 'ElevenLabs',
  tesseract: 'Tesseract (local OCR)',
};

export const USAGE_LABELS: Record<Usage, { en: string; fr: string }> = {
  voice: { en: 'Live voice interviewer', fr: 'Intervieweur vocal en direct' },
  stt: { en: 'Speech to text (live)', fr: 'Reconnaissance vocale (direct)' },
  tts: { en: 'Text to speech', fr: 'Synthèse vocale' },
  transcription: { en: 'Recording transcription', fr: 'Transcription des enregistrements' },
  vision: { en: 'Screen understanding', fr: "Compréhension d'écran" },
  analysis: { en: 'Analysis', fr: 'Analyse' },
  chat: { en: 'Audit chat', fr: "Chat d'audit" },
  embedding: { en: 'Search embeddings', fr: 'Vecteurs de recherche' },
  ocr: { en: 'Document OCR', fr: 'OCR des documents' },
};

export const VOICE_ARCHITECTURE_LABELS: Record<(typeof VOICE_ARCHITECTURES)[number], { en: string; fr: string }> = {
  realtime: { en: 'Realtime speech-to-speech model', fr: 'Modèle voix-à-voix temps réel' },
  cascade: { en: 'Cascade: speech to text, model, text to speech', fr: 'Cascade : transcription, modèle, synthèse vocale' },
};

const VOICES: { driver: string; voice_id: string; name: string; locale: string; gender: string }[] = [
  { driver: 'openai', voice_id: 'marin', name: 'Marin', locale: 'fr', gender: 'female' },
  { driver: 'openai', voice_id: 'cedar', name: 'Cedar', locale: 'en', gender: 'male' },
  { driver: 'elevenlabs', voice_id: 'xA9kPq2sFr', name: 'Camille', locale: 'fr', gender: 'female' },
  { driver: 'elevenlabs', voice_id: 'bL4mTn8wQe', name: 'Antoine', locale: 'fr', gender: 'male' },
  { driver: 'elevenlabs', voice_id: 'rT6yHj3kLp', name: 'Grace', locale: 'en', gender: 'female' },
];

export function seedAi(ws: WorkspaceState): void {
  for (const c of CATALOG)
    ws.c('ai_catalog').insert({ ...c, name: `${DRIVER_LABELS[c.driver as keyof typeof DRIVER_LABELS]} ${c.label}`, created_at: at(-30) });
  for (const p of PRICES)
    ws.c('ai_price_grid').insert({ ...p, currency: 'EUR', name: `${p.driver}/${p.model}`, valid_from: '2026-07-01', created_at: at(-30) });
  for (const v of VOICES) ws.c('ai_voices').insert({ ...v, created_at: at(-30) });

  const anthropicKey = ws.c('ai_credentials').insert({
    name: 'Anthropic (Atelier Conseil)',
    driver: 'anthropic',
    last_four: 'x7Qa',
    base_url: null,
    status: 'valid',
    last_tested_at: at(12, 9),
    created_by: MEMBER_CLAIRE,
    created_at: at(-20),
  }).id;
  const deepgramKey = ws.c('ai_credentials').insert({
    name: 'Deepgram transcription',
    driver: 'deepgram',
    last_four: '9fK2',
    base_url: null,
    status: 'valid',
    last_tested_at: at(12, 9),
    created_by: MEMBER_CLAIRE,
    created_at: at(-20),
  }).id;

  const profile = (usage: Usage, driver: string, model: string, extra: Record<string, unknown> = {}) =>
    ws.c('ai_profiles').insert({
      scope_type: 'workspace',
      scope_id: null,
      usage,
      driver,
      model,
      voice_architecture: null,
      settings: { base_url: null },
      credential_source: 'platform',
      credential_id: null,
      label: null,
      is_enabled: true,
      created_at: at(-20),
      ...extra,
    });
  profile('analysis', 'anthropic', 'claude-sonnet-4-5', { credential_source: 'workspace', credential_id: anthropicKey, label: 'Analyse (Sonnet)' });
  profile('chat', 'anthropic', 'claude-haiku-4-5', { credential_source: 'workspace', credential_id: anthropicKey });
  profile('transcription', 'deepgram', 'nova-3', { credential_source: 'workspace', credential_id: deepgramKey });
  profile('stt', 'deepgram', 'nova-3', { credential_source: 'workspace', credential_id: deepgramKey });
  profile('voice', 'openai', 'gpt-realtime', { voice_architecture: 'realtime', label: 'Voix temps réel' });
  profile('tts', 'elevenlabs', 'eleven_flash_v2_5');
  profile('embedding', 'openai', 'text-embedding-3-large');
  profile('ocr', 'mistral', 'mistral-ocr-latest');
  // The Berthier audit keeps its analysis in the EU: an engagement-level override.
  profile('analysis', 'mistral', 'mistral-large-latest', { scope_type: 'engagement', scope_id: ENGAGEMENT_AP, label: 'Hébergement UE (Berthier)' });

  ws.c('voice_lab_trials').insert({
    engagement_id: ENGAGEMENT_AP,
    mode: 'voice_only',
    locale: 'fr',
    label: 'Temps réel, voix Marin',
    voice_profile_id: null,
    voice: {
      voice_architecture: 'realtime',
      driver: 'openai',
      model: 'gpt-realtime',
      settings: { voice: 'marin' },
      credential_source: 'platform',
      credential_id: null,
    },
    stt: null,
    tts: null,
    client_info: { os: 'macOS', browser: 'Chrome', device_class: 'desktop' },
    first_sound_ms: 640,
    response_ms: 910,
    duration_ms: 184_000,
    note: 'Naturel, quelques coupures sur les montants.',
    created_by: MEMBER_SOPHIE,
    created_at: at(2, 14),
  });
  ws.c('voice_lab_trials').insert({
    engagement_id: ENGAGEMENT_AP,
    mode: 'voice_screen',
    locale: 'fr',
    label: 'Cascade Deepgram + Sonnet + ElevenLabs',
    voice_profile_id: null,
    voice: {
      voice_architecture: 'cascade',
      driver: 'anthropic',
      model: 'claude-haiku-4-5',
      settings: {},
      credential_source: 'workspace',
      credential_id: anthropicKey,
    },
    stt: { driver: 'deepgram', model: 'nova-3', settings: { language: 'fr' }, credential_source: 'workspace', credential_id: deepgramKey },
    tts: { driver: 'elevenlabs', model: 'eleven_flash_v2_5', settings: { voice_id: 'xA9kPq2sFr' }, credential_source: 'platform', credential_id: null },
    client_info: { os: 'Windows', browser: 'Edge', device_class: 'desktop' },
    first_sound_ms: 1420,
    response_ms: 1880,
    duration_ms: 236_000,
    note: 'Plus lent, mais transcription des montants fiable.',
    created_by: MEMBER_SOPHIE,
    created_at: at(2, 15),
  });
}
