// The reader of the conformance classification files: reasons belong to the entries of their group,
// and a line it would read otherwise than the suite's YAML parser is refused rather than guessed.
import { describe, expect, it } from 'vitest';
import { parseClassification, REVISIONS, readClassification } from './classification.js';

const parse = (text: string) => parseClassification(text, '2026-07-28', 'sample.yml');

describe('conformance classification files', () => {
  it('give each entry the comment lines above its group, up to a blank line', () => {
    const c = parse(
      [
        '# header: not a reason',
        '',
        'applicable:',
        '  - tools-list',
        'server:',
        '  # fixture: the fixture prompt',
        '  # test_simple_prompt: unknown prompt.',
        '  - prompts-get-simple',
        '  - prompts-get-with-args',
        '',
        '  - resources-subscribe',
        '  # not offered, fixture: no subscriptions.',
        '  - server-stateless:sep-2575-some-check',
      ].join('\n'),
    );
    expect(c.applicable.map((e) => e.name)).toEqual(['tools-list']);
    expect(c.failing.map((e) => [e.name, e.reason, e.kinds])).toEqual([
      ['prompts-get-simple', 'fixture: the fixture prompt test_simple_prompt: unknown prompt.', ['fixture']],
      ['prompts-get-with-args', 'fixture: the fixture prompt test_simple_prompt: unknown prompt.', ['fixture']],
      ['resources-subscribe', '', []],
      ['server-stateless:sep-2575-some-check', 'not offered, fixture: no subscriptions.', ['not offered', 'fixture']],
    ]);
    expect(c.failing[3]).toMatchObject({ scenario: 'server-stateless', check: 'sep-2575-some-check' });
  });

  it('refuse what the suite would read otherwise: a space after the colon, an unknown key, an entry outside a key', () => {
    expect(() => parse('server:\n  - server-stateless: sep-2575-some-check')).toThrow(/sample\.yml:2: not a key/);
    expect(() => parse('clients:\n  - x')).toThrow(/unknown key "clients"/);
    expect(() => parse('  - tools-list')).toThrow(/sample\.yml:1/);
  });

  it('read as they are in the repository', () => {
    for (const r of REVISIONS) expect(readClassification(r).applicable.length, r).toBeGreaterThan(0);
  });
});
