import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The pinned CLI that scripts/install-tools.sh puts into .tools (CI runs that script first). */
const SCHEMATHESIS_BIN = path.resolve(__dirname, '../../.tools/bin/schemathesis');
/** Holds the sitecustomize.py that every run's Python imports at startup. */
const PYTHON_STARTUP_DIR = path.resolve(__dirname, 'python');

export type OpenApiDocument = {
  paths: Record<string, Record<string, { parameters?: { name: string; in: string; schema: Record<string, unknown> }[] }>>;
};

/**
 * A schemathesis.toml that pins every path parameter to a real record of the type the document
 * names (`x-id-type`), so generated requests reach handlers instead of stopping at "not found".
 * A path whose ID type has no record fails here, not silently; untyped parameters stay generated.
 */
export function pinnedPathParamsConfig(
  doc: OpenApiDocument,
  idFor: (type: string | undefined, path: string, name: string) => string | undefined,
): string {
  const blocks: string[] = [];
  for (const [p, ops] of Object.entries(doc.paths)) {
    const params = new Map<string, string>();
    for (const op of Object.values(ops)) {
      for (const param of op.parameters ?? []) {
        if (param.in !== 'path') continue;
        const type = param.schema['x-id-type'] as string | undefined;
        const id = idFor(type, p, param.name);
        // Untyped parameters (tracking and file tokens, page slugs) stay generated unless idFor names one.
        if (!id && type) throw new Error(`no seeded record of type ${type} for ${p}`);
        if (id) params.set(param.name, id);
      }
    }
    if (!params.size) continue;
    const pinned = [...params].map(([name, id]) => `"path.${name}" = ${JSON.stringify(id)}`).join(', ');
    blocks.push(`[[operations]]\ninclude-path = ${JSON.stringify(p)}\nparameters = { ${pinned} }\n`);
  }
  return blocks.join('\n');
}

export interface SchemathesisRun {
  exitCode: number | null;
  output: string;
  /** Its FAILURES and ERRORS sections (empty when it found none): what a failed test shows first. */
  problems: string;
  /** Every request sent and response received, from the HAR report. */
  entries: { request: { method: string; url: string }; response: { status: number } }[];
}

/** Hooks (a Python file, test/support/schemathesis_hooks.py) and the data they read, as JSON. */
export interface SchemathesisHooks {
  file: string;
  fixtures: unknown;
}

