import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Ports below the kernel's ephemeral range, which it never hands to an outgoing connection or a
 * listen(0): a port the OS picked was free only at that instant, and a server started seconds later
 * found it taken (a Temporal dev server of `npm start`'s test failed CI that way; the machine's
 * other servers and every outgoing connection draw from that range). Each jest worker takes its own
 * slice, starting at a place of its process's own, so concurrent test processes rarely try the same
 * port, and a port still in use is skipped.
 */
const RANGE = 12_000;
const SLICE = 1_000;

function ephemeralLow(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    return 0;
  }
}

const low = ephemeralLow();
const slices = RANGE / SLICE;
const sliceStart = low - RANGE + ((Number(process.env.JEST_WORKER_ID ?? 1) - 1) % slices) * SLICE;
let offset = process.pid % SLICE;

const bound = (port: number) =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(port, '127.0.0.1', () => {
      const { port: actual } = srv.address() as { port: number };
      srv.close(() => resolve(actual));
    });
  });

/** A port nobody listens on right now, for servers a test starts and restarts. */
export async function freePort(): Promise<number> {
  // A kernel whose ephemeral range starts low leaves nothing below it: let it pick.
  if (!(low - RANGE >= 10_000)) return bound(0);
  for (let tries = 0; tries < SLICE; tries++) {
    const port = sliceStart + (offset++ % SLICE);
    try {
      return await bound(port);
    } catch {
      // in use: the next one
    }
  }
  return bound(0);
}
