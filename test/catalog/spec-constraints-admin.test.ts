// The catalog entries of the ai, engagements, methods, workspace, chat, privacy and integrations areas
// carry the spec's constraints: what the API would refuse with 422 is refused before any request is sent.
import { describe, expect, it } from 'vitest';
import { ai } from '../../catalog/ai.js';
import { chat } from '../../catalog/chat.js';
import { engagements } from '../../catalog/engagements.js';
import { integrations } from '../../catalog/integrations.js';
import { methods } from '../../catalog/methods.js';
import { privacy } from '../../catalog/privacy.js';
import { workspace } from '../../catalog/workspace.js';
import type { Operation } from '../../src/operation.js';

const mine: Operation[] = [...ai, ...engagements, ...methods, ...workspace, ...chat, ...privacy, ...integrations];

function entry(name: string): Operation {
  const found = mine.find((o) => o.name === name);
  if (!found) throw new Error(`no catalog entry named ${name}`);
  return found;
}
const accepts = (name: string, args: unknown) => entry(name).input.safeParse(args).success;

const ULID = '01JD3Z8K2M4N6P8R0T2V4X6Z8A';
const OTHER_ULID = '01JD3Z8K2M4N6P8R0T2V4X6Z8B';
const guide = { ownerType: 'method', ownerId: ULID };
const questions = (n: number) => Array.from({ length: n }, (_, i) => `Question ${i + 1}?`);

describe('every entry of these areas', () => {
  it('refuses an argument it does not declare instead of dropping it', () => {
    for (const o of mine) {
      const refused = o.input.safeParse({ not_a_field: true });
      expect(refused.success, o.name).toBe(false);
      expect(
        refused.error?.issues.some((i) => i.code === 'unrecognized_keys'),
        o.name,
      ).toBe(true);
    }
  });

  it('is stamped with the toolset of its module', () => {
    const toolsets = (ops: Operation[]) => new Set(ops.map((o) => o.toolset));
    expect(toolsets(ai)).toEqual(new Set(['ai']));
    expect(toolsets(engagements)).toEqual(new Set(['engagements']));
    expect(toolsets(methods)).toEqual(new Set(['methods']));
    expect(toolsets(workspace)).toEqual(new Set(['workspace']));
    expect(toolsets([...chat, ...privacy, ...integrations])).toEqual(new Set(['chat', 'privacy', 'integrations']));
  });
});

describe('identifiers in paths', () => {
  it('accept a 26-character ULID and refuse 25, 27 or a path-changing value', () => {
    expect(accepts('get_method', { method: ULID })).toBe(true);
    expect(accepts('get_method', { method: ULID.slice(1) })).toBe(false);
    expect(accepts('get_method', { method: `${ULID}A` })).toBe(false);
    expect(accepts('get_method', { method: '../../workspace/members' })).toBe(false);
    expect(accepts('get_method', {})).toBe(false);
  });

  it('guide owners are only methods and engagements', () => {
    expect(accepts('get_effective_guide', guide)).toBe(true);
    expect(accepts('get_effective_guide', { ...guide, ownerType: 'engagement' })).toBe(true);
    expect(accepts('get_effective_guide', { ...guide, ownerType: 'workspace' })).toBe(false);
  });

  it('enum names and AI usages in paths are slugs or enum values, never a path', () => {
    expect(accepts('list_method_enum_values', { name: 'interviewer-tones' })).toBe(true);
    expect(accepts('list_method_enum_values', { name: '../templates' })).toBe(false);
    expect(accepts('test_ai_usage', { usage: 'transcription' })).toBe(true);
    expect(accepts('test_ai_usage', { usage: 'telepathy' })).toBe(false);
  });
});

