import { generateKeyPairSync } from 'node:crypto';
import type { Server } from 'node:http';
import type { IdType } from '../../lib/ids';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { FILE_FIXTURE_CONTENT, idFixtures, seedEveryIdType, seedReferences } from '../support/id-fixtures';
import {
  pinnedIdsDocument,
  pinnedPathParamsConfig,
  runSchemathesisShards,
  type OpenApiDocument,
  type SchemathesisRun,
} from '../support/schemathesis';
import { DnsServer } from '../support/dns-server';
import { newTenant, quietTemporalLogs, startStack, type TestStack, type TestTenant } from '../support/stack';

/**
 * Schemathesis against the real app on a real port, with a real worker: every operation of the
 * served OpenAPI document, with generated valid and invalid input, must answer without a 5xx and
 * exactly as documented (status codes, content types, response schemas). Then another tenant's key
 * against the first tenant's IDs must get nothing but 404s.
 */
const MAX_EXAMPLES = Number(process.env.SCHEMATHESIS_MAX_EXAMPLES ?? 10);
/**
 * The coverage phase (boundary values of every constraint: lengths, ranges, patterns, formats,
 * unsupported methods) runs by default; SCHEMATHESIS_PHASES narrows it (docs/decisions.md).
 */
const PHASES = process.env.SCHEMATHESIS_PHASES ?? 'examples,coverage,fuzzing';
const SEED = process.env.SCHEMATHESIS_SEED ?? '20261122';
/** Fuzzer processes per run, each with a share of the paths (runSchemathesisShards says why). */
const SHARDS = Number(process.env.SCHEMATHESIS_SHARDS ?? 2);
/**
 * A guard against a hung run, not a speed goal: the runs are bounded by --max-examples. On a slow
 * machine the coverage phase alone took 160 s of the positive-data run, and a 280 s guard killed
 * both runs before their fuzzing phase ended.
 */
const RUN_TIMEOUT_MS = Number(process.env.SCHEMATHESIS_TIMEOUT_MS ?? 600_000);
// Each test is one schemathesis run plus reading its report.
jest.setTimeout(RUN_TIMEOUT_MS + 60_000);

/**
 * Rules JSON Schema cannot state (each one named in the field's description and refused with a 422
 * naming the field): a value relative to the clock (a future expiresAt, recover's 30-day window),
 * to another field or part (an upload's entityId of entityType's kind: the fuzzer draws multipart
 * parts independently), to a file (an import's columns, a DKIM key that parses), to the tenant's own
 * definitions (a public form's fields, the graph rules of a workflow), and state the run itself
 * changes (the webhook endpoint quota, a suppressed address, a lead merged away, the pinned user
 * kept active: a deactivated one is handed no new work). The positive-data
 * run applies them in test/support/schemathesis_hooks.py, so it fuzzes every operation and any 422
 * left is a rule the document should state and does not.
 */
const HOOKS_FILE = path.resolve(__dirname, '../support/schemathesis_hooks.py');
/** The operations whose cases the hooks fit: each must be accepted at least once, or a hook stopped working. */
const HOOKED_OPERATIONS = [
  'PATCH /v1/workflows/{id}',
  'POST /v1/api-keys',
  'POST /v1/communications/dkim-keys',
  'POST /v1/communications/send/email',
  'POST /v1/files/upload',
  'POST /v1/integrations/webhooks',
  'POST /v1/integrations/webhooks/{id}/recover',
  'POST /v1/leads/imports',
  'POST /v1/leads/{id}/merge',
  'POST /v1/partners',
  'POST /v1/public/forms/{id}/submissions',
  'POST /v1/workflows',
];

let stack: TestStack;
let dns: DnsServer;
let server: Server;
let baseUrl: string;
let owner: TestTenant;
let intruder: TestTenant;
let config: string;
let document: OpenApiDocument;
let hookFixtures: Record<string, unknown>;
let inputDocument: OpenApiDocument;

