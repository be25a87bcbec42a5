// AI configuration: which driver and model serve which usage, the keys they use, and the voice lab.
import { z } from 'zod';
import {
  AI_DRIVERS,
  AI_USAGES,
  CREDENTIAL_SOURCES,
  SCOPE_TYPES,
  TRIAL_MODES,
  VOICE_ARCHITECTURES,
  area,
  clientInfo,
  nstr,
  nullableId,
  op,
  str,
} from './shared.js';

/** Body of the profile and usage tests: both optional, both the same shape in the spec. */
const testCallFields = {
  sample: nstr(500).optional(),
  scope_type: z.enum(SCOPE_TYPES).optional(),
  scope_id: nullableId().optional(),
};

/** One engine of a voice lab trial (speech-to-text or text-to-speech). The spec marks none of it required. */
const trialEngine = {
  driver: z.enum(AI_DRIVERS).optional(),
  model: str(128).optional(),
  settings: z.record(z.string(), z.unknown()).optional(),
  credential_source: z.enum(CREDENTIAL_SOURCES).optional(),
  credential_id: nullableId().optional(),
};

const msUpTo = (max: number) => z.number().int().min(0).max(max).nullable().optional();

export const ai = area('ai', [
  op({
    name: 'list_ai_catalog',
    title: 'List AI catalog',
    description: 'Drivers and models the workspace can assign to an AI usage. Use before setting a profile.',
    method: 'GET',
    path: '/ai/catalog',
    paginated: true,
    reference: true,
  }),
  op({
    name: 'list_ai_credentials',
    title: 'List AI credentials',
    description: 'AI provider keys of the workspace. Adding, replacing or deleting a key is reserved to the web app.',
    method: 'GET',
    path: '/ai/credentials',
    paginated: true,
  }),
  op({
    name: 'test_ai_credential',
    title: 'Test AI credential',
    description: 'Make a test call to the provider with one stored key and report whether it works.',
    method: 'POST',
    path: '/ai/credentials/{credential}/test',
    destructive: false,
    openWorld: true,
  }),
  op({
    name: 'list_ai_drivers',
    title: 'List AI drivers',
    description: 'AI provider drivers known to the workspace.',
    method: 'GET',
    path: '/ai/enums/drivers',
    paginated: true,
    reference: true,
  }),
  op({
    name: 'list_ai_usages',
    title: 'List AI usages',
    description: 'The AI usages a profile can serve (voice, stt, analysis, chat, ...).',
    method: 'GET',
    path: '/ai/enums/usages',
    paginated: true,
    reference: true,
  }),
  op({
    name: 'list_voice_architectures',
    title: 'List voice architectures',
    description: 'Voice architectures an interview can use: realtime or cascade (speech-to-text, model, text-to-speech).',
    method: 'GET',
    path: '/ai/enums/voice-architectures',
    paginated: true,
    reference: true,
  }),
  op({
    name: 'list_ai_price_grid',
    title: 'List AI price grid',
    description: 'Unit prices per driver and model, used to compute AI costs.',
    method: 'GET',
    path: '/ai/price-grid',
    paginated: true,
    reference: true,
  }),
  op({
    name: 'list_ai_profiles',
    title: 'List AI profiles',
    description: 'Which driver and model serve each AI usage, per workspace, method or engagement scope.',
    method: 'GET',
    path: '/ai/profiles',
    paginated: true,
  }),
  op({
    name: 'set_ai_profile',
    title: 'Set AI profile',
    description:
      'Create or replace the profile serving one usage at one scope (scope_type + scope_id + usage). Returns the profile.',
    method: 'PUT',
    path: '/ai/profiles',
    // An upsert of configuration: the previous profile can be put back the same way; nothing is lost for good.
    destructive: false,
    fields: {
      scope_type: z.enum(SCOPE_TYPES),
      scope_id: nullableId().optional(),
      usage: z.enum(AI_USAGES),
      driver: z.enum(AI_DRIVERS),
      model: str(128),
      voice_architecture: z.enum(VOICE_ARCHITECTURES).optional(),
      settings: z
        .strictObject({ base_url: nstr(512).optional(), capabilities: z.array(z.boolean()).optional() })
        .optional(),
      credential_source: z.enum(CREDENTIAL_SOURCES),
      credential_id: nullableId().optional(),
      label: nstr(255).optional(),
      is_enabled: z.boolean().optional(),
    },
  }),
  op({
    name: 'delete_ai_profile',
    title: 'Delete AI profile',
    description: 'Delete an AI profile. Check list_ai_profiles first: the usage it served needs another profile.',
    method: 'DELETE',
    path: '/ai/profiles/{profile}',
    destructive: true,
  }),
  op({
    name: 'test_ai_profile',
    title: 'Test AI profile',
    description: 'Run a short sample through one profile to check it answers. Calls the AI provider and costs usage.',
    method: 'POST',
    path: '/ai/profiles/{profile}/test',
    destructive: false,
    openWorld: true,
    fields: testCallFields,
  }),
  op({
    name: 'test_ai_usage',
    title: 'Test AI usage',
    description:
      'Run a short sample through whatever profile serves a usage at a scope. Calls the AI provider and costs usage.',
    method: 'POST',
    path: '/ai/usages/{usage}/test',
    pathSchemas: { usage: z.enum(AI_USAGES) },
    destructive: false,
    openWorld: true,
    fields: testCallFields,
  }),
  op({
    name: 'list_voice_trials',
    title: 'List voice lab trials',
    description: 'Voice lab trials: voice set-ups tried out and their measured latencies and notes.',
    method: 'GET',
    path: '/ai/voice-lab/trials',
    paginated: true,
  }),
  op({
    name: 'create_voice_trial',
    title: 'Create voice lab trial',
    description: 'Record a voice lab trial of a voice, speech-to-text and text-to-speech set-up. Timings are set later by update.',
    method: 'POST',
    path: '/ai/voice-lab/trials',
    destructive: false,
    fields: {
      engagement_id: nullableId().optional(),
      mode: z.enum(TRIAL_MODES).optional(),
      locale: nstr(8).optional(),
      label: nstr(255).optional(),
      voice_profile_id: nullableId().optional(),
      voice: z
        .strictObject({ voice_architecture: z.enum(VOICE_ARCHITECTURES).optional(), ...trialEngine })
        .nullable()
        .optional(),
      stt: z.strictObject(trialEngine).nullable().optional(),
      tts: z.strictObject(trialEngine).nullable().optional(),
      client_info: clientInfo().optional(),
    },
  }),
  op({
    name: 'update_voice_trial',
    title: 'Update voice lab trial',
    description: 'Record the measured timings (milliseconds) and a note on a voice lab trial.',
    method: 'PATCH',
    path: '/ai/voice-lab/trials/{trial}',
    destructive: false,
    fields: {
      first_sound_ms: msUpTo(600_000),
      response_ms: msUpTo(600_000),
      duration_ms: msUpTo(3_600_000),
      note: nstr(2000).optional(),
    },
  }),
  op({
    name: 'delete_voice_trial',
    title: 'Delete voice lab trial',
    description: 'Delete a voice lab trial and its measurements.',
    method: 'DELETE',
    path: '/ai/voice-lab/trials/{trial}',
    destructive: true,
  }),
  op({
    name: 'list_ai_voices',
    title: 'List AI voices',
    description: 'Synthetic voices available for interviews, by driver.',
    method: 'GET',
    path: '/ai/voices',
    paginated: true,
    reference: true,
  }),
]);
