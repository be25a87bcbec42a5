// `npm run bench`, the token-count part: why the response budget counts tokens with an estimate
// (src/mcp/render/tokens.ts) rather than with the real o200k tokenizer at run time. For both: what
// loading costs (import time and resident memory, in a fresh process), what counting one answer
// costs, and how far the estimate is from the real count on every readable answer of the demo
// workspace, concise and detailed; with characters / 4 as the naive yardstick.
// Run: npx tsx bench/token-estimate.ts (`--json` for machine output).
import { spawnSync } from 'node:child_process';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { listText, recordText } from '../src/mcp/render/text.js';
import { estimateTokens } from '../src/mcp/render/tokens.js';
import { startSandbox } from '../src/sandbox/index.js';
import { demoAnswers, sandboxGetter } from './corpus.js';

/** Import time and resident memory added by loading the tokenizer, in a fresh Node process. */
function tokenizerLoadCost(): { importMs: number; rssMb: number } {
  const script = `
    const before = process.memoryUsage().rss;
    const t = performance.now();
    const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
    countTokens('warm up');
    const ms = performance.now() - t;
    globalThis.gc?.();
    process.stdout.write(JSON.stringify({ importMs: ms, rssMb: (process.memoryUsage().rss - before) / 1048576 }));`;
  const r = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    cwd: new URL('..', import.meta.url).pathname,
  });
  if (r.status !== 0) throw new Error(`tokenizer load: ${r.stderr}`);
  return JSON.parse(r.stdout) as { importMs: number; rssMb: number };
}

function timePerCall(texts: readonly string[], count: (t: string) => number): number {
  for (const t of texts) count(t); // warm
  const rounds = 5;
  const started = performance.now();
  for (let i = 0; i < rounds; i++) for (const t of texts) count(t);
  return (performance.now() - started) / (rounds * texts.length);
}

async function corpus(): Promise<{ name: string; text: string }[]> {
  const sandbox = await startSandbox({ port: 0, rateLimit: false, logger: () => {} });
  try {
    const answers = await demoAnswers(sandboxGetter(sandbox.api, sandbox.tokens.read));
    return answers.flatMap((a) =>
      (['concise', 'detailed'] as const).map((format) => {
        const form = { format, known: Object.values(a.args).map(String) };
        return { name: `${a.op.name} ${format}`, text: Array.isArray(a.data) ? listText(a.data, form).first(a.data.length) : recordText(a.data, form).text };
      }),
    );
  } finally {
    await sandbox.close();
  }
}

function errors(pairs: readonly { real: number; est: number }[]): { mean: number; worst: number } {
  const e = pairs.map((p) => Math.abs(p.est / p.real - 1));
  return { mean: e.reduce((a, b) => a + b, 0) / Math.max(1, e.length), worst: Math.max(0, ...e) };
}

const texts = await corpus();
const load = tokenizerLoadCost();
const real = texts.map((t) => encode(t.text).length);
const big = texts.map((t, i) => ({ ...t, real: real[i]! })).filter((t) => t.real >= 500);
const estimate = errors(big.map((t) => ({ real: t.real, est: estimateTokens(t.text) })));
const chars = errors(big.map((t) => ({ real: t.real, est: t.text.length / 4 })));
const totalReal = real.reduce((a, b) => a + b, 0);
const totalEst = texts.reduce((n, t) => n + estimateTokens(t.text), 0);
const sample = texts.map((t) => t.text);
const meanChars = sample.reduce((n, t) => n + t.length, 0) / sample.length;
const result = {
  answers: texts.length,
  answersOver500Tokens: big.length,
  tokenizer: { importMs: load.importMs, rssMb: load.rssMb, msPerAnswer: timePerCall(sample, (t) => encode(t).length) },
  estimate: {
    importMs: 0,
    rssMb: 0,
    msPerAnswer: timePerCall(sample, estimateTokens),
    meanError: estimate.mean,
    worstError: estimate.worst,
    totalRatio: totalEst / totalReal,
  },
  charsOver4: { meanError: chars.mean, worstError: chars.worst },
  meanAnswerChars: meanChars,
};

if (process.argv.includes('--json')) {
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  process.stdout.write(
    `${[
      `token counting for the response budget: ${texts.length} demo answers (concise and detailed, ${Math.round(meanChars)} characters on average); errors on the ${big.length} over 500 tokens`,
      '| counter | import ms | resident MB | ms per answer | mean error | worst error |',
      '|---|---|---|---|---|---|',
      `| o200k tokenizer (gpt-tokenizer) | ${load.importMs.toFixed(0)} | ${load.rssMb.toFixed(1)} | ${result.tokenizer.msPerAnswer.toFixed(3)} | 0 | 0 |`,
      `| estimate (render/tokens.ts) | ~0 | ~0 | ${result.estimate.msPerAnswer.toFixed(3)} | ${pct(estimate.mean)} | ${pct(estimate.worst)} |`,
      `| characters / 4 | ~0 | ~0 | ~0 | ${pct(chars.mean)} | ${pct(chars.worst)} |`,
      `estimate over all answers: ${totalEst} tokens for ${totalReal} real (${pct(totalEst / totalReal - 1)})`,
    ].join('\n')}\n`,
  );
}
