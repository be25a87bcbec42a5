// AI configuration over real HTTP: reference lists, the profile upsert and its rules, test calls, and
// voice lab trials.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { api, ENGAGEMENT, METHOD } from '../helpers.js';

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, timeScale: 0.001, rateLimit: false });
});
afterAll(async () => {
  await sb.close();
});

describe('AI reference data', () => {
  it('lists the catalog, prices, voices and two key records without secrets', async () => {
    const catalog = (await api(sb, 'GET', '/ai/catalog?limit=200')).json.data;
    expect(catalog.some((c: any) => c.driver === 'anthropic' && c.usages.includes('analysis'))).toBe(true);
    expect(catalog.every((c: any) => typeof c.capabilities === 'object')).toBe(true);
    expect((await api(sb, 'GET', '/ai/price-grid')).json.data.every((p: any) => typeof p.input_eur === 'number')).toBe(true);
    expect((await api(sb, 'GET', '/ai/voices')).json.data.length).toBeGreaterThan(2);
    const creds = (await api(sb, 'GET', '/ai/credentials')).json.data;
    expect(creds).toHaveLength(2);
    for (const c of creds) {
      expect(c.last_four).toHaveLength(4);
      expect(Object.keys(c).some((k) => /secret|api_key|value/.test(k))).toBe(false);
    }
  });

  it("serves the three enums, labels in the caller's language", async () => {
    const drivers = (await api(sb, 'GET', '/ai/enums/drivers')).json.data.map((d: any) => d.value);
    expect(drivers).toEqual(['openai', 'openai_compatible', 'mistral', 'anthropic', 'deepgram', 'elevenlabs', 'tesseract']);
    const usages = (await api(sb, 'GET', '/ai/enums/usages', { locale: 'fr' })).json.data;
    expect(usages.find((u: any) => u.value === 'analysis').label).toBe('Analyse');
    const archs = (await api(sb, 'GET', '/ai/enums/voice-architectures')).json.data.map((a: any) => a.value);
    expect(archs).toEqual(['realtime', 'cascade']);
  });
});

describe('AI profiles', () => {
  const base = { scope_type: 'workspace', usage: 'chat', driver: 'anthropic', model: 'claude-sonnet-4-5', credential_source: 'platform' };

  it('upserts by scope and usage: the same slot is replaced, not duplicated', async () => {
    const before = (await api(sb, 'GET', '/ai/profiles?limit=200')).json.data;
    const chat = before.find((p: any) => p.scope_type === 'workspace' && p.usage === 'chat');
    const r = await api(sb, 'PUT', '/ai/profiles', { body: { ...base, label: 'Chat (Sonnet)' } });
    expect(r.status).toBe(200);
    expect(r.json.data).toMatchObject({ id: chat.id, model: 'claude-sonnet-4-5', label: 'Chat (Sonnet)', credential_id: null });
    const after = (await api(sb, 'GET', '/ai/profiles?limit=200')).json.data;
    expect(after).toHaveLength(before.length);
  });

  it('creates a new profile for a new slot (a method scope)', async () => {
    const r = await api(sb, 'PUT', '/ai/profiles', { body: { ...base, scope_type: 'method', scope_id: METHOD } });
    expect(r.status).toBe(200);
    expect(r.json.data).toMatchObject({ scope_type: 'method', scope_id: METHOD, usage: 'chat' });
    const del = await api(sb, 'DELETE', `/ai/profiles/${r.json.data.id}`);
    expect(del.status).toBe(204);
    expect((await api(sb, 'DELETE', `/ai/profiles/${r.json.data.id}`)).status).toBe(404);
  });

  it('refuses a model the driver does not have, a missing scope id and a missing workspace key', async () => {
    const model = await api(sb, 'PUT', '/ai/profiles', { body: { ...base, model: 'gpt-9' } });
    expect(model.status).toBe(422);
    expect(model.json.details.fields.model).toBeDefined();
    const scope = await api(sb, 'PUT', '/ai/profiles', { body: { ...base, scope_type: 'engagement' } });
    expect(scope.json.details.fields.scope_id).toBeDefined();
    const key = await api(sb, 'PUT', '/ai/profiles', { body: { ...base, credential_source: 'workspace' } });
    expect(key.json.details.fields.credential_id).toBeDefined();
  });

  it('tests a profile, a usage and a key: status, latency and a sample output', async () => {
    const profiles = (await api(sb, 'GET', '/ai/profiles?limit=200')).json.data;
    const analysis = profiles.find((p: any) => p.usage === 'analysis' && p.scope_type === 'workspace');
    const p = await api(sb, 'POST', `/ai/profiles/${analysis.id}/test`, { body: { sample: 'Bonjour' } });
    expect(p.status).toBe(201);
    expect(p.json.data).toMatchObject({ status: 'succeeded', profile_id: analysis.id, model: analysis.model });
    expect(p.json.data.latency_ms).toBeGreaterThan(0);
    expect(p.json.data.sample_output).toContain('Bonjour');

    // The Berthier engagement has its own (EU-hosted) analysis profile: the usage test finds it.
    const u = await api(sb, 'POST', '/ai/usages/analysis/test', { body: { scope_type: 'engagement', scope_id: ENGAGEMENT } });
    expect(u.status).toBe(201);
    expect(u.json.data.driver).toBe('mistral');
    expect((await api(sb, 'POST', '/ai/usages/vision/test', { body: {} })).status).toBe(422);

    const cred = (await api(sb, 'GET', '/ai/credentials')).json.data[0];
    const c = await api(sb, 'POST', `/ai/credentials/${cred.id}/test`);
    expect(c.json.data).toMatchObject({ status: 'succeeded', credential_id: cred.id });
    expect((await api(sb, 'POST', `/ai/credentials/${ENGAGEMENT}/test`)).status).toBe(404);
  });
});

describe('voice lab trials', () => {
  it('creates a trial, then records only timings and a note on it', async () => {
    expect((await api(sb, 'GET', '/ai/voice-lab/trials')).json.data).toHaveLength(2);
    const created = await api(sb, 'POST', '/ai/voice-lab/trials', {
      body: {
        mode: 'voice_only',
        locale: 'fr',
        label: 'Essai Mistral',
        voice: { voice_architecture: 'cascade', driver: 'mistral', model: 'mistral-large-latest' },
      },
    });
    expect(created.status).toBe(201);
    expect(created.json.data).toMatchObject({ label: 'Essai Mistral', first_sound_ms: null });
    const id = created.json.data.id;
    const patched = await api(sb, 'PATCH', `/ai/voice-lab/trials/${id}`, { body: { first_sound_ms: 800, note: 'Correct' } });
    expect(patched.json.data).toMatchObject({ first_sound_ms: 800, note: 'Correct', label: 'Essai Mistral', response_ms: null });
    const tooLong = await api(sb, 'PATCH', `/ai/voice-lab/trials/${id}`, { body: { duration_ms: 3_600_001 } });
    expect(tooLong.status).toBe(422);
    expect((await api(sb, 'DELETE', `/ai/voice-lab/trials/${id}`)).status).toBe(204);
    expect((await api(sb, 'PATCH', `/ai/voice-lab/trials/${id}`, { body: { note: 'x' } })).status).toBe(404);
  });

  it('refuses a trial for an engagement that does not exist', async () => {
    const r = await api(sb, 'POST', '/ai/voice-lab/trials', { body: { engagement_id: METHOD } });
    expect(r.status).toBe(422);
  });
});
