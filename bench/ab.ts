/**
 * `npm run bench:ab -- <other checkout> [pairs] [targets]`: is this checkout's API faster than
 * another's? Both APIs run as shipped (`node dist/api/server.js`, production settings) against one
 * embedded PostgreSQL, Temporal and bench tenant, and take turns under the same load (autocannon,
 * 50 connections) in short bursts, alternating which goes first. Each burst records the CPU time
 * the API process spent per request, read from /proc (Linux), and its requests/s.
 *
 * Why: on these shared machines a run's speed drifts by tens of percent within minutes, so two
 * `npm run bench` runs of different builds cannot show a change of 10 %. Bursts a second or two
 * apart see the same machine; the median of the pairs' ratios shows such a change (a build
 * against itself gave median CPU ratios of 1.02 and 1.10 over 10 pairs).
 *
 * The other checkout needs its own `npm run build`; this one is built by the npm script. Targets:
 * T1 (GET /healthz), T2 (POST /v1/leads), T3 (GET /v1/leads/:id), T4-open (the open pixel),
 * T4-click (the click redirect), event (POST /v1/analytics/events: an open of a lead in no
 * campaign, so T5-signal's API side without its signal), T7 (POST /v1/leads/batch of 100 leads;
 * its CPU and rate are per request, that is per 100 leads), patch (PATCH /v1/leads/:id of a new score,
 * spread over 500 leads so that row locks seldom meet), T3-many (T3 over those 500 leads instead of
 * one). Defaults: 16 pairs of T1,T3,T4-open.
 */
import './secrets'; // first: sets this run's production secrets before lib/config is read
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import type { DataSource } from 'typeorm';
import { encodeId } from '../lib/ids';
import { createBenchTenant, startBenchStack } from './fixture';
import { startApi, type ShippedProcess } from './shipped';
import { median } from './sample';

const BURST_SECONDS = 1.5;
const [otherRoot, pairsArg, targetsArg] = process.argv.slice(2);
const PAIRS = Number(pairsArg ?? 16);
const TARGETS = (targetsArg ?? 'T1,T3,T4-open').split(',');

const log = (msg: string) => console.log(`[bench:ab ${new Date().toISOString().slice(11, 19)}] ${msg}`);

/** CPU time (user + system) of a process so far, in ms. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * (1000 / 100); // clock ticks of 1/100 s (USER_HZ)
}

interface Burst {
  cpuUsPerRequest: number;
  rps: number;
  unexpected: number;
}

async function burst(api: ShippedProcess, request: autocannon.Options, expected: '2xx' | '3xx', seconds: number): Promise<Burst> {
  const before = cpuMs(api.pid);
  const r = await autocannon({ ...request, url: api.url + (request.url ?? ''), connections: 50, duration: seconds });
  const spent = cpuMs(api.pid) - before;
  const ok = Object.entries(r.statusCodeStats ?? {})
    .filter(([code]) => (expected === '2xx' ? code.startsWith('2') : code.startsWith('3')))
    .reduce((n, [, s]) => n + (s as { count: number }).count, 0);
  return {
    cpuUsPerRequest: (spent * 1000) / r.requests.total,
    rps: r.requests.total / seconds,
    unexpected: r.requests.total - ok + r.errors,
  };
}

/** `count` leads of the bench tenant, written by SQL (the patch target's rows); their public IDs. */
async function insertLeads(db: DataSource, tenantId: string, count: number): Promise<string[]> {
  const rows = (await db.query(
    `INSERT INTO leads (tenant_id, environment, email, email_normalized, first_name, last_name)
     SELECT $1, 'live', 'p' || i || '@x.io', 'p' || i || '@x.io', 'P', 'X' FROM generate_series(1, $2::int) i RETURNING id`,
    [tenantId, count],
  )) as { id: string }[];
  return rows.map((r) => encodeId('lead', r.id));
}

