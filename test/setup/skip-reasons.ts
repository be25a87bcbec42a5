// A reporter beside vitest's default one: at the end of a run, every test that was skipped, each with
// why (the note of its `ctx.skip(condition, note)`). The default reporter counts skips without naming
// them, and a skip nobody reads about is a claim never tested. test/ci/skips.test.ts holds every skip
// under test/ to a ctx.skip with a note; one without (it.skip, a -t filter) is listed as such.
import { relative } from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';

export default class SkipReasons implements Reporter {
  #vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.#vitest = vitest;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const vitest = this.#vitest;
    if (!vitest) return;
    // Tests left out by a -t filter are skipped without a note: not worth a line each.
    const filtered = vitest.config.testNamePattern !== undefined;
    const lines: string[] = [];
    for (const module of modules) {
      for (const test of module.children.allTests('skipped')) {
        const result = test.result();
        const note = result.state === 'skipped' ? result.note : undefined;
        if (note === undefined && filtered) continue;
        lines.push(`  ${relative(vitest.config.root, module.moduleId)} > ${test.fullName}: ${note ?? 'skipped without a reason'}`);
      }
    }
    if (lines.length > 0) vitest.logger.log(`\nSkipped, and why (${lines.length}):\n${lines.join('\n')}\n`);
  }
}
