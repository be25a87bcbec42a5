// The analysis area of the sandbox over real HTTP: findings and their evidences, reviews,
// contradictions, change proposals, analysis runs as jobs, the summary and the enums.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP, ENGAGEMENT_GLOBEX, MEMBER_CLAIRE, SESSION_AP_CLERK } from '../../../src/sandbox/data/ids.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';
import { TestClock } from '../../helpers/clock.js';
import { call } from '../raw-http.js';

const E = `/engagements/${ENGAGEMENT_AP}`;
const UNKNOWN = '01AAAAAAAAAAAAAAAAAAAAAAAA';

let sb: SandboxHandle;
// The sandbox's clock stands still: a run is read at the moments a test moves it to.
const clock = new TestClock({ frozen: true });
beforeAll(async () => {
  // 0.01: an analysis run (90 s) takes 0.9 s of the clock, a session end 50 ms.
  sb = await startSandbox({ port: 0, timeScale: 0.01, rateLimit: false, clock: clock.now });
});
afterAll(() => sb.close());
beforeEach(() => sb.admin.reset());

async function all(path: string): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const r = await call(sb, 'GET', `${path}?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
    expect(r.status).toBe(200);
    out.push(...r.json.data);
    cursor = r.json.meta.next_cursor;
  } while (cursor);
  return out;
}

async function clerkSegments(): Promise<any[]> {
  const r = await call(sb, 'GET', `/sessions/${SESSION_AP_CLERK}/transcript`);
  return r.json.data.segments;
}

describe('seeded findings and evidences', () => {
  it('has about twenty findings of several types, mostly proposed, some validated, one rejected', async () => {
    const findings = await all(`${E}/findings`);
    expect(findings.length).toBeGreaterThanOrEqual(18);
    const types = new Set(findings.map((f) => f.type));
    for (const t of ['irritant', 're_entry', 'volume', 'duration', 'business_rule', 'tool', 'key_person_dependency', 'risk', 'good_practice']) {
      expect(types).toContain(t);
    }
    const byStatus = (s: string) => findings.filter((f) => f.review_status === s).length;
    expect(byStatus('proposed')).toBeGreaterThan(byStatus('validated'));
    expect(byStatus('validated')).toBeGreaterThan(0);
    expect(byStatus('rejected')).toBe(1);
    for (const f of findings) expect(f.evidences.length).toBeGreaterThanOrEqual(1);
  });

  it('backs every evidence with a source of the engagement whose text contains the excerpt', async () => {
    const findings = await all(`${E}/findings`);
    const evidences = findings.flatMap((f) => f.evidences);
    const segmentEvidences = evidences.filter((e) => e.source_type === 'transcript_segment');
    expect(segmentEvidences.length).toBeGreaterThan(evidences.length / 2);
    for (const ev of evidences) {
      const preview = await call(sb, 'GET', `${E}/evidences/${ev.id}/preview`);
      expect(preview.status).toBe(200);
      expect(preview.json.data.available).toBe(true);
      expect(preview.json.data.text).toContain(ev.excerpt);
      if (ev.source_type === 'transcript_segment') {
        // The segment, read through its interview, is the very one cited.
        const source = await call(sb, 'GET', `/interviews/${ev.interview_id}/sources/transcript_segment/${ev.source_id}`);
        expect(source.status).toBe(200);
        expect(source.json.data.record.text).toContain(ev.excerpt);
      }
    }
    expect(new Set(evidences.map((e) => e.source_type)).size).toBeGreaterThanOrEqual(5);
  });

  it('previews a transcript evidence with speaker, interview, timestamps and the turns around it', async () => {
    const findings = await all(`${E}/findings`);
    const ev = findings.flatMap((f) => f.evidences).find((e) => e.source_type === 'transcript_segment');
    const p = (await call(sb, 'GET', `${E}/evidences/${ev.id}/preview`)).json.data;
    expect(p).toMatchObject({ evidence_id: ev.id, source_id: ev.source_id, speaker: 'participant' });
    expect(p.interview).toMatchObject({ id: ev.interview_id });
    expect(p.end_ms).toBeGreaterThan(p.start_ms);
    expect(p.context.before.length + p.context.after.length).toBeGreaterThan(0);
  });
});

describe('findings', () => {
  it('creates a finding with evidences, reads it back, updates it and deletes it', async () => {
    const seg = (await clerkSegments())[3];
    const created = await call(sb, 'POST', `${E}/findings`, {
      body: {
        type: 'irritant',
        statement: 'Les factures papier sont numérisées en retard.',
        evidences: [{ source_type: 'transcript_segment', source_id: seg.id, excerpt: seg.text.slice(0, 30) }],
      },
    });
    expect(created.status).toBe(201);
    const f = created.json.data;
    expect(f).toMatchObject({ type: 'irritant', review_status: 'proposed', engagement_id: ENGAGEMENT_AP });
    expect(f.evidences).toEqual([expect.objectContaining({ source_id: seg.id, is_publishable: true, finding_id: f.id })]);

    const patched = await call(sb, 'PATCH', `${E}/findings/${f.id}`, { body: { details: 'Vu sur 3 factures.' } });
    expect(patched.status).toBe(200);
    expect(patched.json.data).toMatchObject({ details: 'Vu sur 3 factures.', statement: f.statement });
    expect((await call(sb, 'GET', `${E}/findings/${f.id}`)).json.data.details).toBe('Vu sur 3 factures.');

    expect((await call(sb, 'DELETE', `${E}/findings/${f.id}`)).status).toBe(204);
    expect((await call(sb, 'GET', `${E}/findings/${f.id}`)).status).toBe(404);
    expect((await call(sb, 'GET', `${E}/evidences/${f.evidences[0].id}/preview`)).status).toBe(404);
  });

  it('refuses evidences whose source is not in the engagement, naming each one', async () => {
    const seg = (await clerkSegments())[1];
    const before = (await all(`${E}/findings`)).length;
    const r = await call(sb, 'POST', `${E}/findings`, {
      body: {
        type: 'risk',
        statement: 'x',
        evidences: [
          { source_type: 'transcript_segment', source_id: seg.id },
          { source_type: 'transcript_segment', source_id: UNKNOWN },
          { source_type: 'pin', source_id: seg.id },
        ],
      },
    });
    expect(r.status).toBe(422);
    expect(r.json.code).toBe('validation.failed');
    expect(Object.keys(r.json.details.fields).sort()).toEqual(['evidences.1.source_id', 'evidences.2.source_id']);
    // Nothing was stored: a refused finding leaves no half-created record behind.
    expect((await all(`${E}/findings`)).length).toBe(before);
  });

  it('refuses a step of another engagement or process', async () => {
    const r = await call(sb, 'POST', `${E}/findings`, { body: { type: 'tool', statement: 'x', step_id: UNKNOWN } });
    expect(r.status).toBe(422);
    expect(r.json.details.fields).toHaveProperty('step_id');
  });

  it('adds and removes an evidence of a finding, and sets whether it is publishable', async () => {
    const [f] = await all(`${E}/findings`);
    const seg = (await clerkSegments())[5];
    const added = await call(sb, 'POST', `${E}/findings/${f.id}/evidences`, { body: { source_type: 'transcript_segment', source_id: seg.id } });
    expect(added.status).toBe(201);
    expect(added.json.data.excerpt).toBe(seg.text.slice(0, 280));
    const hidden = await call(sb, 'PATCH', `${E}/evidences/${added.json.data.id}`, { body: { is_publishable: false } });
    expect(hidden.json.data.is_publishable).toBe(false);
    const bad = await call(sb, 'POST', `${E}/findings/${f.id}/evidences`, { body: { source_type: 'recap_item', source_id: UNKNOWN } });
    expect(bad.status).toBe(422);
    expect(bad.json.details.fields).toHaveProperty('source_id');
    expect((await call(sb, 'DELETE', `${E}/findings/${f.id}/evidences/${added.json.data.id}`)).status).toBe(204);
    const after = (await call(sb, 'GET', `${E}/findings/${f.id}`)).json.data.evidences;
    expect(after.map((e: any) => e.id)).not.toContain(added.json.data.id);
  });

  it('reviews a finding, records who and when, and allows reviewing it again', async () => {
    const f = (await all(`${E}/findings`)).find((x) => x.review_status === 'proposed');
    const v = await call(sb, 'POST', `${E}/findings/${f.id}/review`, { body: { review_status: 'validated' } });
    expect(v.status).toBe(200);
    expect(v.json.data).toMatchObject({ review_status: 'validated', reviewed_by: MEMBER_CLAIRE });
    // When: the sandbox's clock, which stands still.
    expect(Date.parse(v.json.data.reviewed_at)).toBe(clock.now());
    const again = await call(sb, 'POST', `${E}/findings/${f.id}/review`, { body: { review_status: 'validated' } });
    expect(again.status).toBe(200);
    const back = await call(sb, 'POST', `${E}/findings/${f.id}/review`, { body: { review_status: 'proposed' } });
    expect(back.json.data).toMatchObject({ review_status: 'proposed', reviewed_by: null });
  });

  it('keeps findings of one engagement out of another', async () => {
    const [f] = await all(`${E}/findings`);
    expect((await call(sb, 'GET', `/engagements/${ENGAGEMENT_GLOBEX}/findings/${f.id}`)).status).toBe(404);
    const globex = sb.workspaces.find((w) => w.slug === 'globex');
    const inGlobex = await call(sb, 'GET', `/engagements/${ENGAGEMENT_GLOBEX}/findings/${f.id}`, { host: 'globex.localhost', token: globex?.tokens.read });
    expect(inGlobex.status).toBe(404);
    expect(inGlobex.json.code).toBe('resource.not_found');
    expect((await call(sb, 'GET', `${E}/findings/${f.id}`)).status).toBe(200);
  });
});

describe('contradictions', () => {
  it('seeds two open contradictions and resolves one as kept_as_finding', async () => {
    const list = await all(`${E}/contradictions`);
    expect(list.filter((c) => c.status === 'open')).toHaveLength(2);
    const c = list[0];
    const finding = c.finding_ids[1];
    const r = await call(sb, 'POST', `${E}/contradictions/${c.id}/resolve`, {
      body: { status: 'kept_as_finding', resolved_finding_id: finding, resolution_note: 'Dix jours confirmés sur échantillon.' },
    });
    expect(r.status).toBe(200);
    expect(r.json.data).toMatchObject({ status: 'kept_as_finding', resolved_finding_id: finding, resolved_by: MEMBER_CLAIRE });
  });

  it('requires a finding of the engagement for kept_as_finding', async () => {
    const [c] = await all(`${E}/contradictions`);
    const missing = await call(sb, 'POST', `${E}/contradictions/${c.id}/resolve`, { body: { status: 'kept_as_finding' } });
    expect(missing.status).toBe(422);
    expect(missing.json.details.fields).toHaveProperty('resolved_finding_id');
    const foreign = await call(sb, 'POST', `${E}/contradictions/${c.id}/resolve`, { body: { status: 'resolved', resolved_finding_id: UNKNOWN } });
    expect(foreign.status).toBe(422);
    const dismissed = await call(sb, 'POST', `${E}/contradictions/${c.id}/resolve`, { body: { status: 'dismissed' } });
    expect(dismissed.json.data).toMatchObject({ status: 'dismissed', resolved_finding_id: null });
  });
});

describe('change proposals', () => {
  it('has six pending proposals from the last run', async () => {
    const pending = (await all(`${E}/change-proposals`)).filter((p) => p.status === 'pending');
    expect(pending).toHaveLength(6);
    expect(new Set(pending.map((p) => p.analysis_run_id)).size).toBe(1);
  });

  it('creates the finding when a finding proposal is accepted, and refuses to decide it twice', async () => {
    const p = (await all(`${E}/change-proposals`)).find((x) => x.status === 'pending' && x.entity_type === 'finding' && x.action === 'create');
    const before = (await all(`${E}/findings`)).length;
    const r = await call(sb, 'POST', `${E}/change-proposals/${p.id}/accept`);
    expect(r.status).toBe(200);
    expect(r.json.data).toMatchObject({ status: 'accepted', decided_by: MEMBER_CLAIRE });
    const created = await call(sb, 'GET', `${E}/findings/${r.json.data.result_id}`);
    expect(created.json.data).toMatchObject({ statement: p.payload.statement, review_status: 'proposed' });
    expect(created.json.data.evidences).toHaveLength(1);
    expect((await all(`${E}/findings`)).length).toBe(before + 1);

    const twice = await call(sb, 'POST', `${E}/change-proposals/${p.id}/accept`);
    expect(twice.status).toBe(409);
    expect(twice.json.code).toBe('change_proposal.not_pending');
    expect((await call(sb, 'POST', `${E}/change-proposals/${p.id}/reject`)).status).toBe(409);
  });

  it('rejects one, then accepts all of one entity type, then rejects the rest, answering counts', async () => {
    const pending = (await all(`${E}/change-proposals`)).filter((p) => p.status === 'pending');
    const opp = pending.find((p) => p.entity_type === 'opportunity');
    expect((await call(sb, 'POST', `${E}/change-proposals/${opp.id}/reject`)).json.data.status).toBe('rejected');

    const steps = pending.filter((p) => p.entity_type === 'process_step');
    const accepted = await call(sb, 'POST', `${E}/change-proposals/accept-all`, { body: { entity_type: 'process_step' } });
    expect(accepted.status).toBe(200);
    expect(accepted.json.data).toMatchObject({ accepted: steps.length, skipped: 0 });

    const rest = await call(sb, 'POST', `${E}/change-proposals/reject-all`, { body: { analysis_run_id: pending[0].analysis_run_id } });
    expect(rest.json.data.rejected).toBe(pending.length - steps.length - 1);
    expect((await all(`${E}/change-proposals`)).filter((p) => p.status === 'pending')).toHaveLength(0);
    const none = await call(sb, 'POST', `${E}/change-proposals/accept-all`, { body: {} });
    expect(none.json.data.accepted).toBe(0);
  });
});

describe('change proposals whose target is gone', () => {
  it('answers 409 for the one, and skips it in accept-all leaving it pending', async () => {
    const p = (await all(`${E}/change-proposals`)).find((x) => x.status === 'pending' && x.entity_type === 'finding' && x.action === 'update');
    expect((await call(sb, 'DELETE', `${E}/findings/${p.target_id}`)).status).toBe(204);
    const one = await call(sb, 'POST', `${E}/change-proposals/${p.id}/accept`);
    expect(one.status).toBe(409);
    expect(one.json.code).toBe('change_proposal.target_missing');
    const bulk = await call(sb, 'POST', `${E}/change-proposals/accept-all`, { body: { entity_type: 'finding' } });
    expect(bulk.json.data).toMatchObject({ accepted: 1, skipped: 1, skipped_ids: [p.id] });
    expect((await all(`${E}/change-proposals`)).find((x) => x.id === p.id).status).toBe('pending');
  });

  it('answers 404 for a proposal id of no proposal of the engagement', async () => {
    expect((await call(sb, 'POST', `${E}/change-proposals/${UNKNOWN}/accept`)).status).toBe(404);
  });
});

describe('analysis runs', () => {
  it('lists the seeded history: two succeeded runs and one failed', async () => {
    const runs = await all(`${E}/analysis/runs`);
    expect(runs.map((r) => r.status).sort()).toEqual(['failed', 'succeeded', 'succeeded']);
  });

  it('goes queued -> running -> succeeded, then adds two findings and two proposals', async () => {
    const findings = (await all(`${E}/findings`)).length;
    const proposals = (await all(`${E}/change-proposals`)).length;
    const started = await call(sb, 'POST', `${E}/analysis/runs`, { body: { mode: 'incremental' } });
    expect(started.status).toBe(201);
    expect(started.json.data).toMatchObject({ status: 'queued', mode: 'incremental', progress: 0 });
    const id = started.json.data.id;

    const busy = await call(sb, 'POST', `${E}/analysis/runs`, { body: { mode: 'full' } });
    expect(busy.status).toBe(409);
    expect(busy.json).toMatchObject({ code: 'analysis.run_in_progress', details: { run_id: id } });

    clock.advance(300);
    const mid = (await all(`${E}/analysis/runs`)).find((r) => r.id === id);
    expect(mid.status).toBe('running');
    expect(mid.progress).toBeGreaterThan(0);

    clock.advance(800);
    const done = (await all(`${E}/analysis/runs`)).find((r) => r.id === id);
    expect(done).toMatchObject({ status: 'succeeded', progress: 100, stats: { findings_proposed: 2, change_proposals: 2 } });
    const after = await all(`${E}/findings`);
    expect(after.length).toBe(findings + 2);
    for (const f of after.filter((x) => x.analysis_run_id === id)) {
      expect(f.review_status).toBe('proposed');
      expect(f.evidences.length).toBeGreaterThan(0);
    }
    const newProposals = (await all(`${E}/change-proposals`)).filter((p) => p.analysis_run_id === id);
    expect(newProposals).toHaveLength(2);
    expect((await all(`${E}/change-proposals`)).length).toBe(proposals + 2);
    const summary = (await call(sb, 'GET', `${E}/analysis/summary`)).json.data;
    expect(summary.last_run.id).toBe(id);
  });

  it('cancels a running run, and refuses to cancel a finished one', async () => {
    const id = (await call(sb, 'POST', `${E}/analysis/runs`, { body: { mode: 'full' } })).json.data.id;
    const cancelled = await call(sb, 'POST', `${E}/analysis/runs/${id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.json.data.status).toBe('cancelled');
    const again = await call(sb, 'POST', `${E}/analysis/runs/${id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.json.code).toBe('job.finished');
    // Nothing was produced by the cancelled run, even once its time has passed.
    clock.advance(1000);
    expect((await all(`${E}/change-proposals`)).filter((p) => p.analysis_run_id === id)).toHaveLength(0);
  });

  it('runs in an engagement without interviews too, proposing findings without evidences', async () => {
    const globex = sb.workspaces.find((w) => w.slug === 'globex');
    const o = { host: 'globex.localhost', token: globex?.tokens.write };
    const path = `/engagements/${ENGAGEMENT_GLOBEX}`;
    const before = (await call(sb, 'GET', `${path}/findings?limit=200`, o)).json.data.length;
    expect((await call(sb, 'POST', `${path}/analysis/runs`, { ...o, body: { mode: 'full' } })).status).toBe(201);
    clock.advance(1000);
    const runs = (await call(sb, 'GET', `${path}/analysis/runs`, o)).json.data;
    expect(runs[0].status).toBe('succeeded');
    const after = (await call(sb, 'GET', `${path}/findings?limit=200`, o)).json.data;
    expect(after.length).toBe(before + 2);
    const added = after.filter((f: any) => f.analysis_run_id === runs[0].id);
    expect(added.map((f: any) => [f.review_status, f.evidences.length])).toEqual([
      ['proposed', 0],
      ['proposed', 0],
    ]);
    // The demo engagement of the other workspace did not move.
    expect((await all(`${E}/analysis/runs`)).length).toBe(3);
  });

  it('fails when the sandbox is told to fail the next job, and produces nothing', async () => {
    sb.admin.failNextJobs('atelier', 1);
    const id = (await call(sb, 'POST', `${E}/analysis/runs`, { body: { mode: 'full' } })).json.data.id;
    clock.advance(1000);
    const run = (await all(`${E}/analysis/runs`)).find((r) => r.id === id);
    expect(run).toMatchObject({ status: 'failed', error: { code: 'job.failed' } });
    expect((await all(`${E}/findings`)).filter((f) => f.analysis_run_id === id)).toHaveLength(0);
  });
});

describe('summary and enums', () => {
  it('summarises findings by type and status, coverage by interview and topic, and the last run', async () => {
    const s = (await call(sb, 'GET', `${E}/analysis/summary`)).json.data;
    const findings = await all(`${E}/findings`);
    expect(s.findings.total).toBe(findings.length);
    expect(s.findings.by_review_status.rejected).toBe(1);
    expect(Object.values(s.findings.by_type).reduce((a: number, b) => a + (b as number), 0)).toBe(findings.length);
    expect(s.coverage.interviews).toHaveLength(3);
    for (const i of s.coverage.interviews) expect(i.evidences).toBeGreaterThan(0);
    expect(s.coverage.topics.length).toBeGreaterThan(3);
    expect(s.contradictions.open).toBe(2);
    expect(s.change_proposals.pending).toBe(6);
    expect(s.last_run.status).toBe('succeeded');
  });

  it("lists the values of each analysis enum in the caller's language, and 404s an unknown name", async () => {
    const types = await call(sb, 'GET', '/analysis/enums/finding-types', { locale: 'fr' });
    expect(types.json.data).toContainEqual({ value: 're_entry', label: 'Ressaisie' });
    for (const name of ['review-statuses', 'evidence-source-types', 'contradiction-statuses', 'proposal-entity-types', 'analysis-modes']) {
      const r = await call(sb, 'GET', `/analysis/enums/${name}`);
      expect(r.status).toBe(200);
      expect(r.json.data.length).toBeGreaterThan(1);
    }
    expect((await call(sb, 'GET', '/analysis/enums/colours')).status).toBe(404);
  });
});