/** Runs `schemathesis run` with `args`, a config file and a HAR report in `dir`. */
export async function runSchemathesis(
  dir: string,
  config: string,
  args: string[],
  timeoutMs: number,
  hooks?: SchemathesisHooks,
): Promise<SchemathesisRun> {
  mkdirSync(dir, { recursive: true });
  const configFile = path.join(dir, 'schemathesis.toml');
  const fixturesFile = path.join(dir, 'hook-fixtures.json');
  if (hooks) writeFileSync(fixturesFile, JSON.stringify(hooks.fixtures));
  // The fuzzer would otherwise sign up a user and switch to Bearer tokens; the test chooses the key.
  const hooksLine = hooks ? `hooks = ${JSON.stringify(hooks.file)}\n\n` : '';
  writeFileSync(configFile, `${hooksLine}[auth]\nauto-signup = false\n\n${config}`);
  const harFile = path.join(dir, 'report.har');
  rmSync(harFile, { force: true });
  // Its cache (.schemathesis/, which replays earlier crashes) lives in the report directory, and is
  // cleared so that a run depends on the seed alone.
  rmSync(path.join(dir, '.schemathesis'), { recursive: true, force: true });
  const child = spawn(
    SCHEMATHESIS_BIN,
    ['--config-file', configFile, 'run', ...args, '--no-color', '--report', 'har', '--report-har-path', harFile],
    {
      cwd: dir,
      env: {
        ...process.env,
        PYTHONUNBUFFERED: '1',
        // Its sitecustomize.py works around a CPython thread race that the fuzzer's workers hit.
        PYTHONPATH: PYTHON_STARTUP_DIR,
        ...(hooks && { LEAD_FUZZ_FIXTURES: fixturesFile }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  const exitCode = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  if (timedOut) output += `\n[killed after ${timeoutMs} ms]`;
  writeFileSync(path.join(dir, 'output.txt'), output);
  // A killed run leaves its HAR report cut off mid-entry: say what happened instead of a JSON error.
  if (timedOut)
    throw new Error(`schemathesis was killed after ${timeoutMs} ms (SCHEMATHESIS_TIMEOUT_MS); its output ends:\n${output.slice(-3000)}`);
  const problems = problemsOf(output);
  if (!existsSync(harFile)) return { exitCode, output, problems, entries: [] };
  const har = JSON.parse(readFileSync(harFile, 'utf8')) as { log: { entries: SchemathesisRun['entries'] } };
  return { exitCode, output, problems, entries: har.log.entries };
}

/**
 * The document's paths split into `count` documents with about as many operations each (each path
 * to the shard with the fewest so far, in document order). Whole path items: the coverage phase
 * sends a path's undocumented methods and expects a 405, so a path's methods stay together.
 */
export function shardDocument<T extends { paths: Record<string, object> }>(doc: T, count: number): T[] {
  const shards = Array.from({ length: count }, () => ({ operations: 0, paths: {} as Record<string, object> }));
  for (const [p, item] of Object.entries(doc.paths)) {
    const lightest = shards.reduce((a, b) => (b.operations < a.operations ? b : a));
    lightest.paths[p] = item;
    lightest.operations += Object.keys(item).filter((k) => HTTP_METHODS.has(k)).length;
  }
  // More shards than paths: the empty ones would be runs with nothing to fuzz.
  return shards.filter((shard) => shard.operations > 0).map((shard) => ({ ...doc, paths: shard.paths }));
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/**
 * `runSchemathesis` as `shards` processes at once, each fuzzing its share of `document`'s paths
 * (written to `dir/shard-<n>/openapi.json`), merged into one run. Generating cases holds Python's
 * GIL: one process kept a core busy while the API it fuzzed waited (sampled with top on a 2-core
 * machine: schemathesis at 95-100 % of a core, the process serving the API at 20-40 %). Every
 * shard gets the same seed, config and hooks; `args` are everything but the document.
 */
export async function runSchemathesisShards(
  dir: string,
  config: string,
  document: { paths: Record<string, object> },
  args: string[],
  timeoutMs: number,
  opts: { shards: number; hooks?: SchemathesisHooks },
): Promise<SchemathesisRun> {
  const settled = await Promise.allSettled(
    shardDocument(document, opts.shards).map((part, i) => {
      const shardDir = path.join(dir, `shard-${i + 1}`);
      mkdirSync(shardDir, { recursive: true });
      const file = path.join(shardDir, 'openapi.json');
      writeFileSync(file, JSON.stringify(part));
      return runSchemathesis(shardDir, config, [file, ...args], timeoutMs, opts.hooks);
    }),
  );
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  const runs = settled.map((s) => (s as PromiseFulfilledResult<SchemathesisRun>).value);
  const label = (i: number) => `--- shard ${i + 1} of ${runs.length} ---`;
  // A failed shard's output goes last: where a failure message quotes the output's end.
  const order = runs.map((_, i) => i).sort((a, b) => Number(runs[a].exitCode !== 0) - Number(runs[b].exitCode !== 0));
  return {
    exitCode: runs.find((r) => r.exitCode !== 0)?.exitCode ?? 0,
    output: order.map((i) => `${label(i)}\n${runs[i].output}`).join('\n'),
    problems: runs
      .map((r, i) => (r.problems ? `${label(i)}\n${r.problems}` : ''))
      .filter(Boolean)
      .join('\n')
      .slice(0, 8_000),
    entries: runs.flatMap((r) => r.entries),
  };
}

const SECTION = /^=+ ([A-Z]+) =+$/;

/**
 * The FAILURES and ERRORS sections of a run's output, at most 8,000 characters: a CI log keeps the
 * test's failure message whole where it cuts a long console dump (output.txt keeps all of it).
 */
export function problemsOf(output: string): string {
  const kept: string[] = [];
  let inProblems = false;
  for (const line of output.split('\n')) {
    const section = SECTION.exec(line.trim())?.[1];
    if (section) inProblems = section === 'FAILURES' || section === 'ERRORS';
    if (inProblems) kept.push(line);
  }
  return kept.join('\n').trim().slice(0, 8_000);
}

/**
 * The served document for the fuzzer, narrowed to what the seeded tenant has: every ID-valued
 * schema (`x-id-type`, in bodies and queries too) to the seeded record of its type, every value that
 * must name something the tenant has (`x-references`: a status code, a referral code, a contact's
 * address) to a seeded one, and, with `uniqueArraysOfOne` (for a run that checks input only: the
 * same schemas describe responses), every array whose items' keys must differ (`x-unique-by`) to
 * one item. A value that fits the documented pattern but names nothing is rightly a 422 ("Lead not
 * found"), which `positive_data_acceptance` would count as valid input refused. IDs of types with
 * no seeded record keep their pattern.
 */
export function pinnedIdsDocument<T>(
  doc: T,
  idFor: (type: string) => string | undefined,
  referenceFor: (kind: string) => string | undefined = () => undefined,
  opts: { uniqueArraysOfOne?: boolean } = {},
): T {
  const pin = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(pin);
    if (!node || typeof node !== 'object') return node;
    const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, pin(v)])) as Record<string, unknown>;
    // A reference is the narrower rule (an approved partner, not any partner): it wins over the ID type.
    const reference = typeof out['x-references'] === 'string' ? referenceFor(out['x-references']) : undefined;
    const value = reference ?? (typeof out['x-id-type'] === 'string' ? idFor(out['x-id-type']) : undefined);
    if (value) return { ...out, enum: [value] };
    // Items whose keys must differ (x-unique-by): JSON Schema cannot say so, one item always complies.
    // Only where the fuzzer generates input: the same schema describes responses of many items.
    return opts.uniqueArraysOfOne && Array.isArray(out['x-unique-by']) ? { ...out, maxItems: 1 } : out;
  };
  return pin(doc) as T;
}
