// Sealing of stored values: AES-256-GCM under the state key, bound to the store key (AAD), opened by
// older keys during a rotation, and refusing anything altered, moved or sealed under an unknown key.
import { describe, expect, it } from 'vitest';
import { SealedRecords } from '../../src/remote/records.js';
import { parseStateKey, Sealer } from '../../src/remote/sealing.js';
import { MemoryStore } from '../../src/store/memory.js';

const key = (n: number) => Buffer.alloc(32, n);

describe('Sealer', () => {
  it('round-trips, and every sealing of the same text differs (fresh IV)', () => {
    const s = new Sealer(key(1));
    const a = s.seal('secret wco_at_x', 'remote:grant:1');
    const b = s.seal('secret wco_at_x', 'remote:grant:1');
    expect(a).not.toBe(b);
    expect(a).not.toContain('secret');
    expect(s.open(a, 'remote:grant:1')).toBe('secret wco_at_x');
  });

  it('refuses a value moved to another key, altered, or sealed under a key it does not hold', () => {
    const s = new Sealer(key(1));
    const v = s.seal('member A', 'remote:grant:A');
    expect(s.open(v, 'remote:grant:B')).toBeUndefined();
    const parts = v.split('.');
    const body = Buffer.from(parts[3] as string, 'base64url');
    body[0] = (body[0] as number) ^ 1;
    expect(s.open([parts[0], parts[1], parts[2], body.toString('base64url')].join('.'), 'remote:grant:A')).toBeUndefined();
    expect(new Sealer(key(2)).open(v, 'remote:grant:A')).toBeUndefined();
    expect(s.open('v1.short', 'remote:grant:A')).toBeUndefined();
  });

  it('during a rotation, opens what the previous key sealed and seals with the new one', () => {
    const old = new Sealer(key(1));
    const v = old.seal('kept', 'k');
    const rotated = new Sealer(key(2), [key(1)]);
    expect(rotated.open(v, 'k')).toBe('kept');
    const fresh = rotated.seal('kept', 'k');
    expect(rotated.open(fresh, 'k')).toBe('kept');
    expect(old.open(fresh, 'k')).toBeUndefined();
  });

  it('reads the key as standard or url-safe base64 of exactly 32 bytes', () => {
    const raw = Buffer.from(Array.from({ length: 32 }, (_, i) => 250 - i));
    expect(parseStateKey(raw.toString('base64')).equals(raw)).toBe(true);
    expect(parseStateKey(raw.toString('base64url')).equals(raw)).toBe(true);
    expect(parseStateKey(` ${raw.toString('base64')}\n`).equals(raw)).toBe(true);
    expect(() => parseStateKey(raw.subarray(0, 31).toString('base64'))).toThrow(/decodes to 31 bytes/);
  });
});

describe('SealedRecords', () => {
  it('stores only sealed text; a record that does not open is reported and read as absent', async () => {
    const store = new MemoryStore();
    const unreadable: string[] = [];
    const records = new SealedRecords(store, new Sealer(key(1)), (k) => unreadable.push(k));
    await records.write('grant', 'g1', { workspace: { access_token: 'wco_at_secret' } });
    const raw = await store.get('remote:grant:g1');
    expect(raw).toMatch(/^v1\./);
    expect(raw).not.toContain('wco_at_secret');
    expect((await records.read<{ workspace: { access_token: string } }>('grant', 'g1'))?.value.workspace.access_token).toBe('wco_at_secret');

    // Copied under another grant's key: does not open there.
    await store.set('remote:grant:g2', raw as string);
    expect(await records.read('grant', 'g2')).toBeUndefined();
    expect(unreadable).toEqual(['grant']);
  });

  it('replace is a compare-and-set on the stored text; take is once', async () => {
    const records = new SealedRecords(new MemoryStore(), new Sealer(key(1)));
    await records.write('grant', 'g', { n: 1 });
    const first = await records.read<{ n: number }>('grant', 'g');
    const next = await records.replace('grant', 'g', first!.raw, { n: 2 });
    expect(next).toBeDefined();
    expect(await records.replace('grant', 'g', first!.raw, { n: 3 })).toBeUndefined();
    expect((await records.read<{ n: number }>('grant', 'g'))?.value.n).toBe(2);
    await records.write('code', 'c', { once: true });
    expect(await records.take('code', 'c')).toEqual({ once: true });
    expect(await records.take('code', 'c')).toBeUndefined();
  });
});
