/**
 * T5 and T6: what the service adds on top of Temporal itself. Each baseline is a bare client (or a
 * bare one-activity worker) against the same dev server as the target, measured in the same way.
 */
import { createServer, type Server } from 'node:http';
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { encodeId } from '../lib/ids';
import { searchAttributePairs } from '../lib/temporal/search-attributes';
import type { WorkflowStarter } from '../lib/temporal/workflow-starter';
import type { TenantScope } from '../db/scoped-repository';
import { emitEvent } from '../domain/webhooks/emit-event';
import { ScopedData } from '../db/scoped-data';
import { relayAfterCommit } from '../domain/webhooks/relay';
import { eventPayloads } from '../contracts/webhook-events';
import type { Sample } from './sample';
import { percentile, sampleOf } from './sample';
import { WARMUP, warmUp } from './warmup';

/** The baseline worker's queue (bench/worker.ts runs bench/workflows.ts on it). */
export const BASELINE_QUEUE = 'bench-baseline';

/** Runs `task` for each of `count` items with `concurrency` in flight; returns each item's latency (ms). */
export async function pool(count: number, concurrency: number, task: (i: number) => Promise<unknown>): Promise<number[]> {
  const latencies: number[] = new Array(count);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const t0 = performance.now();
      await task(i);
      latencies[i] = performance.now() - t0;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return latencies;
}

/** Like pool, but for a fixed time (or until `maxTasks` were started) instead of a fixed count. */
export async function forDuration(
  seconds: number,
  concurrency: number,
  task: (i: number) => Promise<unknown>,
  maxTasks = Infinity,
): Promise<Sample & { count: number }> {
  const latencies: number[] = [];
  let errors = 0;
  let n = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  const worker = async () => {
    while (performance.now() < end && n < maxTasks) {
      const t0 = performance.now();
      try {
        await task(n++);
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  // Over the time it took: a run that reached `maxTasks` ended early.
  return { ...sampleOf(latencies, (performance.now() - start) / 1000), errors, count: latencies.length };
}

/**
 * T5 baseline: starts/s of the baseline worker's waiting workflow, with the search attributes and
 * memo an enrollment carries, so Temporal does for each start what it does for an enrollment's
 * (its first workflow task included). Returns the sample and the started IDs.
 */
export async function bareStarts(client: Client, round: string, count: number, concurrency: number) {
  const ids = Array.from({ length: count }, (_, i) => `bench-await-click/${process.pid}/${round}/${i}`);
  const t0 = performance.now();
  const latencies = await pool(count, concurrency, (i) =>
    client.workflow.start('benchAwaitClick', {
      taskQueue: BASELINE_QUEUE,
      workflowId: ids[i],
      args: [],
      typedSearchAttributes: searchAttributePairs({
        tenantId: 'tenBench',
        environment: 'live',
        campaignId: 'cmpBench',
        leadId: `leadBench${i}`,
      }),
      memo: { summary: `Bench enrollment ${i}` },
    }),
  );
  return { sample: sampleOf(latencies, (performance.now() - t0) / 1000), ids };
}

let signalTurn = 0;

/**
 * T5 baseline: signals/s to those waiting workflows, each one a workflow task of the baseline
 * worker's, after the warm-up the target's requests get (measure()). As the target's events, once
 * the warm-up's workflow tasks are done (`settle`), the measured part signals each workflow at most
 * once: a workflow signalled again while its last signal's task still waited would take the two in
 * one task, for about half the price, which the target's requests never got.
 */
export async function bareSignals(
  client: Client,
  workflowIds: string[],
  seconds: number,
  concurrency: number,
  settle: () => Promise<void>,
): Promise<Sample> {
  // In turn through the workflows, the warm-up and the run alike, as the target's events go.
  const signal = () =>
    client.workflow
      .getHandle(workflowIds[signalTurn++ % workflowIds.length])
      .signal('engagement', { type: 'email_open', at: new Date().toISOString() });
  await warmUp(async (s, max) => (await forDuration(s, WARMUP.concurrency, signal, max)).count, 1, settle);
  return forDuration(seconds, concurrency, signal, workflowIds.length);
}

/** T6 baseline: completions/s of a workflow with one no-op activity, started and awaited. */
export async function oneActivityCompletions(client: Client, round: string, count: number, concurrency: number): Promise<Sample> {
  const t0 = performance.now();
  const latencies = await pool(count, concurrency, (i) =>
    client.workflow.execute('benchOneActivity', {
      taskQueue: BASELINE_QUEUE,
      workflowId: `bench-one-activity/${process.pid}/${round}/${i}`,
      args: [],
    }),
  );
  return sampleOf(latencies, (performance.now() - t0) / 1000);
}

/** A webhook receiver that notes when each event first arrived (2xx to all). */
export class Receiver {
  readonly arrivals = new Map<string, number>();
  private server: Server | null = null;
  private waiters: { count: number; resolve: () => void }[] = [];

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const { id } = JSON.parse(Buffer.concat(chunks).toString()) as { id: string };
        if (!this.arrivals.has(id)) this.arrivals.set(id, performance.now());
        res.writeHead(204).end();
        this.waiters = this.waiters.filter((w) => (this.arrivals.size >= w.count ? (w.resolve(), false) : true));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}/hooks`;
  }

  /** Resolves once `count` distinct events have arrived in all. */
  until(count: number, timeoutMs: number): Promise<void> {
    if (this.arrivals.size >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${this.arrivals.size} of ${count} webhooks arrived`)), timeoutMs);
      this.waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