beforeAll(async () => {
  // Deliveries to generated hosts fail by the thousand, each a WARN line of the SDK's: noise in CI's log.
  quietTemporalLogs('ERROR');
  // Every endpoint is a delivery of each event the runs cause, and generated URLs are now valid
  // ones that fail: at the default cap of 20 the deliveries took over the machine. The two fixtures'
  // endpoints and one generated endpoint are enough to cover the routes (the positive-data run
  // deletes each endpoint it creates).
  // Sending domains are verified against this DNS server, where the seeded DKIM key is published below.
  dns = await new DnsServer({}).start();
  stack = await startStack({
    appDeps: { webhooks: { allowPrivateTargets: true, maxEndpoints: 3 }, dkimDns: { servers: [dns.address], timeoutMs: 2000 } },
  });
  server = stack.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  owner = await newTenant(stack.db);
  intruder = await newTenant(stack.db);
  const owned = await seedEveryIdType(
    idFixtures(() => stack.http()),
    owner,
    'sandbox',
  );
  await narrowFixtureSubscriptions(owner.sandbox);
  const dkimKey = (
    await stack
      .http()
      .get(`/v1/communications/dkim-keys/${owned.get('dkimKey')}`)
      .set(owner.sandbox)
  ).body.data;
  dns.hosts[dkimKey.dnsRecordName] = { TXT: [dkimKey.dnsRecordValue] };
  const doc = (await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as OpenApiDocument;
  // The public form endpoint takes a form or a landing page ID, so its parameter names no one type;
  // hosted pages are looked up under the owner's tenant, with generated slugs.
  config = pinnedPathParamsConfig(doc, (type, p, name) => {
    if (p.startsWith('/p/') && name === 'tenantId') return owner.id;
    return owned.get((type ?? (p.startsWith('/v1/public/forms/') ? 'form' : '')) as IdType);
  });
  const references = await seedReferences(() => stack.http(), owner.sandbox, owned);
  const pinned = (opts: { uniqueArraysOfOne?: boolean }) =>
    pinnedIdsDocument(
      doc,
      (type) => owned.get(type as IdType),
      (kind) => references.get(kind),
      opts,
    );
  document = pinned({});
  // The positive-data run checks requests only, so its arrays of unique items can be kept to one.
  inputDocument = pinned({ uniqueArraysOfOne: true });
  hookFixtures = {
    baseUrl,
    apiKey: owner.sandboxKey,
    ids: Object.fromEntries(owned),
    dkimPrivateKey: generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
    importColumn: FILE_FIXTURE_CONTENT,
  };
}, 120_000);

/**
 * The fixture endpoints subscribe to one rare event instead of every event: each event the runs
 * cause was otherwise a delivery workflow per endpoint, all failing (1,700 running at once in CI),
 * and that background work took about 40 % of the machine the requests are checked on (a run whose
 * endpoints got disabled early took 271 s instead of 444-465 s). Delivery has tests of its own;
 * here the endpoints only need to exist (their routes are fuzzed, a generated endpoint still gets
 * generated subscriptions).
 */
async function narrowFixtureSubscriptions(headers: Record<string, string>) {
  const list = await stack.http().get('/v1/integrations/webhooks').set(headers);
  for (const endpoint of list.body.data as { id: string }[]) {
    const res = await stack
      .http()
      .patch(`/v1/integrations/webhooks/${endpoint.id}`)
      .set(headers)
      .send({ events: ['commission.paid'] });
    if (res.status !== 200) throw new Error(`narrowing the fixture endpoint failed: ${res.status} ${JSON.stringify(res.body)}`);
  }
}

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await stack.stop();
  await dns.stop();
});

// Kept after the run (test-artifacts/ is git-ignored): the HAR and output explain a failure.
const reportDir = (name: string) => path.resolve(__dirname, '../../test-artifacts/schemathesis', name);
const common = (maxExamples: number) => [
  '--url',
  baseUrl,
  '--seed',
  SEED,
  '--max-examples',
  String(maxExamples),
  '--workers',
  '2',
  '--output-truncate',
  'false',
  // No example database between runs: what is generated depends on the seed alone.
  '--generation-database',
  'none',
  // schemathesis gives up on a response after 10 s by default, but the API may rightly wait longer:
  // a conversion waits up to 30 s for its workflow (then 503), a send up to 5 s after its start.
  // On a slow machine those waits reach 10 s; what the runs check is the answer, not its speed.
  '--request-timeout',
  '45',
];
const acceptedOnce = (run: SchemathesisRun, operation: string) => {
  const [method, template] = operation.split(' ');
  const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
  return run.entries.some(
    (e) =>
      e.request.method === method && pattern.test(new URL(e.request.url).pathname) && e.response.status >= 200 && e.response.status < 300,
  );
};
/** A non-zero exit with no FAILURES or ERRORS section shows how the output ends (all of it is in output.txt). */
const exitOf = (run: SchemathesisRun) => ({ exitCode: run.exitCode, outputEnd: run.exitCode === 0 ? '' : run.output.slice(-3_000) });
const statuses = (run: SchemathesisRun) =>
  run.entries.map((e) => `${e.response.status} ${e.request.method} ${new URL(e.request.url).pathname}`);

