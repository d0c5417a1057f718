/** The bench's CPU meter reads each process's CPU time from /proc and names it by what it runs. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpuMeter, medianCpu } from '../bench/process-cpu';
import { cpuTable } from '../bench/report';

const onLinux = existsSync('/proc/stat') ? it : it.skip;

/** A node process that spins for `ms`, with a command line the meter takes for the baseline servers. */
function spin(ms: number): { child: ChildProcess; exited: Promise<void> } {
  const child = spawn(process.execPath, ['-e', `const end = Date.now() + ${ms}; while (Date.now() < end);`, 'dist/bench/servers.js']);
  return { child, exited: new Promise((resolve) => child.once('exit', () => resolve())) };
}

describe('bench CPU meter', () => {
  onLinux('charges a process its CPU per operation, by the kind its command line names', async () => {
    const running = spin(2000);
    await new Promise((r) => setTimeout(r, 100));
    cpuMeter.begin();
    await new Promise((r) => setTimeout(r, 500));
    cpuMeter.measured();
    const spent = cpuMeter.end(10); // about 5 operations in the 0.5 s measured
    running.child.kill();
    await running.exited;
    // At most 500 ms of one core over about 5 operations: up to about 100 ms each (ticks are 10 ms).
    // The spin shares two cores with the other jest worker (and in a session, anything else), so
    // the floor only asks that the meter charged the process a good part of its spin: 29 was seen
    // under load, with a package install beside the suite.
    expect(spent?.['bare servers']).toBeGreaterThan(10);
    expect(spent?.['bare servers']).toBeLessThan(200);
  });

  it('measures nothing without a begin, or with no operation', () => {
    expect(cpuMeter.end(100)).toBeUndefined();
    cpuMeter.begin();
    cpuMeter.measured();
    expect(cpuMeter.end(0)).toBeUndefined();
  });

  it('takes the median of each kind over the rounds and leaves out kinds that spent nothing', () => {
    expect(
      medianCpu([
        { api: 1, temporal: 3 },
        { api: 2, temporal: 5, worker: 0 },
        { api: 3, temporal: 4 },
      ]),
    ).toEqual({ temporal: 4, api: 2 });
    expect(
      Object.keys(
        medianCpu([
          { api: 1, temporal: 3 },
          { api: 2, temporal: 5 },
          { api: 3, temporal: 4 },
        ]),
      ),
    ).toEqual(['temporal', 'api']);
  });

  it('tabulates each target with its baseline, and nothing when no CPU was measured', () => {
    const sample = { rps: 1, p50: 1, p99: 1, errors: 0, serverErrors: 0 };
    const result = (cpu?: Record<string, number>) => ({
      what: '',
      baseline: { ...sample, ...(cpu ? { cpu: { temporal: 3 } } : {}) },
      target: { ...sample, ...(cpu ? { cpu } : {}) },
      ratio: 1,
      goal: 1,
      expected: '2xx' as const,
      met: true,
    });
    expect(cpuTable({ T1: result() })).toBe('');
    expect(cpuTable({ T5: result({ temporal: 4, api: 1.25 }) })).toContain(
      '| T5 | temporal 3 (3 in all) | temporal 4, api 1.25 (5.25 in all) |',
    );
  });
});
