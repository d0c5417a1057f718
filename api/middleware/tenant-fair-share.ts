import type { RequestHandler } from 'express';

export interface FairShareSettings {
  /** In-flight requests of a tenant and environment while no other one is using the process. */
  maxInFlight: number;
  /** Its in-flight requests while another tenant or environment is (or was within `SHARED_WINDOW_MS`). */
  sharedMaxInFlight: number;
  /** The clock (tests). */
  now?: () => number;
}

/** How long after another tenant's last request the process still counts as shared. */
export const SHARED_WINDOW_MS = 1000;

interface Lane {
  running: number;
  waiting: (() => void)[];
}

/**
 * At most `maxInFlight` requests of one tenant and environment run past this point at once; the
 * rest wait their turn here, in arrival order, holding nothing but a socket. Without it one
 * tenant's 50 concurrent requests fill the database pool and every other tenant's request waits
 * behind all of them, past the pool's connection timeout; with it another tenant's request only
 * ever waits for a share (docs/decisions.md, "Data": background work has its own connections).
 *
 * While another tenant also sends requests (one within the last second), the share shrinks to
 * `sharedMaxInFlight`: a burst that keeps the machine's cores busy would otherwise make every
 * request of the other tenant queue behind its work for CPU, in this event loop and in
 * PostgreSQL, and a tenant that sends one request at a time would see its latency multiplied by
 * the burst. Requests already running finish; the burst's next ones start as slots come back.
 *
 * A request that then waits on something else (a send or an AI generation waiting for its
 * workflow) gives its slot back first (`req.ctx.leaveFairShare`, the domain's `beforeLongWait`),
 * so a tenant's slow calls never hold up its quick ones. A request that waits for a group commit
 * (concurrent lead creates written by one statement) gives it back only while the process is not
 * shared (`leaveFairShareWhileAlone`): alone, the tenant's next requests join the group; shared,
 * the shrunk share keeps bounding the CPU its requests take (test/reliability/duplicate-flood).
 */
export function tenantFairShare({ maxInFlight, sharedMaxInFlight, now = Date.now }: FairShareSettings): RequestHandler {
  const lanes = new Map<string, Lane>();
  const shared = Math.min(sharedMaxInFlight, maxInFlight);
  // The two most recently active lanes: enough to know when any lane other than a given one was last active.
  let latest = { key: '', at: -Infinity };
  let previous = { key: '', at: -Infinity };
  const touch = (key: string) => {
    const at = now();
    if (latest.key !== key) previous = latest;
    latest = { key, at };
  };
  const capOf = (key: string) => {
    const otherAt = latest.key === key ? previous.at : latest.at;
    return now() - otherAt < SHARED_WINDOW_MS ? shared : maxInFlight;
  };

  return (req, res, next) => {
    const auth = req.ctx.auth;
    if (!auth) return next();
    const key = `${auth.tenantId}:${auth.environment}`;
    touch(key);
    let lane = lanes.get(key);
    if (!lane) lanes.set(key, (lane = { running: 0, waiting: [] }));
    const run = (l: Lane) => {
      l.running++;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        l.running--;
        touch(key);
        // Once the process is no longer shared, the share grows back: start every waiter it allows.
        const cap = capOf(key);
        while (l.waiting.length && l.running < cap) l.waiting.shift()?.();
        if (l.running === 0 && !l.waiting.length) lanes.delete(key);
      };
      res.once('finish', release);
      res.once('close', release);
      req.ctx.leaveFairShare = release;
      req.ctx.leaveFairShareWhileAlone = () => {
        if (capOf(key) > shared) release();
      };
      next();
    };
    if (lane.running < capOf(key)) return run(lane);
    const waiting = lane;
    // A waiter whose client went away takes no slot: release's loop goes on to the next one.
    waiting.waiting.push(() => void (res.destroyed || run(waiting)));
  };
}
