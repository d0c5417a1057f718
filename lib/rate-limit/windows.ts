/** Window boundaries (UTC). The billing month is the calendar month. */
export function windowStart(now: number, lengthMs: number): Date {
  return new Date(Math.floor(now / lengthMs) * lengthMs);
}

export function monthWindow(now: number): { start: Date; end: Date } {
  const d = new Date(now);
  return {
    start: new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)),
    end: new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)),
  };
}

export const SECOND = 1_000;
export const MINUTE = 60_000;
export const DAY = 86_400_000;
