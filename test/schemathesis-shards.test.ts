import { shardDocument } from './support/schemathesis';

/**
 * The reliability suite's fuzzer runs as several processes, each over a share of the document
 * (test/reliability/schemathesis.test.ts): every path must be fuzzed exactly once, with all of its
 * methods in the same process (the coverage phase expects a 405 for a method the path does not
 * document), and the shares must be about even.
 */
const op = { responses: {} };
const doc = {
  openapi: '3.1.0',
  components: { schemas: { Lead: { type: 'object' } } },
  paths: {
    '/v1/leads/{id}': { get: op, put: op, patch: op, delete: op, parameters: [] },
    '/v1/leads': { get: op },
    '/v1/tasks': { get: op },
    '/v1/tasks/{id}': { get: op },
    '/v1/partners': { post: op },
  },
};
const methods = (paths: Record<string, object>) =>
  Object.entries(paths).flatMap(([p, item]) => Object.keys(item).flatMap((k) => (k === 'parameters' ? [] : [`${k} ${p}`])));

it('puts every path in exactly one shard, whole, with the rest of the document', () => {
  const shards = shardDocument(doc, 2);
  expect(shards).toHaveLength(2);
  expect(shards.flatMap((s) => methods(s.paths)).sort()).toEqual(methods(doc.paths).sort());
  for (const shard of shards) {
    expect(shard.components).toBe(doc.components);
    for (const [p, item] of Object.entries(shard.paths)) expect(item).toBe(doc.paths[p as keyof typeof doc.paths]);
  }
});

it('balances the shards by operations, not by paths', () => {
  // Dealt round-robin, one shard would get 6 operations and the other 2.
  expect(shardDocument(doc, 2).map((s) => methods(s.paths).length)).toEqual([4, 4]);
});

it('gives one shard the whole document, and no shard nothing', () => {
  expect(shardDocument(doc, 1)).toEqual([doc]);
  expect(shardDocument(doc, 8)).toHaveLength(5);
});
