// Resources and completions read the workspace through the pipeline, like tool calls: the URI's and
// the context's variables are validated by the operation's schema first, so one that cannot be an id
// spends no request (the sandbox's request log shows none), and what is read is held to the session's
// policy and the token's limiter.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGAGEMENT_AP } from '../../../src/sandbox/data/ids.js';
import type { SandboxHandle } from '../../../src/sandbox/index.js';
import { type Stack, startDefaultStack, stopDefaultStack } from '../../helpers/stack.js';

let sandbox: SandboxHandle;
let stack: Stack;
beforeAll(async () => {
  ({ sandbox, stack } = await startDefaultStack());
});
afterAll(() => stopDefaultStack({ sandbox, stack }));

const apiRequests = () => sandbox.requests().filter((r) => r.path.startsWith('/api/v1/') && !r.path.endsWith('/openapi.json'));

describe('resources through the pipeline', () => {
  it('a resource URI whose id is not a ULID is refused, naming the variable, and sends no request', async () => {
    sandbox.clearRequests();
    await expect(stack.client.readResource({ uri: 'workspace://engagements/not-a-ulid' })).rejects.toThrow(/engagement/);
    await expect(stack.client.readResource({ uri: `workspace://engagements/${ENGAGEMENT_AP}/findings/..%2F..%2Fme` })).rejects.toThrow(/finding/);
    expect(apiRequests()).toEqual([]);
  });

  it('a valid URI is read with one request to the operation behind it', async () => {
    sandbox.clearRequests();
    const r = await stack.client.readResource({ uri: `workspace://engagements/${ENGAGEMENT_AP}` });
    expect(JSON.parse((r.contents[0] as { text: string }).text)).toMatchObject({ id: ENGAGEMENT_AP });
    expect(apiRequests().map((q) => q.template)).toEqual(['/engagements/{engagement}']);
  });
});

describe('completions through the pipeline', () => {
  it('a context id that is not a ULID completes nothing and sends no request', async () => {
    sandbox.clearRequests();
    const ref = { type: 'ref/resource' as const, uri: 'workspace://engagements/{engagement}/findings/{finding}' };
    const r = await stack.client.complete({ ref, argument: { name: 'finding', value: '' }, context: { arguments: { engagement: 'not-a-ulid' } } });
    expect(r.completion.values).toEqual([]);
    expect(apiRequests()).toEqual([]);
  });

  it('a valid context is looked up with one request', async () => {
    sandbox.clearRequests();
    const ref = { type: 'ref/resource' as const, uri: 'workspace://engagements/{engagement}/findings/{finding}' };
    const r = await stack.client.complete({ ref, argument: { name: 'finding', value: '' }, context: { arguments: { engagement: ENGAGEMENT_AP } } });
    expect(r.completion.values.length).toBeGreaterThan(0);
    expect(apiRequests().map((q) => q.template)).toEqual(['/engagements/{engagement}/findings']);
  });
});
