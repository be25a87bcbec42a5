// Methods and guides over real HTTP: method lifecycle, versions, topics and their order, engagement
// overrides in the effective guide, and AI topic proposals.
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

const topicsOf = async (ownerType: string, ownerId: string) => (await api(sb, 'GET', `/guide/${ownerType}/${ownerId}/topics?limit=200`)).json.data as any[];

describe('methods', () => {
  it('lists the P2P method and another, with two versions of P2P, newest first', async () => {
    const methods = (await api(sb, 'GET', '/methods')).json.data;
    expect(methods.map((m: any) => m.name)).toContain('Audit achats-fournisseurs (P2P)');
    expect(methods.length).toBeGreaterThanOrEqual(2);
    const versions = (await api(sb, 'GET', `/methods/${METHOD}/versions`)).json.data;
    expect(versions.map((v: any) => v.number)).toEqual([2, 1]);
    const v1 = await api(sb, 'GET', `/methods/${METHOD}/versions/${versions[1].id}`);
    expect(v1.json.data.snapshot.topics.length).toBeLessThan((await topicsOf('method', METHOD)).length);
    const other = methods.find((m: any) => m.id !== METHOD);
    expect((await api(sb, 'GET', `/methods/${other.id}/versions/${versions[1].id}`)).status).toBe(404);
  });

  it('creates, renames, duplicates and deletes a method', async () => {
    const created = await api(sb, 'POST', '/methods', { body: { name: 'Audit trésorerie' } });
    expect(created.status).toBe(201);
    const id = created.json.data.id;
    await api(sb, 'POST', `/guide/method/${id}/topics`, { body: { title: 'Prévisions de trésorerie' } });
    const renamed = await api(sb, 'PATCH', `/methods/${id}`, { body: { name: 'Audit de la trésorerie', description: 'Cash' } });
    expect(renamed.json.data).toMatchObject({ name: 'Audit de la trésorerie', description: 'Cash' });
    const copy = await api(sb, 'POST', `/methods/${id}/duplicate`, { locale: 'fr' });
    expect(copy.status).toBe(201);
    expect(copy.json.data.name).toBe('Copie de Audit de la trésorerie');
    expect((await topicsOf('method', copy.json.data.id)).map((t) => t.title)).toEqual(['Prévisions de trésorerie']);
    expect((await api(sb, 'DELETE', `/methods/${id}`)).status).toBe(204);
    expect((await api(sb, 'GET', `/methods/${id}`)).status).toBe(404);
  });

  it('refuses to delete a method an engagement uses', async () => {
    const r = await api(sb, 'DELETE', `/methods/${METHOD}`);
    expect(r.status).toBe(409);
    expect(r.json.code).toBe('method.in_use');
    expect(r.json.details.engagement_ids).toContain(ENGAGEMENT);
  });

  it('creates a method from a template with its topics; an unknown template is refused', async () => {
    const templates = (await api(sb, 'GET', '/methods/templates')).json.data.map((t: any) => t.template_key);
    expect(templates).toEqual(['p2p_audit', 'o2c_audit', 'hr_onboarding']);
    const r = await api(sb, 'POST', '/methods/from-template', { body: { template_key: 'o2c_audit', locale: 'fr' } });
    expect(r.status).toBe(201);
    expect(r.json.data).toMatchObject({ name: 'Audit order-to-cash', template_key: 'o2c_audit', locale: 'fr' });
    expect((await topicsOf('method', r.json.data.id)).length).toBe(3);
    expect((await api(sb, 'POST', '/methods/from-template', { body: { template_key: 'nope' } })).status).toBe(422);
  });

  it('serves the methods enums and avatar presets; an unknown enum is 404', async () => {
    const ops = (await api(sb, 'GET', '/methods/enums/override-operations')).json.data.map((v: any) => v.value);
    expect(ops).toEqual(['modify', 'remove', 'make_optional', 'make_mandatory']);
    expect((await api(sb, 'GET', '/methods/enums/depths')).json.data.map((v: any) => v.value)).toEqual(['overview', 'standard', 'deep']);
    expect((await api(sb, 'GET', '/methods/enums/avatar-presets')).json.data.length).toBeGreaterThan(0);
    expect((await api(sb, 'GET', '/methods/enums/colours')).status).toBe(404);
  });
});

