import { withCallContext } from '../lib/temporal/call-context';
import type { DomainContext } from './context';

/** Thrown by resultWithin when the workflow has not finished in time. */
export class WaitTimeout extends Error {}

/**
 * A workflow's result if it finishes within `ms`, else WaitTimeout. The request gives its tenant's
 * in-flight slot back first (the wait holds no database connection), and the long poll is aborted
 * when the wait ends, so it never outlives the request.
 */
export async function resultWithin<T>(ctx: DomainContext, workflowId: string, ms: number): Promise<T> {
  ctx.beforeLongWait?.();
  const client = ctx.workflows.client;
  const abort = new AbortController();
  const pending = withCallContext(client, () =>
    client.withAbortSignal(abort.signal, () => client.workflow.getHandle(workflowId).result()),
  ) as Promise<T>;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new WaitTimeout()), ms)));
  try {
    return await Promise.race([pending, timeout]);
  } finally {
    clearTimeout(timer);
    abort.abort();
    pending.catch(() => undefined);
  }
}
