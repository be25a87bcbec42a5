// AI configuration: profiles (upserted by scope and usage), provider keys (read and test only: managing
// keys needs the web session), the model catalog and prices, voices, enums and voice lab trials.
import { AI_DRIVERS, AI_USAGES, VOICE_ARCHITECTURES } from '../../../catalog/shared.js';
import { CATALOG, DRIVER_LABELS, seedAi, USAGE_LABELS, VOICE_ARCHITECTURE_LABELS } from '../data/ai.js';
import { ApiError, type HandlerContext, type HandlerTable, inputOf, notFound, type Rec, type SandboxArea, validationFailed } from '../types.js';

/** set_ai_profile's input (catalog/ai.ts). */
type ProfileInput = {
  scope_type: string;
  scope_id?: string | null;
  usage: (typeof AI_USAGES)[number];
  driver: (typeof AI_DRIVERS)[number];
  model: string;
  voice_architecture?: (typeof VOICE_ARCHITECTURES)[number];
  settings?: { base_url?: string | null; capabilities?: boolean[] };
  credential_source: string;
  credential_id?: string | null;
  label?: string | null;
  is_enabled?: boolean;
};

/** The scope of test_ai_usage's input (catalog/ai.ts). */
type TestScopeInput = { scope_type?: string; scope_id?: string | null };

/** The references of create_voice_trial's input (catalog/ai.ts). */
type TrialInput = { engagement_id?: string | null; voice_profile_id?: string | null };

/** Unscaled duration of a test call to a provider. */
const TEST_CALL_MS = 3_000;

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Same key, same profile: the upsert identity of the spec (scope_type, scope_id, usage). */
function sameSlot(p: Rec, scopeType: string, scopeId: string | null, usage: string): boolean {
  return p.scope_type === scopeType && (p.scope_id ?? null) === scopeId && p.usage === usage;
}

/**
 * The profile that serves a usage at a scope: the scope's own, else its method's (for an engagement),
 * else the workspace's. Disabled profiles are skipped, as the application skips them.
 */
function servingProfile(ctx: HandlerContext, usage: string, scopeType: string, scopeId: string | null): Rec | undefined {
  const profiles = ctx.ws.c('ai_profiles').all((p) => p.usage === usage && p.is_enabled !== false);
  const chain: [string, string | null][] = [];
  if (scopeType === 'engagement' && scopeId) {
    chain.push(['engagement', scopeId]);
    const methodId = ctx.ws.c('engagements').get(scopeId)?.method_id as string | null | undefined;
    if (methodId) chain.push(['method', methodId]);
  } else if (scopeType === 'method' && scopeId) chain.push(['method', scopeId]);
  chain.push(['workspace', null]);
  for (const [t, id] of chain) {
    const p = profiles.find((x) => sameSlot(x, t, id, usage));
    if (p) return p;
  }
  return undefined;
}

const SAMPLES: Record<string, string> = {
  analysis: 'Constat : les factures sans commande sont ressaisies dans SAP à partir du PDF reçu par e-mail.',
  chat: 'Bonjour, je peux répondre à vos questions sur les entretiens de cet audit.',
  transcription: '« Alors, les factures arrivent par e-mail, on les imprime, et on les ressaisit dans SAP. »',
  stt: '« Je valide les factures une fois par semaine, le vendredi. »',
  tts: 'audio/mpeg, 2,4 s',
  voice: 'Bonjour, merci de prendre le temps de cet entretien.',
  vision: 'Écran SAP MIRO : saisie de facture, montant 12 480,00 EUR.',
  embedding: 'vector[3072]',
  ocr: 'FACTURE N° F-2026-0912 — Scierie des Vosges — 8 940,00 EUR TTC',
};

/**
 * A test call is short and synchronous from the caller's view: it answers once the (scaled) provider
 * round-trip is over, since the API offers no way to poll a test afterwards.
 */
