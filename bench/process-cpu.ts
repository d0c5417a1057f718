import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { median, twoPlaces } from './sample';

/**
 * CPU time per process kind, from /proc: where an operation's CPU goes, target and baseline alike.
 * On a machine whose cores are full, a ratio says how much more CPU the service spends per
 * operation than its baseline; this says in which process (the API, the worker, Temporal,
 * PostgreSQL, the load generator). Where /proc does not exist (not Linux) nothing is measured.
 */

/** The bench's processes by what their command line runs; a process matching none is not counted. */
const KINDS: [kind: string, matches: (cmdline: string) => boolean][] = [
  ['api', (c) => c.includes('dist/api/server.js')],
  ['worker', (c) => c.includes('dist/workers/main.js')],
  ['all-in-one', (c) => c.includes('dist/scripts/start.js')],
  ['bare worker', (c) => c.includes('bench/worker.js')],
  ['bare servers', (c) => c.includes('bench/servers.js')],
  ['load', (c) => c.includes('bench/run.js')],
  ['temporal', (c) => /(^|\/)temporal$/.test(c.split('\0')[0])],
];
/**
 * The embedded PostgreSQL's postmaster, a binary from node_modules; its backends are its children.
 * The machine may run a PostgreSQL of its own, which is not counted.
 */
const isEmbeddedPostmaster = (cmdline: string) => /\/node_modules\/.*\/bin\/postgres$/.test(cmdline.split('\0')[0]);

const TICK_MS = 10; // USER_HZ is 100 on Linux

interface ProcessTimes {
  pid: string;
  ppid: string;
  cmdline: string;
  /** utime + stime, and cutime + cstime (children it has reaped), in ticks. */
  own: number;
  reaped: number;
}

function processTimes(pid: string): ProcessTimes | null {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name (which may hold spaces): ppid is field 4, utime 14 ... cstime 17.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
    return { pid, ppid: fields[1], cmdline, own: utime + stime, reaped: cutime + cstime };
  } catch {
    return null; // exited meanwhile
  }
}

/**
 * CPU milliseconds used so far by the processes of each kind. For PostgreSQL: the embedded
 * postmaster with the backends it has reaped (a connection closed mid-run), and its live children.
 */
function cpuByKind(): Map<string, number> {
  const all = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(processTimes)
    .filter((p): p is ProcessTimes => p !== null);
  const postmasters = new Set(all.filter((p) => isEmbeddedPostmaster(p.cmdline)).map((p) => p.pid));
  const totals = new Map<string, number>();
  for (const p of all) {
    const postmaster = postmasters.has(p.pid);
    const kind = postmaster || postmasters.has(p.ppid) ? 'postgres' : KINDS.find(([, matches]) => matches(p.cmdline))?.[0];
    if (kind) totals.set(kind, (totals.get(kind) ?? 0) + (p.own + (postmaster ? p.reaped : 0)) * TICK_MS);
  }
  return totals;
}

export type CpuPerOperation = Record<string, number>;

/**
 * Measures one run: `begin` when its measured part starts (bench/warmup.ts calls it after the
 * warm-up), `measured` when that part ends, `end` once the machine is quiet again, so the work a
 * run queued (workflow tasks still to run) counts too. `end` gives the CPU milliseconds each kind
 * of process spent per operation (`rps` of the measured part times its length), kinds that spent
 * under 1 % of the whole left out; undefined when /proc is missing or nothing was measured.
 */
class CpuMeter {
  private start: { at: number; cpu: Map<string, number> } | null = null;
  private measuredMs = 0;

  begin(): void {
    if (!existsSync('/proc/stat')) return;
    this.start = { at: performance.now(), cpu: cpuByKind() };
    this.measuredMs = 0;
  }

  measured(): void {
    if (this.start) this.measuredMs = performance.now() - this.start.at;
  }

  end(rps: number): CpuPerOperation | undefined {
    const start = this.start;
    this.start = null;
    const operations = (rps * this.measuredMs) / 1000;
    if (!start || operations < 1) return undefined;
    const spent = [...cpuByKind()].map(([kind, ms]) => [kind, ms - (start.cpu.get(kind) ?? 0)] as const);
    const total = spent.reduce((a, [, ms]) => a + ms, 0);
    return Object.fromEntries(
      spent
        .filter(([, ms]) => ms > 0.01 * total)
        .sort((a, b) => b[1] - a[1])
        .map(([kind, ms]) => [kind, twoPlaces(ms / operations)]),
    );
  }
}

export const cpuMeter = new CpuMeter();

/** "temporal 3.4, api 1.4, ..." (ms per operation), or an empty string. */
export const formatCpu = (cpu: CpuPerOperation | undefined): string =>
  cpu
    ? Object.entries(cpu)
        .map(([kind, ms]) => `${kind} ${ms}`)
        .join(', ')
    : '';

/** Each kind's median over the rounds (a kind missing from a round counts as 0 there). */
export function medianCpu(rounds: CpuPerOperation[]): CpuPerOperation {
  const kinds = new Set(rounds.flatMap((r) => Object.keys(r)));
  return Object.fromEntries(
    [...kinds]
      .map((kind) => [kind, median(rounds.map((r) => r[kind] ?? 0))] as const)
      .filter(([, ms]) => ms > 0)
      .sort((a, b) => b[1] - a[1]),
  );
}
