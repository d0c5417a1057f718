/** ScopeGroupCommit: a scope's writes go together, apart from other scopes' and parts', after the request's fair-share hand-back. */
import type { DataSource } from 'typeorm';
import type { DomainContext } from '../domain/context';
import { ScopeGroupCommit } from '../domain/scope-group-commit';
import type { Settled } from '../lib/group-commit';

interface Item {
  ctx: DomainContext;
  n: number;
}

/** Writes that wait until the test lets them finish, each item's result its number times ten. */
function heldWrites(events: string[]) {
  const batches: number[][] = [];
  const release: (() => void)[] = [];
  const write = (items: Item[]) =>
    new Promise<Settled<number>[]>((resolve) => {
      events.push(`write ${items.map((i) => i.n).join(',')}`);
      batches.push(items.map((i) => i.n));
      release.push(() => resolve(items.map((i) => ({ ok: true as const, value: i.n * 10 }))));
    });
  return { batches, release, write };
}

const db = {} as DataSource;
const contextOf = (tenantId: string, events: string[], environment: 'live' | 'sandbox' = 'live') =>
  ({
    db,
    scope: { tenantId, environment },
    beforeGroupWait: () => events.push(`hand back ${tenantId}/${environment}`),
  }) as unknown as DomainContext;

describe('ScopeGroupCommit', () => {
  it("gives the request's slot back before it joins, groups a scope's items and keeps scopes and parts apart", async () => {
    const events: string[] = [];
    const w = heldWrites(events);
    const groups = new ScopeGroupCommit<Item, number>(w.write, 100);
    const a = contextOf('t1', events);
    const first = groups.add({ ctx: a, n: 1 });
    expect(events).toEqual(['hand back t1/live', 'write 1']);
    const sameScope = [groups.add({ ctx: a, n: 2 }), groups.add({ ctx: a, n: 3 })];
    const otherTenant = groups.add({ ctx: contextOf('t2', events), n: 4 });
    const otherEnvironment = groups.add({ ctx: contextOf('t1', events, 'sandbox'), n: 5 });
    const otherPart = groups.add({ ctx: a, n: 6 }, 'checked');
    // Each other scope or part writes at once; the scope's own items wait for its write in flight.
    expect(w.batches).toEqual([[1], [4], [5], [6]]);
    w.release.forEach((r) => r());
    expect(await first).toBe(10);
    await new Promise((r) => setImmediate(r));
    expect(w.batches).toEqual([[1], [4], [5], [6], [2, 3]]);
    w.release[4]();
    expect(await Promise.all([...sameScope, otherTenant, otherEnvironment, otherPart])).toEqual([20, 30, 40, 50, 60]);
  });

  it("rejects an item whose own write failed, with that item's error", async () => {
    const groups = new ScopeGroupCommit<Item, number>(
      async (items) =>
        items.map((i) => (i.n === 2 ? { ok: false as const, error: new Error('bad item 2') } : { ok: true as const, value: i.n })),
      100,
    );
    const ctx = contextOf('t1', []);
    await expect(groups.add({ ctx, n: 2 })).rejects.toThrow('bad item 2');
    await expect(groups.add({ ctx, n: 1 })).resolves.toBe(1);
  });
});