describe('OpenAPI fuzzing (schemathesis)', () => {
  it('accepts input the document calls valid (no 422 for a rule the document does not state)', async () => {
    const run = await runSchemathesisShards(
      reportDir('positive-data'),
      config,
      inputDocument,
      [
        ...common(MAX_EXAMPLES),
        '--header',
        `X-API-Key: ${owner.sandboxKey}`,
        '--mode',
        'positive',
        '--checks',
        'positive_data_acceptance',
        '--phases',
        PHASES,
        '--generation-allow-x00',
        'false',
        // Runs before the conformance run and deletes nothing, so every pinned ID names a live record.
        '--exclude-method',
        'DELETE',
      ],
      RUN_TIMEOUT_MS,
      { shards: SHARDS, hooks: { file: HOOKS_FILE, fixtures: hookFixtures } },
    );
    expect(run.problems).toBe('');
    expect(run.entries.length).toBeGreaterThan(100);
    expect(exitOf(run)).toEqual({ exitCode: 0, outputEnd: '' });
    expect(HOOKED_OPERATIONS.filter((operation) => !acceptedOnce(run, operation))).toEqual([]);
  });

  it('answers every generated request without a server error and as the document says', async () => {
    const run = await runSchemathesisShards(
      reportDir('conformance'),
      config,
      document,
      [
        ...common(MAX_EXAMPLES),
        '--header',
        `X-API-Key: ${owner.sandboxKey}`,
        '--checks',
        'not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance',
        '--phases',
        PHASES,
        // NUL bytes in strings: PostgreSQL refuses them in text, so they must be a 422, not a 500.
        '--generation-allow-x00',
        'true',
      ],
      RUN_TIMEOUT_MS,
      { shards: SHARDS },
    );
    expect(run.problems).toBe('');
    expect(run.entries.length).toBeGreaterThan(100);
    expect(exitOf(run)).toEqual({ exitCode: 0, outputEnd: '' });
  });

  it("answers another tenant's key with the first tenant's IDs only with 404 (or a validation error)", async () => {
    const run = await runSchemathesisShards(
      reportDir('cross-tenant'),
      config,
      document,
      [
        // Fewer examples: the only question is whether any answer differs from 404.
        ...common(Math.ceil(MAX_EXAMPLES / 2)),
        '--header',
        `X-API-Key: ${intruder.sandboxKey}`,
        // Valid input only: the request must reach the lookup of the foreign ID, not stop at validation.
        '--mode',
        'positive',
        '--phases',
        'examples,fuzzing',
        '--checks',
        'not_a_server_error',
        '--include-path-regex',
        '\\{',
        // Public routes take no key: there is no other tenant to be (the conformance run covers them).
        '--exclude-path-regex',
        '^/(p|v1/t|v1/files/direct)/',
        // Installing a global catalog addon acts in the caller's own scope (test/addons.test.ts).
        '--exclude-path',
        '/v1/addons/{id}/install',
      ],
      RUN_TIMEOUT_MS,
      { shards: SHARDS },
    );
    expect(run.problems).toBe('');
    expect(run.entries.length).toBeGreaterThan(50);
    // Bodies and queries are validated before any lookup (api/http/route.ts), the same way for every
    // ID: a 400/422 says nothing about the record. Anything else but 404 would.
    expect(statuses(run).filter((s) => !/^(404|400|422) /.test(s))).toEqual([]);
    expect(statuses(run).filter((s) => s.startsWith('404 ')).length).toBeGreaterThan(run.entries.length / 2);
  });
});
