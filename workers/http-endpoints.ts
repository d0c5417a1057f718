import express from 'express';
import type { State } from '@temporalio/worker';
import type { DataSource } from 'typeorm';
import { errorBody, successBody } from '../lib/http-envelope';
import { listen, type RunningServer } from '../lib/http-server';
import { metricsRegistry } from '../lib/metrics';
import { unscoped } from '../db/unscoped';

export interface WorkerEndpointsOptions {
  port: number;
  /** Healthy while RUNNING: the worker group answers for all its queues. */
  worker: { getState(): State };
  db: DataSource;
  /** The SDK's own Prometheus exporter (TEMPORAL_SDK_METRICS_ADDRESS), merged into /metrics. */
  sdkMetricsAddress?: string;
}

const PROBE_TIMEOUT_MS = 2000;

/**
 * The worker process's HTTP side, for orchestrators and Prometheus: /healthz answers 200 while the
 * worker polls and its database answers (503 once it drains or fails, so a supervisor replaces it),
 * /metrics serves this process's metrics followed by the SDK's (task slots, schedule-to-start
 * latency: the signal to add workers), so one scrape target covers both.
 */
export function serveWorkerEndpoints(opts: WorkerEndpointsOptions): Promise<RunningServer> {
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', async (_req, res) => {
    const state = opts.worker.getState();
    const database = await unscoped(opts.db)
      .rows('SELECT 1')
      .then(
        () => 'ok',
        () => 'unavailable',
      );
    const data = { worker: state, database };
    if (state === 'RUNNING' && database === 'ok') res.json(successBody(200, 'OK', data));
    else res.status(503).json(errorBody(503, 'Worker not healthy', undefined, data));
  });
  app.get('/metrics', async (_req, res) => {
    const own = await metricsRegistry.metrics();
    const sdk = opts.sdkMetricsAddress ? await fetchSdkMetrics(opts.sdkMetricsAddress) : '';
    res.setHeader('Content-Type', metricsRegistry.contentType);
    res.send(sdk ? `${own}\n${sdk}` : own);
  });
  return listen(app, opts.port);
}

async function fetchSdkMetrics(address: string): Promise<string> {
  try {
    const res = await fetch(`http://${address}/metrics`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    return res.ok ? await res.text() : '';
  } catch {
    return ''; // the process's own metrics still help while the SDK exporter is unreachable
  }
}
