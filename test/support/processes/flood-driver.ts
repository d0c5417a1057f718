/**
 * One tenant's flood of requests (lead creates or reads), as a process of its own (`runFlood`
 * below starts it): the flooding client's event loop then is not the one that times the other
 * tenant's requests, as two tenants' integrations are two machines. Prints one JSON line: the
 * status of every request and the first 5xx body.
 */
import { Agent, request } from 'node:http';
import { setPriority } from 'node:os';
import { runScript } from './service-process';

/** What the flood sends: creates of leads sharing one phone, or reads of a tenant's leads by ID. */
export type FloodRequests =
  /** Every lead gets this phone (and an email of its own). */
  | { kind: 'create'; phone: string }
  /** GET /v1/leads/:id, round robin over these IDs. */
  | { kind: 'read'; leadIds: string[] };

export interface FloodOptions {
  url: string;
  apiKey: string;
  /** How many requests in all. */
  count: number;
  concurrency: number;
  requests: FloodRequests;
}

export interface FloodResult {
  statuses: number[];
  firstFailure?: string;
}

/** Nice value of the driver process (0 normal, 19 lowest). */
const FLOOD_CLIENT_NICENESS = 10;

/** The driver's line before its first request. */
const STARTING = 'flood starting';

async function flood(opts: FloodOptions): Promise<FloodResult> {
  const result: FloodResult = { statuses: [] };
  // node:http with one kept-alive socket per client: a fraction of fetch's CPU per request, so the
  // driver takes less of the machine it shares with the API (a real flood's client runs elsewhere).
  const agent = new Agent({ keepAlive: true, maxSockets: opts.concurrency });
  console.log(STARTING);
  let next = 0;
  const client = async () => {
    while (next < opts.count) {
      const { status, text } = await send(agent, opts, next++);
      if (status >= 500) result.firstFailure ??= text;
      result.statuses.push(status);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, client));
  agent.destroy();
  return result;
}

/** The flood's `n`th request: its path and, for a create, its JSON body. */
function nthRequest(requests: FloodRequests, n: number): { path: string; body?: string } {
  if (requests.kind === 'read') return { path: `/v1/leads/${requests.leadIds[n % requests.leadIds.length]}` };
  const lead = { email: `flood-${n}-${process.pid}@example.com`, firstName: 'Ada', lastName: 'Lovelace', phone: requests.phone };
  return { path: '/v1/leads', body: JSON.stringify(lead) };
}

function send(agent: Agent, opts: FloodOptions, n: number): Promise<{ status: number; text: string }> {
  const { path, body } = nthRequest(opts.requests, n);
  const headers: Record<string, string | number> = { 'X-API-Key': opts.apiKey };
  if (body) Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, opts.url), { method: body ? 'POST' : 'GET', agent, headers });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Runs the flood in a child process; resolves with its result when every request has answered.
 * `onStart` is called when the driver has booted and sends its first requests: a flood from
 * another machine costs this one nothing before that.
 */
export async function runFlood(opts: FloodOptions, onStart?: () => void): Promise<FloodResult> {
  let output = '';
  const run = await runScript(__filename, [], { FLOOD_OPTIONS: JSON.stringify(opts) }, 300_000, (chunk) => {
    if (output.includes(STARTING)) return;
    output += chunk;
    if (output.includes(STARTING)) onStart?.();
  });
  if (run.code !== 0) throw new Error(`flood driver exited ${run.code}:\n${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').pop() as string) as FloodResult;
}

if (require.main === module) {
  // Below the services' priority (this thread, where the requests are made): a real flood's client
  // runs on another machine, and here its work would otherwise take the two cores from the API it floods.
  setPriority(FLOOD_CLIENT_NICENESS);
  void flood(JSON.parse(process.env.FLOOD_OPTIONS as string) as FloodOptions).then((r) => console.log(JSON.stringify(r)));
}
