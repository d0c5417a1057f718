/**
 * A one-line reason for any thrown value, for command-line tools: libraries sometimes reject with
 * undefined, a string or a plain object, and "failed: undefined" tells an operator nothing.
 */
export function describeError(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  if (typeof err === 'string' && err) return err;
  if (err === undefined || err === null) return 'an unknown error (the failing library gave no reason; run again with LOG_LEVEL=debug)';
  try {
    return JSON.stringify(err);
  } catch {
    return String(err);
  }
}
