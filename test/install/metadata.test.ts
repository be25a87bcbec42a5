// What a registry page and a lawyer read: the licence the package declares is the one in LICENSE, and
// the package says where its code, home page and issue tracker are (one repository for all three).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/spawn.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  license: string;
  repository?: { type: string; url: string };
  homepage?: string;
  bugs?: { url: string };
};

describe('package metadata', () => {
  it('declares MIT and ships the MIT licence text with its copyright line', () => {
    expect(pkg.license).toBe('MIT');
    const text = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
    expect(text.split('\n')[0]).toBe('MIT License');
    expect(text).toMatch(/^Copyright \(c\) \d{4} workspace-consulting-mcp contributors$/m);
    expect(text).toContain('Permission is hereby granted, free of charge, to any person obtaining a copy');
  });

  it('names one repository as its code, its home page and its issue tracker', () => {
    const repo = /^git\+(https:\/\/github\.com\/[\w.-]+\/[\w.-]+)\.git$/.exec(pkg.repository?.url ?? '')?.[1];
    expect(pkg.repository?.type).toBe('git');
    expect(repo, 'repository.url is git+https://github.com/OWNER/NAME.git').toBeDefined();
    expect(pkg.homepage).toBe(`${repo}#readme`);
    expect(pkg.bugs?.url).toBe(`${repo}/issues`);
  });
});