describe('guide topics', () => {
  const topic = {
    ...guide,
    title: 'Invoice intake',
    description: null,
    requirement: 'mandatory',
    depth: 'deep',
    opening_questions: questions(20),
    information_targets: [{ key: 'volume', label: 'Invoices per month' }],
    demonstrations: ['Show the intake screen'],
    forbidden_subjects: [],
    deliverable_category: 'finance',
    position: 0,
  };

  it('a full topic with 20 opening questions is accepted; a 21st is refused', () => {
    expect(accepts('create_guide_topic', topic)).toBe(true);
    expect(accepts('create_guide_topic', { ...topic, opening_questions: questions(21) })).toBe(false);
  });

  it('creating needs a title of at most 255 characters; updating needs nothing', () => {
    const { title: _title, ...untitled } = topic;
    expect(accepts('create_guide_topic', untitled)).toBe(false);
    expect(accepts('create_guide_topic', { ...topic, title: 'x'.repeat(256) })).toBe(false);
    expect(accepts('update_guide_topic', { ...guide, topic: ULID })).toBe(true);
    expect(accepts('update_guide_topic', { ...guide, topic: ULID, position: -1 })).toBe(false);
  });

  it('information targets need a key and a label, and nothing else', () => {
    const withTargets = (information_targets: unknown) => accepts('create_guide_topic', { ...topic, information_targets });
    expect(withTargets([{ key: 'volume' }])).toBe(false);
    expect(withTargets([{ key: 'volume', label: 'x'.repeat(256) }])).toBe(false);
    expect(withTargets([{ key: 'volume', label: 'Volume', weight: 3 }])).toBe(false);
  });

  it('an override names its operation; its patch follows the topic limits', () => {
    const override = { ...guide, topic: ULID };
    expect(accepts('set_guide_override', { ...override, operation: 'remove' })).toBe(true);
    expect(accepts('set_guide_override', { ...override, operation: 'rename' })).toBe(false);
    expect(accepts('set_guide_override', { ...override, patch: { title: 'Renamed' } })).toBe(false);
    expect(accepts('set_guide_override', { ...override, operation: 'modify', patch: { opening_questions: questions(20) } })).toBe(true);
    expect(accepts('set_guide_override', { ...override, operation: 'modify', patch: { opening_questions: questions(21) } })).toBe(false);
    expect(accepts('set_guide_override', { ...override, operation: 'modify', patch: { requirement: 'optional' } })).toBe(false);
  });

  it('AI topic proposals ask for 3 to 12 topics and are accepted by at least one key', () => {
    expect(accepts('propose_guide_topics', { ...guide, count: 3, focus: 'accounts payable', locale: 'fr' })).toBe(true);
    expect(accepts('propose_guide_topics', { ...guide, count: 12 })).toBe(true);
    expect(accepts('propose_guide_topics', { ...guide, count: 2 })).toBe(false);
    expect(accepts('propose_guide_topics', { ...guide, count: 13 })).toBe(false);
    const proposal = { ...guide, proposal: ULID };
    expect(accepts('accept_topic_proposal', { ...proposal, keys: ['k1'], edits: [{ depth: 'overview' }] })).toBe(true);
    expect(accepts('accept_topic_proposal', { ...proposal, keys: [] })).toBe(false);
  });

  it('reordering takes topic ids', () => {
    expect(accepts('reorder_guide_topics', { ...guide, ids: [ULID, OTHER_ULID] })).toBe(true);
    expect(accepts('reorder_guide_topics', { ...guide, ids: ['first'] })).toBe(false);
  });
});

describe('methods', () => {
  it('a method name is required on create and on update, at most 255 characters', () => {
    expect(accepts('create_method', { name: 'Procure-to-pay audit', description: null })).toBe(true);
    expect(accepts('create_method', { description: 'no name' })).toBe(false);
    expect(accepts('update_method', { method: ULID, description: 'only a description' })).toBe(false);
    expect(accepts('update_method', { method: ULID, name: 'x'.repeat(256) })).toBe(false);
  });

  it('creating from a template needs the template key; name and locale may be null', () => {
    expect(accepts('create_method_from_template', { template_key: 'p2p', name: null, locale: null })).toBe(true);
    expect(accepts('create_method_from_template', { name: 'Copy' })).toBe(false);
    expect(accepts('create_method_from_template', { template_key: 'p2p', locale: 'de' })).toBe(false);
  });
});

