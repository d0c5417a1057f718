import type { RequestHandler } from 'express';

/**
 * At most `maxInFlight` requests of one tenant and environment run past this point at once; the
 * rest wait their turn here, in arrival order, holding nothing but a socket. Without it one
 * tenant's 50 concurrent requests fill the database pool and every other tenant's request waits
 * behind all of them, past the pool's connection timeout; with it another tenant's request only
 * ever waits for a share (docs/decisions.md, "Data": background work has its own connections).
 * A request that then waits on something else (a send or an AI generation waiting for its
 * workflow) gives its slot back first (`req.ctx.leaveFairShare`, the domain's `beforeLongWait`),
 * so a tenant's slow calls never hold up its quick ones.
 */
export function tenantFairShare(maxInFlight: number): RequestHandler {
  const lanes = new Map<string, { running: number; waiting: (() => void)[] }>();
  return (req, res, next) => {
    const auth = req.ctx.auth;
    if (!auth) return next();
    const key = `${auth.tenantId}:${auth.environment}`;
    let lane = lanes.get(key);
    if (!lane) lanes.set(key, (lane = { running: 0, waiting: [] }));
    const run = (l: NonNullable<typeof lane>) => {
      l.running++;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        l.running--;
        const following = l.waiting.shift();
        if (following) following();
        else if (l.running === 0) lanes.delete(key);
      };
      res.once('finish', release);
      res.once('close', release);
      req.ctx.leaveFairShare = release;
      next();
    };
    if (lane.running < maxInFlight) return run(lane);
    const waiting = lane;
    waiting.waiting.push(() => (res.destroyed ? releaseUnused(waiting) : run(waiting)));
  };
  /** A waiter whose client went away takes no slot: it passes the turn on. */
  function releaseUnused(l: { running: number; waiting: (() => void)[] }) {
    l.waiting.shift()?.();
  }
}
