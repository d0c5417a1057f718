/** Polls `fn` until it returns something truthy (work done by other processes is asynchronous). */
export async function waitUntil<T>(fn: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 30_000): Promise<T> {
  for (const end = Date.now() + timeoutMs; Date.now() < end;) {
    const value = await fn();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
