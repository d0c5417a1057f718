/**
 * An open-loop HTTP load driver: each client sends at a fixed rate whatever the server's latency
 * (a missed tick is dropped, never caught up in a burst), and every response is recorded with the
 * rate-limit headers the assertions need.
 */
export interface Sample {
  client: string;
  method: string;
  path: string;
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export interface LoadClient {
  name: string;
  headers: Record<string, string>;
  requestsPerSecond: number;
  /** The next request to send (method, path, optional JSON body), from the client's traffic mix. */
  next: () => { method: string; path: string; body?: unknown };
}

const RECORDED_HEADERS = ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'content-type'];
const TICK_MS = 50;
/** Bounds the sockets one client holds open when the server slows down. */
const MAX_IN_FLIGHT = 64;

export async function send(
  baseUrl: string,
  client: Pick<LoadClient, 'name' | 'headers'>,
  req: ReturnType<LoadClient['next']>,
): Promise<Sample> {
  const res = await fetch(baseUrl + req.path, {
    method: req.method,
    headers: { ...client.headers, ...(req.body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: req.body === undefined ? undefined : JSON.stringify(req.body),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text, and the envelope assertions will say so
  }
  const headers = Object.fromEntries(RECORDED_HEADERS.flatMap((h) => (res.headers.has(h) ? [[h, res.headers.get(h) as string]] : [])));
  return { client: client.name, method: req.method, path: req.path, status: res.status, headers, body };
}

/** Runs every client for `durationMs`; resolves with every response once the last one is in. */
export async function runLoad(baseUrl: string, clients: LoadClient[], durationMs: number): Promise<{ samples: Sample[]; dropped: number }> {
  const samples: Sample[] = [];
  const pending = new Set<Promise<void>>();
  const inFlight = new Map(clients.map((c) => [c.name, 0]));
  const sent = new Map(clients.map((c) => [c.name, 0]));
  let dropped = 0;
  const start = Date.now();
  while (Date.now() - start < durationMs) {
    const elapsed = Date.now() - start;
    for (const client of clients) {
      // Sends due by now, from the fixed rate: a slow tick is made up only up to the in-flight bound.
      const due = Math.floor((elapsed / 1000) * client.requestsPerSecond) - (sent.get(client.name) as number);
      for (let i = 0; i < due; i++) {
        sent.set(client.name, (sent.get(client.name) as number) + 1);
        if ((inFlight.get(client.name) as number) >= MAX_IN_FLIGHT) {
          dropped++;
          continue;
        }
        inFlight.set(client.name, (inFlight.get(client.name) as number) + 1);
        const p: Promise<void> = send(baseUrl, client, client.next())
          .catch((err: Error) => ({ client: client.name, method: '?', path: '?', status: 0, headers: {}, body: String(err) }))
          .then((s) => {
            samples.push(s);
            inFlight.set(client.name, (inFlight.get(client.name) as number) - 1);
            pending.delete(p);
          });
        pending.add(p);
      }
    }
    await new Promise((r) => setTimeout(r, TICK_MS));
  }
  await Promise.all(pending);
  return { samples, dropped };
}
