// The MCP Inspector's CLI (`inspector --cli`, the dev dependency, no npx download) against the stdio
// server on the embedded sandbox, as an engineer would check it: each answer is read for content,
// not only the exit code.
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/spawn.js';

const INSPECTOR = join(ROOT, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
// The server from source through tsx's own bin, so no node flag has to pass through the inspector.
const SERVER = [join(ROOT, 'node_modules/.bin/tsx'), join(ROOT, 'src/cli.ts')];

/** One inspector call: `--cli SERVER --method ...`, its stdout parsed as JSON. */
async function inspect(...args: string[]): Promise<any> {
  // The inspector starts the server with an environment of its own (PATH, HOME and a few more): the
  // run's temp root is passed by name, or tsx would keep its cache in the machine's temp directory.
  const env = ['-e', 'LOG_LEVEL=warn', '-e', `TMPDIR=${tmpdir()}`];
  const { stdout } = await promisify(execFile)(process.execPath, [INSPECTOR, '--cli', ...SERVER, ...env, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    timeout: 60_000,
  });
  return JSON.parse(stdout);
}

let engagementUri: string;
let engagementId: string;

beforeAll(async () => {
  const { resources } = await inspect('--method', 'resources/list');
  engagementUri = resources.find((r: { uri: string }) => r.uri.startsWith('workspace://engagements/'))?.uri;
  engagementId = engagementUri?.split('/').pop() as string;
}, 60_000);

describe('MCP Inspector CLI against serve on stdio', () => {
  it('lists resources: the sandbox engagement as workspace://engagements/{id}', () => {
    expect(engagementUri).toMatch(/^workspace:\/\/engagements\/[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it('lists the default tools, each with a description and its safety hint (read-only, or destructive or not)', async () => {
    const { tools } = await inspect('--method', 'tools/list');
    const names = tools.map((t: { name: string }) => t.name);
    expect(names).toEqual(expect.arrayContaining(['list_findings', 'get_session_transcript', 'find_operations', 'call_operation']));
    for (const t of tools) {
      expect(t.description.length, t.name).toBeGreaterThan(20);
      const a = t.annotations ?? {};
      expect(a.readOnlyHint === true || typeof a.destructiveHint === 'boolean', t.name).toBe(true);
    }
  });

  it('calls a read tool and gets the engagement findings', async () => {
    const result = await inspect('--method', 'tools/call', '--tool-name', 'list_findings', '--tool-arg', `engagement=${engagementId}`);
    expect(result.isError).toBeFalsy();
    const text = result.content.map((c: { text?: string }) => c.text ?? '').join('\n');
    expect(text).toMatch(/review_status/);
    expect(text).toMatch(/[0-9A-HJKMNP-TV-Z]{26}/);
  });

  it('reads the engagement resource: its JSON names the engagement it was asked for', async () => {
    const { contents } = await inspect('--method', 'resources/read', '--uri', engagementUri);
    expect(contents[0].uri).toBe(engagementUri);
    expect(contents[0].mimeType).toBe('application/json');
    const engagement = JSON.parse(contents[0].text);
    expect(engagement.id).toBe(engagementId);
    expect(typeof engagement.name).toBe('string');
  });

  it('gets a prompt with its argument filled in', async () => {
    const prompt = await inspect('--method', 'prompts/get', '--prompt-name', 'review_proposed_findings', '--prompt-args', `engagement=${engagementId}`);
    expect(prompt.messages[0].role).toBe('user');
    expect(prompt.messages[0].content.text).toContain(engagementId);
    expect(prompt.messages[0].content.text).toContain('list_findings');
  });

  it('reports a tool the server does not have as an error', async () => {
    await expect(inspect('--method', 'tools/call', '--tool-name', 'no_such_tool')).rejects.toMatchObject({ code: expect.any(Number) });
  });
});
