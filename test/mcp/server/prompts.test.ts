// Prompts for the three jobs and completion of their arguments and of resource template variables,
// over real HTTP: engagement ids complete from what a person types (their name), enums from the catalog.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENT_KINDS } from '../../../catalog/shared.js';
import { ENGAGEMENT_AP, INTERVIEW_AP_CLERK } from '../../../src/sandbox/data/ids.js';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { type Stack, startDefaultStack, stopDefaultStack } from '../../helpers/stack.js';

let sandbox: SandboxHandle;
let stack: Stack;
beforeAll(async () => {
  ({ sandbox, stack } = await startDefaultStack());
});
afterAll(() => stopDefaultStack({ sandbox, stack }));

const textOfPrompt = (r: Awaited<ReturnType<Stack['client']['getPrompt']>>) => {
  const c = r.messages[0]!.content;
  return c.type === 'text' ? c.text : '';
};

describe('prompts', () => {
  it('are listed for the three jobs and the briefing, with their arguments', async () => {
    const { prompts } = await stack.client.listPrompts();
    expect(prompts.map((p) => [p.name, (p.arguments ?? []).map((a) => a.name)])).toEqual([
      ['review_proposed_findings', ['engagement']],
      ['resolve_contradictions', ['engagement']],
      ['draft_deliverable_document', ['engagement', 'kind']],
      ['brief_engagement', ['engagement']],
    ]);
  });

  it('review_proposed_findings checks evidence first and applies decisions only after agreement, in one batch', async () => {
    const text = textOfPrompt(await stack.client.getPrompt({ name: 'review_proposed_findings', arguments: { engagement: ENGAGEMENT_AP } }));
    expect(text).toContain(ENGAGEMENT_AP);
    expect(text).toMatch(/get_finding[\s\S]*evidences[\s\S]*go-ahead[\s\S]*review_findings/);
  });

  it('resolve_contradictions never resolves without confirmation', async () => {
    const text = textOfPrompt(await stack.client.getPrompt({ name: 'resolve_contradictions', arguments: { engagement: ENGAGEMENT_AP } }));
    expect(text).toMatch(/list_contradictions[\s\S]*resolve_contradiction/);
    expect(text).toMatch(/Never resolve one I have not confirmed/);
  });

  it('draft_deliverable_document names the document kind and stops short of publishing', async () => {
    const text = textOfPrompt(await stack.client.getPrompt({ name: 'draft_deliverable_document', arguments: { engagement: ENGAGEMENT_AP, kind: 'roadmap' } }));
    expect(text).toMatch(/roadmap document/);
    expect(text).toMatch(/document_context[\s\S]*edit_document_blocks/);
    expect(text).toMatch(/Do not publish/);
  });

  it('brief_engagement starts from the overview', async () => {
    const text = textOfPrompt(await stack.client.getPrompt({ name: 'brief_engagement', arguments: { engagement: ENGAGEMENT_AP } }));
    expect(text).toMatch(/engagement_overview/);
    expect(text).toContain(`workspace://engagements/${ENGAGEMENT_AP}`);
  });

  it('refuses a missing argument or an unknown kind', async () => {
    await expect(stack.client.getPrompt({ name: 'brief_engagement', arguments: {} })).rejects.toThrow(/needs the argument engagement/);
    await expect(stack.client.getPrompt({ name: 'draft_deliverable_document', arguments: { engagement: ENGAGEMENT_AP, kind: 'novel' } })).rejects.toThrow(
      /Unknown document kind/,
    );
  });
});

describe('completions', () => {
  const promptRef = (name: string) => ({ type: 'ref/prompt' as const, name });

  it('an engagement completes from part of its name', async () => {
    const engagements = (await stack.api.request({ method: 'GET', path: '/engagements' })).data as { id: string; name: string }[];
    const ap = engagements.find((e) => e.id === ENGAGEMENT_AP)!;
    const word = ap.name.split(' ').find((w) => w.length > 4)!;
    const r = await stack.client.complete({ ref: promptRef('brief_engagement'), argument: { name: 'engagement', value: word.toLowerCase() } });
    expect(r.completion.values).toContain(ENGAGEMENT_AP);
    const none = await stack.client.complete({ ref: promptRef('brief_engagement'), argument: { name: 'engagement', value: 'zzzz-no-such' } });
    expect(none.completion.values).toEqual([]);
  });

  it('document kinds complete from the catalog enum', async () => {
    const r = await stack.client.complete({ ref: promptRef('draft_deliverable_document'), argument: { name: 'kind', value: 'ro' } });
    expect(r.completion.values).toEqual(DOCUMENT_KINDS.filter((k) => k.startsWith('ro')));
  });

  it('resource template variables complete, using the other variables already given', async () => {
    const ref = { type: 'ref/resource' as const, uri: 'workspace://engagements/{engagement}/findings/{finding}' };
    const r = await stack.client.complete({ ref, argument: { name: 'finding', value: '' }, context: { arguments: { engagement: ENGAGEMENT_AP } } });
    const findings = (
      await stack.api.request({ method: 'GET', path: '/engagements/{engagement}/findings', pathParams: { engagement: ENGAGEMENT_AP }, query: { limit: 200 } })
    ).data as { id: string }[];
    expect(r.completion.values.sort()).toEqual(findings.map((f) => f.id).sort());

    const chapters = await stack.client.complete({
      ref: { type: 'ref/resource', uri: 'workspace://interviews/{interview}/chapters/{chapter}/recap' },
      argument: { name: 'chapter', value: '' },
      context: { arguments: { interview: INTERVIEW_AP_CLERK } },
    });
    expect(chapters.completion.values.length).toBeGreaterThan(0);
  });

  it('an unknown prompt or template is refused', async () => {
    await expect(stack.client.complete({ ref: promptRef('nope'), argument: { name: 'engagement', value: '' } })).rejects.toThrow(/Unknown prompt/);
  });
});
