// Demo ids derive from the records, not from the order they are seeded in: moving an area's seeding,
// or adding a record anywhere, leaves every other demo id (and record) as it was.
import { decodeTime, isValid } from 'ulid';
import { describe, expect, it } from 'vitest';
import { SEED_BASE } from '../../src/sandbox/data/ids.js';
import { areas, seedAreas } from '../../src/sandbox/handlers/index.js';
import { MemoryWorkspace } from '../../src/sandbox/state.js';
import type { SandboxArea } from '../../src/sandbox/types.js';

/** A fresh demo workspace seeded from `list`, and its records by collection, sorted by id. */
function seeded(list: readonly SandboxArea[] = areas): { ws: MemoryWorkspace; records: Record<string, unknown[]> } {
  const ws = new MemoryWorkspace('atelier', ['localhost'], 'ws');
  seedAreas(ws, list);
  ws.seeding = false;
  const records: Record<string, unknown[]> = {};
  for (const [name, c] of [...ws.collections].sort(([a], [b]) => a.localeCompare(b))) records[name] = c.all().sort((a, b) => a.id.localeCompare(b.id));
  return { ws, records };
}

describe('demo ids', () => {
  it('are the same whatever order the areas are seeded in', () => {
    const base = seeded().records;
    expect(Object.values(base).flat().length).toBeGreaterThan(300);
    expect(seeded([...areas].reverse()).records).toEqual(base);
    // An order that runs the areas with no dependencies last.
    expect(seeded([...areas].sort((a, b) => Number(!a.after) - Number(!b.after))).records).toEqual(base);
  });

  it('stay as they are when a record is added before the others', () => {
    const base = seeded().records;
    const extra: SandboxArea = {
      toolset: 'integrations',
      handlers: {},
      seeds: [(ws) => ws.c('findings').insert({ engagement_id: 'e', statement: 'Un constat de plus' })],
    };
    const more = seeded([extra, ...areas.filter((a) => a.toolset !== 'integrations')]).records;
    const added = (more.findings as { id: string; statement?: string }[]).filter((f) => f.statement === 'Un constat de plus');
    expect(added).toHaveLength(1);
    expect({ ...more, findings: (more.findings as { id: string }[]).filter((f) => f.id !== added[0]!.id) }).toEqual(base);
  });

  it('are ULIDs on the seed clock, distinct even for records of the same content', () => {
    const ws = new MemoryWorkspace('atelier', [], 'ws');
    const a = ws.c('notes').insert({ text: 'même contenu' });
    const b = ws.c('notes').insert({ text: 'même contenu' });
    expect(a.id).not.toBe(b.id);
    for (const id of [a.id, b.id]) {
      expect(isValid(id)).toBe(true);
      expect(decodeTime(id)).toBe(SEED_BASE);
    }
    expect(a.created_at).toBe(new Date(SEED_BASE).toISOString());
  });

  it('minted by hand while seeding need a key', () => {
    const ws = new MemoryWorkspace('atelier', [], 'ws');
    expect(() => ws.newId()).toThrow(/needs a key/);
    expect(ws.newId('recording\ns1')).toBe(new MemoryWorkspace('atelier', [], 'ws').newId('recording\ns1'));
    expect(ws.newId('recording\ns1')).not.toBe(new MemoryWorkspace('globex', [], 'ws').newId('recording\ns1'));
  });

  it('created after seeding are increasing ULIDs that sort after the seeded ones', () => {
    const { ws, records } = seeded();
    const seededMax = Object.values(records)
      .flat()
      .map((r) => (r as { id: string }).id)
      .sort()
      .at(-1)!;
    const ids = Array.from({ length: 50 }, () => ws.c('findings').insert({ statement: 'x' }).id);
    expect(ids.every(isValid)).toBe(true);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0]! > seededMax).toBe(true);
  });
});