describe('AI configuration', () => {
  const profile = {
    scope_type: 'engagement',
    scope_id: ULID,
    usage: 'analysis',
    driver: 'openai_compatible',
    model: 'gpt-large',
    voice_architecture: 'cascade',
    settings: { base_url: 'https://llm.example.test/v1', capabilities: [true, false] },
    credential_source: 'workspace',
    credential_id: null,
    label: 'Analysis for this engagement',
    is_enabled: true,
  };

  it('a full profile is accepted; each required field is required', () => {
    expect(accepts('set_ai_profile', profile)).toBe(true);
    for (const field of ['scope_type', 'usage', 'driver', 'model', 'credential_source']) {
      const { [field]: _dropped, ...rest } = profile as Record<string, unknown>;
      expect(accepts('set_ai_profile', rest), field).toBe(false);
    }
  });

  it('profile fields keep their limits', () => {
    expect(accepts('set_ai_profile', { ...profile, model: 'm'.repeat(129) })).toBe(false);
    expect(accepts('set_ai_profile', { ...profile, driver: 'cohere' })).toBe(false);
    expect(accepts('set_ai_profile', { ...profile, scope_id: ULID.slice(1) })).toBe(false);
    expect(accepts('set_ai_profile', { ...profile, settings: { base_url: 'x'.repeat(513) } })).toBe(false);
    expect(accepts('set_ai_profile', { ...profile, settings: { api_key: 'sk-...' } })).toBe(false);
  });

  it('a test call takes an optional sample of at most 500 characters', () => {
    expect(accepts('test_ai_profile', { profile: ULID })).toBe(true);
    expect(accepts('test_ai_profile', { profile: ULID, sample: 'Bonjour', scope_type: 'method', scope_id: ULID })).toBe(true);
    expect(accepts('test_ai_profile', { profile: ULID, sample: 's'.repeat(501) })).toBe(false);
  });

  it('voice lab timings stay within their bounds and are whole milliseconds', () => {
    const trial = { trial: ULID };
    expect(accepts('update_voice_trial', { ...trial, first_sound_ms: 600_000, duration_ms: 3_600_000, note: null })).toBe(true);
    expect(accepts('update_voice_trial', { ...trial, response_ms: 600_001 })).toBe(false);
    expect(accepts('update_voice_trial', { ...trial, duration_ms: 3_600_001 })).toBe(false);
    expect(accepts('update_voice_trial', { ...trial, first_sound_ms: -1 })).toBe(false);
    expect(accepts('update_voice_trial', { ...trial, first_sound_ms: 1.5 })).toBe(false);
  });

  it('a trial sets up voice, speech-to-text and text-to-speech; only the voice has an architecture', () => {
    const engine = { driver: 'deepgram', model: 'nova', settings: { punctuate: true }, credential_source: 'platform', credential_id: null };
    const trial = {
      mode: 'voice_only',
      locale: 'fr-FR',
      voice: { voice_architecture: 'cascade', ...engine },
      stt: engine,
      tts: null,
      client_info: { os: 'macOS', browser: null, device_class: 'desktop' },
    };
    expect(accepts('create_voice_trial', trial)).toBe(true);
    expect(accepts('create_voice_trial', {})).toBe(true);
    expect(accepts('create_voice_trial', { ...trial, stt: { ...engine, voice_architecture: 'realtime' } })).toBe(false);
    expect(accepts('create_voice_trial', { ...trial, client_info: { os: 'o'.repeat(65) } })).toBe(false);
    expect(accepts('create_voice_trial', { ...trial, duration_ms: 1000 })).toBe(false);
    expect(accepts('create_voice_trial', { ...trial, mode: 'text_simulation' })).toBe(false);
  });

  it('only the test calls reach the AI provider', () => {
    const openWorld = mine
      .filter((o) => o.annotations.openWorldHint)
      .map((o) => o.name)
      .sort();
    expect(openWorld).toEqual(['test_ai_credential', 'test_ai_profile', 'test_ai_usage']);
  });
});

