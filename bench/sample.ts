import type { CpuPerOperation } from './process-cpu';

/** One measured run: throughput and latency percentiles (ms). */
export interface Sample {
  rps: number;
  p50: number;
  p99: number;
  /** Only where a target has a p95 goal (T6: commit to receiver 2xx at a steady rate). */
  p95?: number;
  /** Answers outside the expected status class (2xx; 3xx for a redirect), connection errors and failed operations: a run with any measures the wrong thing, so it cannot meet its goal. */
  errors: number;
  /** 5xx answers among them. */
  serverErrors: number;
  /** CPU milliseconds per operation, by process kind (bench/process-cpu.ts). */
  cpu?: CpuPerOperation;
}

/** The middle value (the upper one of an even count). */
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] * 10) / 10;
}

export function sampleOf(latencies: number[], seconds: number): Sample {
  return { rps: latencies.length / seconds, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), errors: 0, serverErrors: 0 };
}

/** Two decimals, or two significant digits for a value too small to show in two decimals (T8's ratio, a row's CPU). */
export const twoPlaces = (x: number): number => (x >= 0.1 ? Math.round(x * 100) / 100 : Number(x.toPrecision(2)));
