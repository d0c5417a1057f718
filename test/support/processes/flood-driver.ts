/**
 * One tenant's flood of lead creates, as a process of its own (`runFlood` below starts it): the
 * flooding client's event loop then is not the one that times the other tenant's requests, as two
 * tenants' integrations are two machines. Prints one JSON line: the status of every request and
 * the first 5xx body.
 */
import { runScript } from './service-process';

interface FloodOptions {
  url: string;
  apiKey: string;
  leads: number;
  concurrency: number;
  /** Every lead gets this phone (and an email of its own). */
  phone: string;
}

export interface FloodResult {
  statuses: number[];
  firstFailure?: string;
}

/** The driver's line before its first request. */
const STARTING = 'flood starting';

async function flood(opts: FloodOptions): Promise<FloodResult> {
  const result: FloodResult = { statuses: [] };
  console.log(STARTING);
  let next = 0;
  const client = async () => {
    while (next < opts.leads) {
      const n = next++;
      const res = await fetch(`${opts.url}/v1/leads`, {
        method: 'POST',
        headers: { 'X-API-Key': opts.apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: `flood-${n}-${process.pid}@example.com`, firstName: 'Ada', lastName: 'Lovelace', phone: opts.phone }),
      });
      const text = await res.text();
      if (res.status >= 500) result.firstFailure ??= text;
      result.statuses.push(res.status);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, client));
  return result;
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
  void flood(JSON.parse(process.env.FLOOD_OPTIONS as string) as FloodOptions).then((r) => console.log(JSON.stringify(r)));
}
