// One door to the workspace (docs/architecture.md, One door): only src/api speaks HTTP to
// the workspace's API, under the token's rate limiter, and only the pipeline hands it calls, so every
// read and write (tools, resources, completions, uploads' format check) is resolved under the
// session's policy and validated before a request is spent. Checked on the source text: a call of
// the API client (`callOperation`, `request({method ...})`) or a global fetch of the API in any other
// module fails here, naming the module and the line.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/spawn.js';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/**
 * Modules that may call the API client, each for a reason. The sandbox is the workspace itself (it
 * shares no client code).
 */
const DOORS: Record<string, string> = {
  'src/api/': 'the API client itself, GET /me (me.ts) for whoever needs to know the member, and the live description (description.ts)',
  'src/mcp/pipeline/pipeline.ts': 'the pipeline: resolve, parse, run',
  'src/mcp/pipeline/follow-jobs.ts': "the pipeline's run step following a job it started (its reads and cancel)",
  'src/sandbox/': 'the emulated workspace',
};

const CLIENT_CALL = /\.callOperation\(|\.request\(\s*\{\s*method\s*:/;
/** Any HTTP read of the API written out by hand (a fetch, an undici request, a `get` of a URL under /api/v1). */
const RAW_API_READ = /\b(fetch|request|get)\([^)]*\/api\/v1/;
/**
 * Where a hand-written read of the API is the point: the doctor reports the raw answer (an HTML page,
 * a redirect, the Date header it measures the clock against) that the client's typed errors and
 * retries would hide. It is a one-shot command, not a server: no budget to share.
 */
const RAW_READERS = ['src/doctor/'];
/** A global fetch (not a method named fetch) of the workspace's API. */
const API_FETCH = /(?<![.\w])fetch\([^)]*\/api\/v1/;

function offending(pattern: RegExp, allowed: readonly string[] = Object.keys(DOORS)): string[] {
  const out: string[] = [];
  for (const file of files(join(ROOT, 'src'))) {
    const path = relative(ROOT, file).split('\\').join('/');
    if (allowed.some((d) => path.startsWith(d))) continue;
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (!/^\s*(\/\/|\*)/.test(line) && pattern.test(line)) out.push(`${path}:${i + 1}: ${line.trim()}`);
      });
  }
  return out;
}

describe('the one door to the workspace', () => {
  it('no module outside src/api and the pipeline calls the API client', () => {
    expect(offending(CLIENT_CALL)).toEqual([]);
  });

  it('no module outside src/api fetches the API by itself, beside the client and its limiter', () => {
    expect(offending(API_FETCH)).toEqual([]);
  });

  it('no module reads the API by hand but the doctor, whose diagnosis needs the raw answer', () => {
    expect(offending(RAW_API_READ, [...Object.keys(DOORS), ...RAW_READERS])).toEqual([]);
    // The doctor does, where it says so.
    expect(offending(RAW_API_READ, Object.keys(DOORS)).every((line) => line.startsWith('src/doctor/'))).toBe(true);
  });

  it('the check finds such a call where one is written', () => {
    // The patterns match the ways the client is called and the API fetched, so an empty answer above means something.
    expect(CLIENT_CALL.test('    const res = await deps.client.callOperation(op, args, { signal });')).toBe(true);
    expect(CLIENT_CALL.test("const me = (await client.request({ method: 'GET', path: '/me' })).data;")).toBe(true);
    expect(API_FETCH.test("const res = await fetch(new URL('/api/v1/me', workspaceUrl), {")).toBe(true);
    expect(API_FETCH.test('const doc = await this.documents.fetch(clientId);')).toBe(false);
    expect(RAW_API_READ.test("const a = await input.http.get(origin + '/api/v1/me', source.value);")).toBe(true);
  });
});