describe('guide topics', () => {
  it('has 6 to 8 P2P topics with questions, targets and demonstrations', async () => {
    const topics = await topicsOf('method', METHOD);
    expect(topics.length).toBeGreaterThanOrEqual(6);
    expect(topics.length).toBeLessThanOrEqual(8);
    expect(topics.map((t) => t.position)).toEqual(topics.map((_, i) => i));
    expect(topics.every((t) => t.opening_questions.length > 0 && t.information_targets.length > 0)).toBe(true);
    expect(topics.some((t) => t.demonstrations.length > 0)).toBe(true);
  });

  it('creates, updates and deletes a topic of an engagement, keeping positions dense', async () => {
    const created = await api(sb, 'POST', `/guide/engagement/${ENGAGEMENT}/topics`, {
      body: { title: 'Portail fournisseurs', requirement: 'optional', information_targets: [{ key: 'portal', label: 'Usage du portail' }] },
    });
    expect(created.status).toBe(201);
    expect(created.json.data).toMatchObject({ owner_type: 'engagement', owner_id: ENGAGEMENT, position: 0, depth: 'standard' });
    const patched = await api(sb, 'PATCH', `/guide/engagement/${ENGAGEMENT}/topics/${created.json.data.id}`, { body: { depth: 'deep' } });
    expect(patched.json.data).toMatchObject({ depth: 'deep', title: 'Portail fournisseurs' });
    // A method topic is not the engagement's to edit.
    const methodTopic = (await topicsOf('method', METHOD))[0];
    expect((await api(sb, 'PATCH', `/guide/engagement/${ENGAGEMENT}/topics/${methodTopic.id}`, { body: { depth: 'deep' } })).status).toBe(404);
    expect((await api(sb, 'DELETE', `/guide/engagement/${ENGAGEMENT}/topics/${created.json.data.id}`)).status).toBe(204);
    expect(await topicsOf('engagement', ENGAGEMENT)).toEqual([]);
  });

  it("reorders with exactly the owner's topic ids, and refuses any other list", async () => {
    const topics = await topicsOf('method', METHOD);
    const reversed = topics.map((t) => t.id).reverse();
    const r = await api(sb, 'POST', `/guide/method/${METHOD}/topics/reorder`, { body: { ids: reversed } });
    expect(r.status).toBe(201);
    expect((await topicsOf('method', METHOD)).map((t) => t.id)).toEqual(reversed);
    const missing = await api(sb, 'POST', `/guide/method/${METHOD}/topics/reorder`, { body: { ids: reversed.slice(1) } });
    expect(missing.status).toBe(422);
    const twice = await api(sb, 'POST', `/guide/method/${METHOD}/topics/reorder`, { body: { ids: [...reversed.slice(1), reversed[1]] } });
    expect(twice.status).toBe(422);
    await api(sb, 'POST', `/guide/method/${METHOD}/topics/reorder`, { body: { ids: topics.map((t) => t.id) } });
  });

  it('answers 404 for an unknown owner type or owner', async () => {
    expect((await api(sb, 'GET', `/guide/workspace/${METHOD}/topics`)).status).toBe(404);
    expect((await api(sb, 'GET', `/guide/method/${ENGAGEMENT}/topics`)).status).toBe(404);
  });
});

