import { existsSync, readFileSync } from 'node:fs';

/** Busy and total time of all CPUs since boot, in jiffies (the first line of /proc/stat). */
function cpuTimes(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - fields[3] - fields[4], total }; // idle and iowait are not busy
}

const QUIET_SHARE = 0.15;
const WINDOW_MS = 500;

/**
 * Waits until the machine's CPUs have been at most 15 % busy for two windows of 500 ms in a row,
 * at most `timeoutMs`, and says how busy they still were if it gives up. What a run leaves behind
 * is not all visible in the database: a worker still working through the workflow tasks of the
 * signals a run sent (a bare worker's as much as the service's), or autovacuum after many inserts.
 * Where /proc/stat does not exist (not Linux), it does not wait.
 */
export async function untilQuiet(timeoutMs: number, log: (msg: string) => void): Promise<void> {
  if (!existsSync('/proc/stat')) return;
  const deadline = Date.now() + timeoutMs;
  let quietWindows = 0;
  let share = 0;
  while (quietWindows < 2) {
    if (Date.now() > deadline)
      return log(`settle: the CPUs were still ${Math.round(share * 100)} % busy after ${timeoutMs / 1000} s; measuring anyway`);
    const before = cpuTimes();
    await new Promise((r) => setTimeout(r, WINDOW_MS));
    const after = cpuTimes();
    share = (after.busy - before.busy) / Math.max(1, after.total - before.total);
    quietWindows = share <= QUIET_SHARE ? quietWindows + 1 : 0;
  }
}
