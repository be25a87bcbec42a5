// Failures as tool errors: a state store briefly unavailable mid-call (Redis down, or a Sentinel
// switch under way) is a tool error the assistant can act on, never an internal error; a bug stays one.
import { describe, expect, it } from 'vitest';
import { catalog } from '../../../catalog/index.js';
import { renderError } from '../../../src/mcp/render/failures.js';
import { ERROR_META_KEY } from '../../../src/mcp/render/tool-result.js';
import type { Operation } from '../../../src/operation.js';
import { StoreUnavailableError } from '../../../src/store/state-store.js';

const byMethod = (method: string) => catalog.find((o: Operation) => o.method === method) as Operation;

describe('renderError', () => {
  it('answers a store briefly unavailable as a tool error: call again for a read, read first for a write', () => {
    const down = new Error('could not keep the link', { cause: new StoreUnavailableError('Redis is unreachable (ECONNRESET).') });
    const read = renderError(byMethod('GET'), down);
    expect(read).toMatchObject({ isError: true, _meta: { [ERROR_META_KEY]: { code: 'store_unavailable' } } });
    expect(read.content[0]).toMatchObject({ text: expect.stringMatching(/briefly unavailable\. Call again in a few seconds\.$/) });
    const write = renderError(byMethod('POST'), new StoreUnavailableError('Redis is unreachable (READONLY).'));
    expect(write.content[0]).toMatchObject({ text: expect.stringMatching(/may have been applied: read the resource before trying again/) });
  });

  it('throws what is neither a failure of the API, the transport nor the store (a bug stays a bug)', () => {
    expect(() => renderError(byMethod('GET'), new TypeError('x is undefined'))).toThrow(TypeError);
  });
});
