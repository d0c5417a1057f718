/**
 * Response fields that hand the caller a secret, shown once: a new API key (`POST /v1/api-keys`)
 * and a webhook signing secret (`POST /v1/integrations/webhooks`, `POST .../rotate-secret`).
 * Whatever stores responses (idempotency replays) must not keep them. A new secret-bearing
 * response field belongs here (test/idempotency.test.ts replays each route that returns one).
 */
const SECRET_RESPONSE_FIELDS: ReadonlySet<string> = new Set(['fullKey', 'secret']);

const REDACTED = '[redacted]';

/** A copy of `body` with every secret field's value replaced, and whether there was any. */
export function redactSecrets(body: unknown): { body: unknown; redacted: boolean } {
  let redacted = false;
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([name, v]) => {
        if (!SECRET_RESPONSE_FIELDS.has(name) || typeof v !== 'string') return [name, walk(v)];
        redacted = true;
        return [name, REDACTED];
      }),
    );
  };
  const copy = walk(body);
  return { body: copy, redacted };
}