async function main(): Promise<void> {
  if (!otherRoot) throw new Error('Usage: npm run bench:ab -- <other checkout> [pairs, default 16] [targets, default T1,T3,T4-open]');
  if (!existsSync(path.join(otherRoot, 'dist', 'api', 'server.js'))) {
    throw new Error(
      `${otherRoot} has no dist/api/server.js: build it first (cd ${otherRoot} && npm run build; git worktree add <dir> <commit> makes a checkout)`,
    );
  }
  const known = ['T1', 'T2', 'T3', 'T3-many', 'T4-open', 'T4-click', 'event', 'T7', 'patch'];
  const unknown = TARGETS.filter((t) => !known.includes(t));
  if (unknown.length) throw new Error(`Unknown targets ${unknown.join(', ')}: use ${known.join(', ')}`);
  const cleanups: (() => Promise<unknown>)[] = [];
  const work = mkdtempSync(path.join(os.tmpdir(), 'lead-bench-ab-'));
  chmodSync(work, 0o755);
  try {
    // startBenchStack registered the stops of Temporal and PostgreSQL; its pool closes before them.
    const stack = await startBenchStack(work, cleanups, log);
    cleanups.push(() => stack.db.destroy());
    const bench = await createBenchTenant(stack.db);
    const ctx = { dbUrl: stack.dbUrl, temporalAddress: stack.temporalAddress, workDir: work };
    log(`starting A (${path.resolve(otherRoot)}) and B (this checkout) ...`);
    const apis = { A: await startApi({ ...ctx, projectRoot: path.resolve(otherRoot) }), B: await startApi(ctx) };
    cleanups.push(() => Promise.all([apis.A.stop(), apis.B.stop()]));
    const many = TARGETS.some((t) => t === 'patch' || t === 'T3-many') ? await insertLeads(stack.db, bench.created.tenant.id, 500) : [];
    let n = 0;
    const lead = () => ({ email: `ab-${process.pid}-${++n}@example.com`, firstName: 'A', lastName: 'B' });
    const requests: Record<string, { request: autocannon.Options; expected: '2xx' | '3xx' }> = {
      T1: { request: { url: '/healthz' }, expected: '2xx' },
      T2: {
        request: {
          url: '/v1/leads',
          method: 'POST',
          headers: bench.key,
          requests: [
            {
              setupRequest: (r) => ({
                ...r,
                body: JSON.stringify(lead()),
              }),
            },
          ],
        } as autocannon.Options,
        expected: '2xx',
      },
      T3: { request: { url: `/v1/leads/${encodeId('lead', bench.leadId)}`, headers: bench.key }, expected: '2xx' },
      'T3-many': {
        request: {
          url: '/v1/leads',
          headers: bench.key,
          requests: [{ setupRequest: (r) => ({ ...r, path: `/v1/leads/${many[++n % many.length]}` }) }],
        } as autocannon.Options,
        expected: '2xx',
      },
      'T4-open': { request: { url: bench.pixel }, expected: '2xx' },
      'T4-click': { request: { url: bench.click }, expected: '3xx' },
      // T5-signal's API side without the signal (the lead has no enrollment): what separates the
      // target from its baseline in the measured seconds (README, "T5-signal, where its CPU goes").
      event: {
        request: {
          url: '/v1/analytics/events',
          method: 'POST',
          headers: bench.key,
          body: JSON.stringify({ eventType: 'email_open', leadId: encodeId('lead', bench.leadId) }),
        } as autocannon.Options,
        expected: '2xx',
      },
      T7: {
        request: {
          url: '/v1/leads/batch',
          method: 'POST',
          headers: bench.key,
          requests: [{ setupRequest: (r) => ({ ...r, body: JSON.stringify({ leads: Array.from({ length: 100 }, lead) }) }) }],
        } as autocannon.Options,
        expected: '2xx',
      },
      patch: {
        request: {
          url: '/v1/leads',
          method: 'PATCH',
          headers: bench.key,
          requests: [
            {
              setupRequest: (r) => ({
                ...r,
                path: `/v1/leads/${many[++n % many.length]}`,
                body: JSON.stringify({ score: n % 100 }),
              }),
            },
          ],
        } as autocannon.Options,
        expected: '2xx',
      },
    };
    const lines: string[] = [];
    for (const target of TARGETS) {
      const { request, expected } = requests[target];
      log(`${target}: warm-up, then ${PAIRS} pairs of ${BURST_SECONDS} s bursts ...`);
      for (const api of [apis.A, apis.B]) await burst(api, request, expected, 2);
      const a: Burst[] = [];
      const b: Burst[] = [];
      for (let i = 0; i < PAIRS; i++) {
        if (i % 2 === 0) {
          a.push(await burst(apis.A, request, expected, BURST_SECONDS));
          b.push(await burst(apis.B, request, expected, BURST_SECONDS));
        } else {
          b.push(await burst(apis.B, request, expected, BURST_SECONDS));
          a.push(await burst(apis.A, request, expected, BURST_SECONDS));
        }
      }
      const cpu = median(b.map((x, i) => x.cpuUsPerRequest / a[i].cpuUsPerRequest));
      const rps = median(b.map((x, i) => x.rps / a[i].rps));
      const bad = (xs: Burst[]) => xs.reduce((s, x) => s + x.unexpected, 0);
      lines.push(
        `| ${target} | ${Math.round(median(a.map((x) => x.cpuUsPerRequest)))} | ${Math.round(median(b.map((x) => x.cpuUsPerRequest)))} | ${cpu.toFixed(2)} | ` +
          `${Math.round(median(a.map((x) => x.rps)))} | ${Math.round(median(b.map((x) => x.rps)))} | ${rps.toFixed(2)} | ${bad(a)} / ${bad(b)} |`,
      );
    }
    console.log(
      `\nA = ${path.resolve(otherRoot)}, B = this checkout; ${PAIRS} pairs of ${BURST_SECONDS} s bursts, medians; B/A is the median of the pairs' ratios.\n\n` +
        `| target | A CPU us/request | B CPU us/request | B/A CPU | A requests/s | B requests/s | B/A requests/s | unexpected answers (A / B) |\n` +
        `|---|---|---|---|---|---|---|---|\n${lines.join('\n')}\n`,
    );
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