async function testCall(
  ctx: HandlerContext,
  target: { usage: string; driver: string; model: string; profile_id?: string | null; credential_id?: string | null },
) {
  const latency = ctx.scaled(TEST_CALL_MS);
  await wait(Math.min(latency, 10_000));
  const sample = typeof ctx.input.sample === 'string' && ctx.input.sample ? ctx.input.sample : null;
  const latencyMs = 420 + ((target.model.length * 37) % 900);
  ctx.ws.c('usage_entries').insert({
    occurred_at: ctx.now().toISOString(),
    driver: target.driver,
    model: target.model,
    usage: target.usage,
    engagement_id: null,
    member_id: ctx.member.id,
    units: 1,
    unit: 'request',
    cost_eur: 0.002,
    is_test: true,
  });
  return {
    status: 201,
    data: {
      status: 'succeeded',
      ...target,
      latency_ms: latencyMs,
      sample_input: sample,
      sample_output: sample ? `${SAMPLES[target.usage] ?? 'OK'} (échantillon : ${sample.slice(0, 80)})` : (SAMPLES[target.usage] ?? 'OK'),
      tested_at: ctx.now().toISOString(),
    },
  };
}

/** Scope checks shared by the upsert and the tests: the scope must exist; the workspace scope has no id. */
function checkScope(ctx: HandlerContext, scopeType: string, scopeId: string | null | undefined): string | null {
  if (scopeType === 'workspace') {
    if (scopeId) throw validationFailed({ scope_id: ['scope_id must be null for the workspace scope.'] });
    return null;
  }
  if (!scopeId) throw validationFailed({ scope_id: [`scope_id is required for the ${scopeType} scope.`] });
  const collection = scopeType === 'method' ? 'methods' : 'engagements';
  if (!ctx.ws.c(collection).get(scopeId)) throw validationFailed({ scope_id: [`No ${scopeType} has this id.`] });
  return scopeId;
}