describe('client companies', () => {
  it('a company needs a name; country is an ISO alpha-2 code; website a web URL', () => {
    expect(accepts('create_client_company', { name: 'Acme', industry: 'Retail', country: 'FR', website: 'https://acme.test' })).toBe(true);
    expect(accepts('create_client_company', { name: '' })).toBe(false);
    expect(accepts('create_client_company', { name: 'Acme', country: 'fr' })).toBe(false);
    expect(accepts('create_client_company', { name: 'Acme', country: 'FRA' })).toBe(false);
    expect(accepts('create_client_company', { name: 'Acme', industry: 'i'.repeat(121) })).toBe(false);
    expect(accepts('create_client_company', { name: 'Acme', website: 'javascript:alert(1)' })).toBe(false);
  });
});

describe('workspace', () => {
  it('settings keep their ranges: at least one known locale, retention 1 to 3650 days', () => {
    expect(accepts('update_workspace', { locales: ['en', 'fr'], default_locale: 'fr', retention_raw_days: 3650 })).toBe(true);
    expect(accepts('update_workspace', { locales: [] })).toBe(false);
    expect(accepts('update_workspace', { locales: ['de'] })).toBe(false);
    expect(accepts('update_workspace', { retention_deliverable_days: 0 })).toBe(false);
    expect(accepts('update_workspace', { retention_raw_days: 3651 })).toBe(false);
    expect(accepts('update_workspace', { settings: { require_2fa_for_consultants: true, allow_everything: true } })).toBe(false);
  });

  it('branding always carries a sender name of 1 to 120 characters', () => {
    expect(accepts('update_workspace_branding', { email_sender_name: 'Acme Audit', primary_color: null })).toBe(true);
    expect(accepts('update_workspace_branding', { primary_color: '#123456' })).toBe(false);
    expect(accepts('update_workspace_branding', { email_sender_name: 'n'.repeat(121) })).toBe(false);
  });

  it('invitations need an e-mail address and one of the two roles', () => {
    expect(accepts('invite_member', { email: 'ana@client.test', role: 'consultant' })).toBe(true);
    expect(accepts('invite_member', { email: 'not an address', role: 'consultant' })).toBe(false);
    expect(accepts('invite_member', { email: 'ana@client.test', role: 'owner' })).toBe(false);
    expect(accepts('update_member_role', { member: ULID })).toBe(false);
  });

  it('removing a member or revoking an invitation is flagged destructive; changing a role is not', () => {
    expect(entry('remove_member').annotations.destructiveHint).toBe(true);
    expect(entry('revoke_invitation').annotations.destructiveHint).toBe(true);
    expect(entry('update_member_role').annotations.destructiveHint).toBe(false);
  });
});

describe('lists, reference data and files', () => {
  it('lists take a page size of 1 to 200 and an opaque cursor', () => {
    expect(accepts('list_members', { limit: 200, cursor: 'opaque' })).toBe(true);
    expect(accepts('list_members', { limit: 201 })).toBe(false);
    expect(accepts('list_chat_threads', { engagement: ULID, limit: 0 })).toBe(false);
  });

  it('enumerations, catalogs, voices, prices and templates are cached as reference data', () => {
    const reference = mine
      .filter((o) => o.reference)
      .map((o) => o.path)
      .sort();
    expect(reference).toEqual(
      [
        '/ai/catalog',
        '/ai/enums/drivers',
        '/ai/enums/usages',
        '/ai/enums/voice-architectures',
        '/ai/price-grid',
        '/ai/voices',
        '/methods/enums/avatar-presets',
        '/methods/enums/{name}',
        '/methods/templates',
        '/openapi.json',
        '/workspaces/enums/roles',
        '/workspaces/enums/statuses',
      ].sort(),
    );
  });

  it('a compliance document is downloaded as a file, not parsed as JSON', () => {
    expect(entry('download_compliance_document').response).toBe('file');
    expect(mine.filter((o) => o.response === 'file').map((o) => o.name)).toEqual(['download_compliance_document']);
  });
});