export interface WebhookTarget {
  db: DataSource;
  workflows: WorkflowStarter;
  scope: TenantScope;
  leadId: string;
  receiver: Receiver;
}

/** Commits one event the way a domain operation does, then relays it; returns its commit time. */
async function commitEvent(t: WebhookTarget, commits: Map<string, number>): Promise<void> {
  const event = await t.db.transaction((m) =>
    emitEvent(new ScopedData(m, t.scope), 'lead.updated', eventPayloads['lead.updated']({ id: t.leadId, changes: { score: 1 } })),
  );
  if (!event) throw new Error('lead.updated was not written: the bench endpoint must be active and subscribe to it');
  commits.set(encodeId('event', event.id), performance.now());
  await relayAfterCommit(t.db, t.workflows, [event]);
}

/**
 * T6 target. Throughput: a burst of `count` committed events, first commit to last receipt.
 * Latency: events committed at `paceRps` for a few seconds, commit to receiver 2xx (p95).
 */
export async function webhookDeliveries(t: WebhookTarget, count: number, concurrency: number, paceRps: number): Promise<Sample> {
  const commits = new Map<string, number>();
  const before = t.receiver.arrivals.size;
  const t0 = performance.now();
  await pool(count, concurrency, () => commitEvent(t, commits));
  await t.receiver.until(before + count, 120_000);
  const burstSeconds = (Math.max(...[...commits.keys()].map((id) => t.receiver.arrivals.get(id) ?? 0)) - t0) / 1000;
  const burst = sampleOf(
    [...commits].map(([id, at]) => (t.receiver.arrivals.get(id) ?? at) - at),
    burstSeconds,
  );

  const paced = new Map<string, number>();
  const pacedCount = Math.max(20, Math.round(paceRps * 4));
  const started = t.receiver.arrivals.size;
  for (let i = 0; i < pacedCount; i++) {
    void commitEvent(t, paced).catch((err) => console.error('bench: paced event failed', err));
    await new Promise((r) => setTimeout(r, 1000 / paceRps));
  }
  await t.receiver.until(started + pacedCount, 120_000);
  const pacedLatencies = [...paced].map(([id, at]) => (t.receiver.arrivals.get(id) ?? at) - at);
  return { ...burst, rps: count / burstSeconds, p95: percentile(pacedLatencies, 0.95) };
}