const handlers: HandlerTable = {
  list_ai_catalog: (ctx) => ctx.page(ctx.ws.c('ai_catalog').all()),
  list_ai_credentials: (ctx) => ctx.page(ctx.ws.c('ai_credentials').all()),
  list_ai_price_grid: (ctx) => ctx.page(ctx.ws.c('ai_price_grid').all()),
  list_ai_voices: (ctx) => ctx.page(ctx.ws.c('ai_voices').all()),
  list_ai_profiles: (ctx) => ctx.page(ctx.ws.c('ai_profiles').all()),

  list_ai_drivers: (ctx) => ctx.page(AI_DRIVERS.map((value) => ({ value, label: DRIVER_LABELS[value] }))),
  list_ai_usages: (ctx) => ctx.page(AI_USAGES.map((value) => ({ value, label: USAGE_LABELS[value][ctx.locale] }))),
  list_voice_architectures: (ctx) => ctx.page(VOICE_ARCHITECTURES.map((value) => ({ value, label: VOICE_ARCHITECTURE_LABELS[value][ctx.locale] }))),

  test_ai_credential: async (ctx) => {
    const cred = ctx.ws.c('ai_credentials').must(ctx.params.credential ?? '', 'credential');
    const model = CATALOG.find((c) => c.driver === cred.driver);
    const result = await testCall(ctx, {
      usage: model?.usages[0] ?? 'chat',
      driver: String(cred.driver),
      model: model?.model ?? 'default',
      credential_id: cred.id,
    });
    cred.last_tested_at = ctx.now().toISOString();
    cred.status = 'valid';
    return result;
  },

  set_ai_profile: (ctx) => {
    const input = inputOf<ProfileInput>(ctx);
    const scopeId = checkScope(ctx, input.scope_type, input.scope_id);
    // An openai_compatible endpoint serves whatever models it has; the other drivers have a known list.
    if (input.driver !== 'openai_compatible') {
      const entry = CATALOG.find((c) => c.driver === input.driver && c.model === input.model);
      if (!entry) throw validationFailed({ model: [`${input.driver} has no model "${input.model}" in the catalog.`] });
      if (!entry.usages.includes(input.usage)) throw validationFailed({ usage: [`${input.model} cannot serve the ${input.usage} usage.`] });
    } else if (!input.settings?.base_url) {
      throw validationFailed({ 'settings.base_url': ['An openai_compatible profile needs settings.base_url.'] });
    }
    if (input.credential_source === 'workspace') {
      const cred = input.credential_id ? ctx.ws.c('ai_credentials').get(input.credential_id) : undefined;
      if (!cred) throw validationFailed({ credential_id: ['A workspace credential is required when credential_source is workspace.'] });
    }
    if (input.voice_architecture && input.usage !== 'voice') {
      throw validationFailed({ voice_architecture: ['voice_architecture applies to the voice usage only.'] });
    }
    const fields = {
      ...input,
      scope_id: scopeId,
      credential_id: input.credential_source === 'workspace' ? input.credential_id : null,
      voice_architecture: input.voice_architecture ?? null,
      settings: input.settings ?? { base_url: null },
      label: input.label ?? null,
      is_enabled: input.is_enabled ?? true,
    };
    const profiles = ctx.ws.c('ai_profiles');
    const existing = profiles.all((p) => sameSlot(p, input.scope_type, scopeId, input.usage))[0];
    return { data: existing ? profiles.update(existing.id, fields) : profiles.insert(fields) };
  },

  delete_ai_profile: (ctx) => {
    const p = ctx.ws.c('ai_profiles').must(ctx.params.profile ?? '', 'AI profile');
    ctx.ws.c('ai_profiles').remove(p.id);
    return { status: 204 };
  },

  test_ai_profile: async (ctx) => {
    const p = ctx.ws.c('ai_profiles').must(ctx.params.profile ?? '', 'AI profile');
    return testCall(ctx, { usage: String(p.usage), driver: String(p.driver), model: String(p.model), profile_id: p.id });
  },

  test_ai_usage: async (ctx) => {
    const usage = ctx.params.usage ?? '';
    if (!(AI_USAGES as readonly string[]).includes(usage)) throw notFound('AI usage');
    const input = inputOf<TestScopeInput>(ctx);
    const scopeType = String(input.scope_type ?? 'workspace');
    const scopeId = checkScope(ctx, scopeType, input.scope_id);
    const p = servingProfile(ctx, usage, scopeType, scopeId);
    if (!p) {
      throw new ApiError(
        422,
        'ai.profile_missing',
        { en: `No enabled AI profile serves the ${usage} usage at this scope.`, fr: `Aucun profil IA actif ne sert l'usage ${usage} pour ce périmètre.` },
        { usage, scope_type: scopeType, scope_id: scopeId },
      );
    }
    return testCall(ctx, { usage, driver: String(p.driver), model: String(p.model), profile_id: p.id });
  },

  list_voice_trials: (ctx) => ctx.page(ctx.ws.c('voice_lab_trials').all().reverse()),

  create_voice_trial: (ctx) => {
    const input = inputOf<TrialInput>(ctx);
    if (input.engagement_id && !ctx.ws.c('engagements').get(input.engagement_id)) {
      throw validationFailed({ engagement_id: ['No engagement has this id.'] });
    }
    if (input.voice_profile_id && !ctx.ws.c('ai_profiles').get(input.voice_profile_id)) {
      throw validationFailed({ voice_profile_id: ['No AI profile has this id.'] });
    }
    const trial = ctx.ws.c('voice_lab_trials').insert({
      engagement_id: null,
      mode: 'voice_only',
      locale: null,
      label: null,
      voice_profile_id: null,
      voice: null,
      stt: null,
      tts: null,
      client_info: null,
      ...input,
      first_sound_ms: null,
      response_ms: null,
      duration_ms: null,
      note: null,
      created_by: ctx.member.id,
    });
    return { status: 201, data: trial };
  },

  update_voice_trial: (ctx) => {
    const trial = ctx.ws.c('voice_lab_trials').must(ctx.params.trial ?? '', 'voice lab trial');
    // Only the measurements and the note change after creation; the set-up under test stays as tried.
    const patch: Record<string, unknown> = {};
    for (const k of ['first_sound_ms', 'response_ms', 'duration_ms', 'note']) if (k in ctx.input) patch[k] = ctx.input[k];
    return { data: ctx.ws.c('voice_lab_trials').update(trial.id, patch) };
  },

  delete_voice_trial: (ctx) => {
    const trial = ctx.ws.c('voice_lab_trials').get(ctx.params.trial ?? '');
    if (!trial) throw notFound('voice lab trial');
    ctx.ws.c('voice_lab_trials').remove(trial.id);
    return { status: 204 };
  },
};

export const area: SandboxArea = {
  toolset: 'ai',
  handlers,
  seeds: [seedAi],
  demo: {
    credential: (ws) => ws.c('ai_credentials').all()[0]?.id,
    profile: (ws) => ws.c('ai_profiles').all()[0]?.id,
    trial: (ws) => ws.c('voice_lab_trials').all().at(-1)?.id,
  },
};
