/** bench/results/latest.json and latest.md: one table per process layout. */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatCpu, type CpuPerOperation } from './process-cpu';
import { twoPlaces, type Sample } from './sample';

export interface TargetResult {
  what: string;
  baseline: Sample;
  target: Sample;
  ratio: number;
  goal: number;
  p99Goal?: string;
  p95Goal?: number;
  /** The status class a correct answer has (the click redirect answers 3xx). */
  expected: '2xx' | '3xx';
  met: boolean;
}

export interface LayoutResult {
  title: string;
  how: string;
  targets: Record<string, TargetResult>;
}

export function markdownTable(targets: Record<string, TargetResult>): string {
  const rows = Object.entries(targets).map(([id, r]) => {
    const p95 = r.target.p95 !== undefined ? ` (p95 paced ${r.target.p95})` : '';
    const goal = `${r.goal}${r.p99Goal ? `, p99 ${r.p99Goal}` : ''}${r.p95Goal ? `, p95 <= ${r.p95Goal} ms` : ''}`;
    const unexpected = `${r.baseline.errors} / ${r.target.errors}${r.expected === '3xx' ? ' (non-3xx)' : ''}`;
    return `| ${id} | ${r.baseline.rps} | ${r.baseline.p50} / ${r.baseline.p99} | ${r.target.rps} | ${r.target.p50} / ${r.target.p99}${p95} | ${r.baseline.serverErrors} / ${r.target.serverErrors} | ${unexpected} | ${r.ratio} | ${goal} | ${r.met ? 'met' : 'missed'} |`;
  });
  return [
    '| id | baseline rps | baseline p50 / p99 ms | target rps | target p50 / p99 ms | 5xx (B / T) | non-2xx or failed (B / T) | ratio | goal | result |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/**
 * Where each target's and baseline's CPU went, per operation (bench/process-cpu.ts): on a machine
 * whose cores are full, the processes that make a ratio what it is. Empty without /proc.
 */
export function cpuTable(targets: Record<string, TargetResult>): string {
  const rows = Object.entries(targets)
    .filter(([, r]) => r.baseline.cpu || r.target.cpu)
    .map(([id, r]) => `| ${id} | ${cpuCell(r.baseline.cpu)} | ${cpuCell(r.target.cpu)} |`);
  if (!rows.length) return '';
  return [
    'CPU milliseconds per operation, by process, from the end of the warm-up until the machine was quiet again (medians of the rounds; "load" is the bench process, which also runs the Temporal baselines\' client):',
    '',
    '| id | baseline | target |',
    '|---|---|---|',
    ...rows,
  ].join('\n');
}

const cpuCell = (cpu: CpuPerOperation | undefined) => {
  if (!cpu) return '';
  const total = Object.values(cpu).reduce((a, ms) => a + ms, 0);
  return `${formatCpu(cpu)} (${twoPlaces(total)} in all)`;
};

export function writeResults(dir: string, machine: Record<string, unknown>, layouts: Record<string, LayoutResult>): void {
  writeFileSync(path.join(dir, 'latest.json'), JSON.stringify({ machine, layouts }, null, 2) + '\n');
  const whats = new Map<string, string>();
  for (const l of Object.values(layouts)) for (const [id, r] of Object.entries(l.targets)) whats.set(id, r.what);
  writeFileSync(
    path.join(dir, 'latest.md'),
    [
      `# Benchmark results (${machine.date})`,
      '',
      `${machine.cpus} CPUs (${machine.cpuModel}), Node ${machine.node}; autocannon ${machine.connections} connections, ${machine.durationSeconds} s per run, ${machine.rounds} interleaved rounds, medians. Every ratio is target / baseline from the same round.`,
      '',
      ...Object.values(layouts).flatMap((l) => [`## ${l.title}`, '', l.how, '', markdownTable(l.targets), '', cpuTable(l.targets), '']),
      ...[...whats].map(([id, what]) => `- ${id}: ${what}`),
      '',
    ].join('\n'),
  );
}

export function machineInfo(extra: Record<string, unknown>): Record<string, unknown> {
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    date: new Date().toISOString(),
    ...extra,
  };
}
