// The response budget counts o200k tokens by estimate (src/mcp/render/tokens.ts says why): checked
// here against the real tokenizer on every readable answer of the demo workspace, in both forms.
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, demoAnswers, sandboxGetter } from '../../../bench/corpus.js';
import { listText, recordText, type TextForm } from '../../../src/mcp/render/text.js';
import { estimateTokens } from '../../../src/mcp/render/tokens.js';
import { type SandboxHandle, startSandbox } from '../../../src/sandbox/index.js';

let sandbox: SandboxHandle;
let answers: Answer[];
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: false });
  answers = await demoAnswers(sandboxGetter(sandbox.api, sandbox.tokens.read));
});
afterAll(async () => {
  await sandbox.close();
});

function texts(): { name: string; text: string }[] {
  const out: { name: string; text: string }[] = [];
  for (const a of answers) {
    for (const format of ['concise', 'detailed'] as const) {
      const form: TextForm = { format, known: Object.values(a.args).map(String) };
      const text = Array.isArray(a.data) ? listText(a.data, form).first(a.data.length) : recordText(a.data, form).text;
      out.push({ name: `${a.op.name} ${format}`, text });
    }
  }
  return out;
}

describe('the token estimate', () => {
  it('is within 15% of the o200k count for every demo answer over 500 tokens, and within 5% over all of them', () => {
    let real = 0;
    let estimated = 0;
    const off: string[] = [];
    const all = texts();
    expect(all.length).toBeGreaterThan(80);
    for (const { name, text } of all) {
      const r = encode(text).length;
      const e = estimateTokens(text);
      real += r;
      estimated += e;
      if (r >= 500 && Math.abs(e / r - 1) > 0.15) off.push(`${name}: ${e} estimated, ${r} real`);
    }
    expect(off).toEqual([]);
    expect(Math.abs(estimated / real - 1)).toBeLessThan(0.05);
  });

  it('counts what the tokenizer counts on the cases that matter most: ids, French prose, tables', () => {
    for (const s of [
      '01M2FEW76J6CGV9AZ9YR1REGGA',
      'Les factures reçues en PDF sont ressaisies manuellement dans SAP, sans lecture automatique.',
      'findings[2]{id|type|statement}:\n01M2FEW76J6CGV9AZ9YR1REGGA|risk|Paiement en double',
    ]) {
      const r = encode(s).length;
      expect(Math.abs(estimateTokens(s) - r), s).toBeLessThanOrEqual(Math.max(2, r * 0.15));
    }
    expect(estimateTokens('')).toBe(0);
  });
});
