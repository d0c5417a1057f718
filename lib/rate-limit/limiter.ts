import type { CustomLimits } from '../../db/entities/tenant';
import type { Environment } from '../../db/entities/tenant-owned';
import type { CounterStore } from './counter-store';
import { DAY, MINUTE, SECOND, monthWindow, windowStart } from './windows';

/** The unauthenticated routes, grouped by how much traffic one address may legitimately send. */
export type PublicRouteClass = 'tracking' | 'pages' | 'forms' | 'login' | 'fileUrls' | 'providerCallbacks';

export interface LimiterOptions {
  ipPerMinute: number;
  authFailuresPerMinute: number;
  /** Per-IP limits of the unauthenticated routes, per class and minute. */
  publicPerMinute: Record<PublicRouteClass, number>;
}

export interface RequestIdentity {
  tenantId: string;
  environment: Environment;
  limits: CustomLimits;
  ip: string;
  /** Live API-key calls count toward the monthly quota; sandbox and dashboard calls do not. */
  billable: boolean;
}

export interface Decision {
  allowed: boolean;
  headers: Record<string, string>;
  retryAfterSeconds?: number;
}

const monthKey = (tenantId: string) => `t:${tenantId}:month`;

/**
 * Counts are exact (asked of the shared store) once within this margin of a limit: enough for the
 * hits other API processes may not have written yet, and every count under a small limit.
 */
const exactNear = (limit: number) => limit - Math.max(50, Math.ceil(limit * 0.2));

/**
 * Per-tenant per-minute limit with a per-second burst cap, the monthly quota and a per-IP limit,
 * all counted in one round trip to the shared store. Limits are kept per environment, so a
 * sandbox load test cannot starve live traffic.
 */
export class RateLimiter {
  constructor(
    private readonly store: CounterStore,
    private readonly opts: LimiterOptions,
  ) {}

  async check(id: RequestIdentity, now = Date.now()): Promise<Decision> {
    const minute = windowStart(now, MINUTE);
    const second = windowStart(now, SECOND);
    const month = monthWindow(now);
    const scope = `t:${id.tenantId}:${id.environment}`;
    const [perMinute, perSecond, perIp, monthly] = await this.store.hit([
      { key: `${scope}:minute`, windowStart: minute, ttlMs: 2 * MINUTE, exactAbove: exactNear(id.limits.perMinute) },
      { key: `${scope}:second`, windowStart: second, ttlMs: 5 * SECOND, exactAbove: exactNear(id.limits.burst) },
      { key: `ip:${id.ip}:minute`, windowStart: minute, ttlMs: 2 * MINUTE, exactAbove: exactNear(this.opts.ipPerMinute) },
      // by 0 reads the month's count without adding to it (sandbox, dashboard)
      {
        key: monthKey(id.tenantId),
        windowStart: month.start,
        ttlMs: 40 * DAY,
        by: id.billable ? 1 : 0,
        exactAbove: exactNear(id.limits.monthlyCalls),
      },
    ]);
    const minuteReset = Math.ceil((minute.getTime() + MINUTE) / 1000);
    const headers = {
      'X-RateLimit-Limit': String(id.limits.perMinute),
      'X-RateLimit-Remaining': String(Math.max(0, id.limits.perMinute - perMinute)),
      'X-RateLimit-Reset': String(minuteReset),
      'X-API-Usage-Current': String(Math.min(monthly, id.limits.monthlyCalls)),
      'X-API-Usage-Limit': String(id.limits.monthlyCalls),
    };
    const untilMinuteEnd = Math.max(1, minuteReset - Math.floor(now / 1000));
    let retryAfterSeconds: number | undefined;
    if (id.billable && monthly > id.limits.monthlyCalls) retryAfterSeconds = Math.ceil((month.end.getTime() - now) / 1000);
    else if (perMinute > id.limits.perMinute || perIp > this.opts.ipPerMinute) retryAfterSeconds = untilMinuteEnd;
    else if (perSecond > id.limits.burst) retryAfterSeconds = 1;
    if (retryAfterSeconds === undefined) return { allowed: true, headers };
    // A refused call is not a billable call.
    if (id.billable) {
      await this.store.hit([{ key: monthKey(id.tenantId), windowStart: month.start, ttlMs: 40 * DAY, by: -1 }]);
      headers['X-API-Usage-Current'] = String(Math.min(monthly - 1, id.limits.monthlyCalls));
    }
    return { allowed: false, headers, retryAfterSeconds };
  }

  /**
   * Counts one call from `ip` to an unauthenticated route of class `routeClass`, in the same shared
   * store and windows as the authenticated per-IP limit (one counter per class, so a flood of pixel
   * hits from a NAT never uses up the login budget of the people behind it).
   */
  async checkPublic(
    routeClass: PublicRouteClass,
    ip: string,
    now = Date.now(),
  ): Promise<{ allowed: boolean; limit: number; retryAfterSeconds: number }> {
    const minute = windowStart(now, MINUTE);
    const limit = this.opts.publicPerMinute[routeClass];
    const [count] = await this.store.hit([
      { key: `ip:${routeClass}:${ip}:minute`, windowStart: minute, ttlMs: 2 * MINUTE, exactAbove: exactNear(limit) },
    ]);
    return { allowed: count <= limit, limit, retryAfterSeconds: Math.max(1, Math.ceil((minute.getTime() + MINUTE - now) / 1000)) };
  }

  /** Counts a failed authentication from `ip`; true when the IP has failed too often this minute. */
  authFailure(ip: string, now = Date.now()): Promise<{ blocked: boolean; retryAfterSeconds: number }> {
    return this.authFailures(ip, 1, now);
  }

  /**
   * Whether `ip` is blocked, without counting anything: checked before a login does any password
   * work, so a blocked IP learns nothing from the answer (the right password gets 429 as well).
   */
  authBlocked(ip: string, now = Date.now()): Promise<{ blocked: boolean; retryAfterSeconds: number }> {
    return this.authFailures(ip, 0, now);
  }

  private async authFailures(ip: string, by: number, now: number): Promise<{ blocked: boolean; retryAfterSeconds: number }> {
    const minute = windowStart(now, MINUTE);
    const [failures] = await this.store.hit([
      { key: `ipfail:${ip}:minute`, windowStart: minute, ttlMs: 2 * MINUTE, by, exactAbove: exactNear(this.opts.authFailuresPerMinute) },
    ]);
    return {
      blocked: failures > this.opts.authFailuresPerMinute,
      retryAfterSeconds: Math.max(1, Math.ceil((minute.getTime() + MINUTE - now) / 1000)),
    };
  }

  /** Writes counts still held in memory (a batching store); call on shutdown. */
  close(): Promise<void> {
    return this.store.close?.() ?? Promise.resolve();
  }

  async monthlyUsage(tenantId: string, now = Date.now()): Promise<{ current: number; start: Date; end: Date }> {
    const month = monthWindow(now);
    return { current: await this.store.read(monthKey(tenantId), month.start), ...month };
  }
}
