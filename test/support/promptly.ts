import type { Response } from 'supertest';

/** How long a request may take while a dependency is down; beyond it, the API counts as hanging. */
const PROMPT_MS = 15_000;

/** The "never hangs" check: `call` must settle within `ms`, whatever it answers. */
export async function promptly<T>(what: string, call: () => PromiseLike<T>, ms = PROMPT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([call(), hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** A dependency outage seen from outside: 503 in the error envelope, a Retry-After, no internals. */
export function expectUnavailable(res: Response): void {
  expect({ status: res.status, body: res.body }).toMatchObject({ status: 503, body: { success: false, status: 503 } });
  expect(res.headers['retry-after']).toBeDefined();
  expect(JSON.stringify(res.body)).not.toMatch(/ECONN|127\.0\.0\.1|stack/i);
}
