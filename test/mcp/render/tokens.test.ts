// The response budget counts o200k tokens by estimate (src/mcp/render/tokens.ts says why): checked
// here against the real tokenizer on every readable answer of the demo workspace, in both forms.
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, demoAnswers, sandboxGetter } from '../../../bench/corpus.js';
import { listText, recordText, type TextForm } from '../../../src/mcp/render/text.js';
import { estimateTokens, fitsBudget, MAX_TOKENS_PER_CHAR, maxTokensFor } from '../../../src/mcp/render/tokens.js';
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

describe("the estimate's bound by length", () => {
  it('is never exceeded by any text of up to 7 characters of every kind the estimate tells apart', () => {
    // A lower-case, a capital and an accented letter, a digit, punctuation, a space and a newline.
    const kinds = ['a', 'A', 'é', '1', ',', ' ', '\n'];
    const over: string[] = [];
    let count = 0;
    const codes = new Array<number>(8).fill(0);
    for (let length = 1; length <= 7; length++) {
      codes.fill(0);
      for (;;) {
        let text = '';
        for (let i = 0; i < length; i++) text += kinds[codes[i] as number];
        count++;
        if (estimateTokens(text) > maxTokensFor(length)) over.push(JSON.stringify(text));
        let i = 0;
        while (i < length && codes[i] === kinds.length - 1) codes[i++] = 0;
        if (i === length) break;
        codes[i] = (codes[i] as number) + 1;
      }
    }
    expect(count).toBe(960_799);
    expect(over).toEqual([]);
  });

  it('holds on long texts: the dearest pattern (accented letter, punctuation), and random text of every script', () => {
    const dearest = 'é,'.repeat(5_000);
    for (const text of [dearest, `${dearest}é`, 'é'.repeat(10_000), 'A1'.repeat(5_000), `${' '.repeat(2)}é`.repeat(3_000)]) {
      expect(estimateTokens(text)).toBeLessThanOrEqual(maxTokensFor(text.length));
    }
    // The bound is near what the dearest text costs: it cuts nothing that fits off the fast path.
    expect(estimateTokens(dearest) / dearest.length).toBeGreaterThan(MAX_TOKENS_PER_CHAR - 0.01);
    const alphabet = ['a', 'z', 'Q', 'é', 'ß', '中', '😀', '0', '9', ',', '.', '|', '«', '\u00a0', '–', ' ', '\t', '\r', '\n', '{', '"'];
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    for (let round = 0; round < 200; round++) {
      let text = '';
      const length = 1 + Math.floor(random() * 2_000);
      while (text.length < length) text += alphabet[Math.floor(random() * alphabet.length)];
      expect(estimateTokens(text)).toBeLessThanOrEqual(maxTokensFor(text.length));
    }
  });

  it('answers whether a text fits a budget exactly as the estimate does, at every budget around it', () => {
    const all = texts();
    for (const { text } of all) {
      const e = estimateTokens(text);
      for (const budget of [0, 1, Math.floor(e / 2), e - 1, e, e + 1, maxTokensFor(text.length) - 1, maxTokensFor(text.length), 250_000]) {
        expect(fitsBudget(text, budget)).toBe(e <= budget);
      }
    }
  });
});
