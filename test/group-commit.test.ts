import { GroupCommit, KeyedGroupCommit, togetherOrEachAlone, unwrap } from '../lib/group-commit';

/** A write the test completes by hand, so it controls what is in flight. */
function manualWrites() {
  const batches: number[][] = [];
  const pending: { resolve: () => void; reject: (err: Error) => void }[] = [];
  const write = (items: number[]) =>
    new Promise<void>((resolve, reject) => {
      batches.push(items);
      pending.push({ resolve, reject });
    });
  return { batches, pending, write };
}

describe('GroupCommit', () => {
  it('writes the first item at once and the items that arrive meanwhile together in the next write', async () => {
    const w = manualWrites();
    const group = new GroupCommit(w.write);
    const first = group.add(1);
    expect(w.batches).toEqual([[1]]);
    const later = [group.add(2), group.add(3), group.add(4)];
    expect(w.batches).toHaveLength(1); // waiting for the first write
    w.pending[0].resolve();
    await first;
    await new Promise((r) => setImmediate(r));
    expect(w.batches).toEqual([[1], [2, 3, 4]]);
    w.pending[1].resolve();
    await Promise.all(later);
  });

  it('rejects exactly the items of a failed write and goes on with the next', async () => {
    const w = manualWrites();
    const group = new GroupCommit(w.write);
    const first = group.add(1);
    const second = group.add(2);
    w.pending[0].reject(new Error('database down'));
    await expect(first).rejects.toThrow('database down');
    await new Promise((r) => setImmediate(r));
    w.pending[1].resolve();
    await expect(second).resolves.toBeUndefined();
  });

  it('splits a long queue into writes of at most maxBatch items', async () => {
    const batches: number[][] = [];
    const group = new GroupCommit(async (items: number[]) => {
      batches.push(items);
    }, 2);
    await Promise.all([1, 2, 3, 4, 5].map((n) => group.add(n)));
    expect(batches.flat()).toEqual([1, 2, 3, 4, 5]);
    expect(Math.max(...batches.map((b) => b.length))).toBeLessThanOrEqual(2);
  });

  it('gives each item the result the write returned for it', async () => {
    const group = new GroupCommit(async (items: number[]) => items.map((n) => n * 10));
    await expect(Promise.all([1, 2, 3].map((n) => group.add(n)))).resolves.toEqual([10, 20, 30]);
  });

  it('is idle by the time its last item goes on, and busy while any write or item is left', async () => {
    const w = manualWrites();
    const group = new GroupCommit(w.write);
    const first = group.add(1);
    const second = group.add(2);
    expect(group.idle).toBe(false);
    w.pending[0].resolve();
    await first;
    expect(group.idle).toBe(false); // the second is being written
    w.pending[1].resolve();
    await second;
    expect(group.idle).toBe(true);
  });
});

describe('KeyedGroupCommit', () => {
  it('groups the items of a key and owner, never those of another, and forgets a key once idle', async () => {
    const batches: string[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const groups = new KeyedGroupCommit(async (items: string[]) => {
      batches.push(items);
      await gate;
      return items.map((item) => item.toUpperCase());
    });
    const [db1, db2] = [{}, {}];
    const added = [
      groups.add(db1, 'a', 'a1'),
      groups.add(db1, 'b', 'b1'),
      groups.add(db2, 'a', 'x1'),
      groups.add(db1, 'a', 'a2'),
      groups.add(db1, 'a', 'a3'),
    ];
    expect(batches).toEqual([['a1'], ['b1'], ['x1']]); // each key's first at once; a2 and a3 wait for a1
    release();
    await expect(Promise.all(added)).resolves.toEqual(['A1', 'B1', 'X1', 'A2', 'A3']);
    expect(batches).toEqual([['a1'], ['b1'], ['x1'], ['a2', 'a3']]);
    // Idle keys hold nothing: the next item of `a` starts a new group, written at once.
    await groups.add(db1, 'a', 'a4');
    expect(batches.at(-1)).toEqual(['a4']);
  });
});

describe('togetherOrEachAlone', () => {
  it('writes the items together, and when that fails, each alone: only the bad one fails', async () => {
    const writes: number[][] = [];
    const write = async (items: number[]) => {
      writes.push(items);
      if (items.includes(2)) throw new Error(`bad item in ${items.join(',')}`);
      return items.map((n) => n * 10);
    };
    const settled = await togetherOrEachAlone([1, 2, 3], write);
    expect(writes).toEqual([[1, 2, 3], [1], [2], [3]]);
    expect(settled.map((s) => (s.ok ? s.value : String(s.error)))).toEqual([10, 'Error: bad item in 2', 30]);
    expect(() => unwrap(settled[1])).toThrow('bad item in 2');
    expect(unwrap(settled[2])).toBe(30);
    expect(await togetherOrEachAlone([4, 5], write)).toEqual([
      { ok: true, value: 40 },
      { ok: true, value: 50 },
    ]);
  });
});