describe('effective guide and overrides', () => {
  it("applies the engagement's seeded overrides to the method topics", async () => {
    const g = (await api(sb, 'GET', `/guide/engagement/${ENGAGEMENT}/effective`)).json.data;
    expect(g.method_id).toBe(METHOD);
    const approval = g.topics.find((t: any) => t.key === 'approval');
    expect(approval).toMatchObject({ override: 'modify', depth: 'deep' });
    expect(g.topics.find((t: any) => t.key === 'closing')).toMatchObject({ override: 'make_mandatory', requirement: 'mandatory' });
  });

  it('removes, makes optional and restores a topic through overrides', async () => {
    const topics = await topicsOf('method', METHOD);
    const role = topics.find((t) => t.key === 'role')!;
    const payment = topics.find((t) => t.key === 'payment')!;
    expect((await api(sb, 'PUT', `/guide/engagement/${ENGAGEMENT}/overrides/${role.id}`, { body: { operation: 'remove' } })).status).toBe(200);
    await api(sb, 'PUT', `/guide/engagement/${ENGAGEMENT}/overrides/${payment.id}`, { body: { operation: 'make_optional' } });
    let g = (await api(sb, 'GET', `/guide/engagement/${ENGAGEMENT}/effective`)).json.data;
    expect(g.topics.map((t: any) => t.id)).not.toContain(role.id);
    expect(g.removed_topic_ids).toContain(role.id);
    expect(g.topics.find((t: any) => t.id === payment.id).requirement).toBe('optional');

    expect((await api(sb, 'DELETE', `/guide/engagement/${ENGAGEMENT}/overrides/${role.id}`)).status).toBe(204);
    expect((await api(sb, 'DELETE', `/guide/engagement/${ENGAGEMENT}/overrides/${role.id}`)).status).toBe(404);
    g = (await api(sb, 'GET', `/guide/engagement/${ENGAGEMENT}/effective`)).json.data;
    expect(g.topics.map((t: any) => t.id)).toContain(role.id);
  });

  it('refuses a modify without patch, an override of a method guide, and a topic not inherited', async () => {
    const topic = (await topicsOf('method', METHOD))[0];
    expect((await api(sb, 'PUT', `/guide/engagement/${ENGAGEMENT}/overrides/${topic.id}`, { body: { operation: 'modify' } })).status).toBe(422);
    expect((await api(sb, 'PUT', `/guide/method/${METHOD}/overrides/${topic.id}`, { body: { operation: 'remove' } })).status).toBe(422);
    expect((await api(sb, 'PUT', `/guide/engagement/${ENGAGEMENT}/overrides/${METHOD}`, { body: { operation: 'remove' } })).status).toBe(404);
  });
});

describe('topic proposals', () => {
  it('proposes count topics keyed p1..pN and accepts chosen ones with edits', async () => {
    const r = await api(sb, 'POST', `/guide/method/${METHOD}/propose-topics`, { body: { count: 4, focus: 'e-invoicing' } });
    expect(r.status).toBe(201);
    expect(r.json.data.topics.map((t: any) => t.key)).toEqual(['p1', 'p2', 'p3', 'p4']);
    const id = r.json.data.id;
    expect((await api(sb, 'GET', `/guide/method/${METHOD}/proposals/${id}`)).json.data.id).toBe(id);
    expect((await api(sb, 'GET', `/guide/engagement/${ENGAGEMENT}/proposals/${id}`)).status).toBe(404);

    const before = (await topicsOf('method', METHOD)).length;
    const accept = await api(sb, 'POST', `/guide/method/${METHOD}/proposals/${id}/accept`, {
      body: { keys: ['p2', 'p4'], edits: [{ title: 'Séparation des tâches (SAP)', depth: 'deep' }] },
    });
    expect(accept.status).toBe(201);
    expect(accept.json.data.topics[0]).toMatchObject({ title: 'Séparation des tâches (SAP)', depth: 'deep', owner_type: 'method' });
    expect(accept.json.data.proposal.status).toBe('partially_accepted');
    expect((await topicsOf('method', METHOD)).length).toBe(before + 2);

    expect((await api(sb, 'POST', `/guide/method/${METHOD}/proposals/${id}/accept`, { body: { keys: ['p9'] } })).status).toBe(422);
    expect((await api(sb, 'POST', `/guide/method/${METHOD}/proposals/${id}/accept`, { body: { keys: ['p2'] } })).status).toBe(409);
  });

  it('names the seeded pending proposal of the engagement in its effective guide', async () => {
    const g = (await api(sb, 'GET', `/guide/engagement/${ENGAGEMENT}/effective`)).json.data;
    const pending = g.proposals.find((p: any) => p.status === 'pending');
    const proposal = (await api(sb, 'GET', `/guide/engagement/${ENGAGEMENT}/proposals/${pending.id}`)).json.data;
    expect(proposal.topics.map((t: any) => t.key)).toEqual(['p1', 'p2', 'p3']);
    expect(proposal.accepted_keys).toEqual([]);
  });

  it('proposes between 3 and 12 topics', async () => {
    expect((await api(sb, 'POST', `/guide/engagement/${ENGAGEMENT}/propose-topics`, { body: { count: 12 } })).json.data.topics).toHaveLength(12);
    expect((await api(sb, 'POST', `/guide/engagement/${ENGAGEMENT}/propose-topics`, { body: { count: 2 } })).status).toBe(422);
  });
});
