// `npm test` leaves nothing in the temp directory or the home folder: the run has a root of its own
// (test/setup/temp-root.ts), removed at the end, with a home inside it, and every process a test starts
// writes its temporary files there, and its home's files in that home unless given a HOME of its own,
// even one given an environment of its own (test/setup/child-env.ts). .ci/run checks the machine's temp
// directory, the home folder and the clone after the whole suite.
import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';
import { RUN_ROOT_PREFIX } from '../setup/temp-root.js';

const PRINT_TMPDIR = 'process.stdout.write(require("node:os").tmpdir())';
/** An environment of its own, as the helpers give the servers they start: no TMPDIR in it. */
const OWN_ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };

describe('the run temp root', () => {
  it("is this test file's temp directory, inside the machine's", () => {
    expect(basename(tmpdir())).toMatch(new RegExp(`^${RUN_ROOT_PREFIX}`));
    expect(dirname(tmpdir())).not.toContain(RUN_ROOT_PREFIX);
  });

  it('is the temp directory of a child started with an environment of its own, however it is started', async () => {
    const viaSpawn = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['-e', PRINT_TMPDIR], { env: OWN_ENV, stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.on('error', reject);
      child.on('close', () => resolve(out));
    });
    const viaSpawnSync = spawnSync(process.execPath, ['-e', PRINT_TMPDIR], { env: OWN_ENV, encoding: 'utf8' }).stdout;
    const viaExecFileSync = execFileSync(process.execPath, ['-e', PRINT_TMPDIR], { env: OWN_ENV, encoding: 'utf8' });
    const viaPromisified = (await promisify(execFile)(process.execPath, ['-e', PRINT_TMPDIR], { env: OWN_ENV })).stdout;
    expect({ viaSpawn, viaSpawnSync, viaExecFileSync, viaPromisified }).toEqual({
      viaSpawn: tmpdir(),
      viaSpawnSync: tmpdir(),
      viaExecFileSync: tmpdir(),
      viaPromisified: tmpdir(),
    });
  });

  it("is the temp directory of a server the MCP SDK's stdio transport starts with its default environment", async () => {
    // The transport builds the child's environment itself (HOME, PATH, ...: no TMPDIR) and starts it
    // through cross-spawn; the child here reports its temp directory on stderr and exits.
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['-e', `process.stderr.write(require("node:os").tmpdir())`],
      stderr: 'pipe',
    });
    let said = '';
    transport.stderr?.on('data', (d: Buffer) => (said += d.toString()));
    const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
    await transport.start();
    await closed;
    expect(said).toBe(tmpdir());
  });

  it("holds this test file's home and XDG folders; npm keeps the person's configuration and cache", () => {
    expect(homedir().startsWith(`${tmpdir()}/`)).toBe(true);
    for (const name of ['XDG_CONFIG_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME'])
      expect(process.env[name], name).toMatch(new RegExp(`^${homedir()}/`));
    for (const name of ['npm_config_userconfig', 'npm_config_cache']) expect(process.env[name]?.startsWith(tmpdir()), name).toBe(false);
  });

  it('is the home of a child given no HOME; a child given its own keeps it, and the folders that follow from it', () => {
    const PRINT_HOME = 'process.stdout.write(JSON.stringify([require("node:os").homedir(), process.env.XDG_CONFIG_HOME ?? null]))';
    const run = (env: Record<string, string>) => JSON.parse(execFileSync(process.execPath, ['-e', PRINT_HOME], { env, encoding: 'utf8' })) as unknown;
    expect(run({ PATH: process.env.PATH ?? '' })).toEqual([homedir(), process.env.XDG_CONFIG_HOME]);
    const own = join(tmpdir(), 'own-home');
    expect(run({ PATH: process.env.PATH ?? '', HOME: own })).toEqual([own, null]);
  });
});
