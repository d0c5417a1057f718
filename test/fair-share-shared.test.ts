import { EventEmitter } from 'node:events';
import type { Request, RequestHandler, Response } from 'express';
import { SHARED_WINDOW_MS, tenantFairShare } from '../api/middleware/tenant-fair-share';

/**
 * The share shrinks while another tenant is active: a tenant alone runs `maxInFlight` requests at
 * once; once another tenant sends one, its further requests start only below `sharedMaxInFlight`,
 * and a second after the other tenant's last request its waiting ones start up to the full share.
 * The middleware runs here on its own, with a clock the test moves, so each step is exact.
 */
let clock = 0;
const share = tenantFairShare({ maxInFlight: 4, sharedMaxInFlight: 1, now: () => clock });

interface Call {
  started: boolean;
  finish(): void;
  /** The client went away while the request waited. */
  abandon(): void;
}

function call(tenantId: string, through: RequestHandler = share): Call {
  const res = Object.assign(new EventEmitter(), { destroyed: false });
  const req = { ctx: { auth: { tenantId, environment: 'live' } } };
  const c: Call = { started: false, finish: () => res.emit('finish'), abandon: () => (res.destroyed = true) };
  through(req as unknown as Request, res as unknown as Response, () => (c.started = true));
  return c;
}

const running = (calls: Call[]) => calls.filter((c) => c.started).length;

describe("a tenant's share while other tenants are active", () => {
  it('is the full share alone, shrinks while another tenant sends requests, and grows back a second after', () => {
    const burst = Array.from({ length: 12 }, () => call('flood'));
    expect(running(burst)).toBe(4);

    clock += 10;
    const other = call('quiet');
    expect(other.started).toBe(true); // another tenant never waits for the burst's share
    // The burst's running requests finish; the next ones start only below the shared share of 1.
    for (const c of burst.slice(0, 4)) c.finish();
    expect(running(burst)).toBe(5);
    burst[4].finish();
    expect(running(burst)).toBe(6);

    other.finish(); // the other tenant's last activity
    clock += SHARED_WINDOW_MS - 1;
    burst[5].finish();
    expect(running(burst)).toBe(7); // still shared: one at a time

    clock += 1;
    burst[6].finish();
    expect(running(burst)).toBe(11); // alone again: four of the five waiting start at once
    const more = Array.from({ length: 2 }, () => call('flood'));
    expect(running(more)).toBe(0); // they queue behind burst[11]
    burst[7].finish();
    expect(running(burst)).toBe(12);
  });

  it('skips a waiter whose client went away: the next one takes the slot', () => {
    const oneAtATime = tenantFairShare({ maxInFlight: 1, sharedMaxInFlight: 1, now: () => 0 });
    const calls = Array.from({ length: 3 }, () => call('t', oneAtATime));
    calls[1].abandon();
    calls[0].finish();
    expect(calls.map((c) => c.started)).toEqual([true, false, true]);
  });
});
