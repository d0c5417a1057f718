import pino from 'pino';

/**
 * What pino removes from every log line wherever these fields appear (one level deep): credentials
 * a caller sent or the service issued. Access and error logs do not carry request bodies or headers,
 * so this is the second line of defence.
 */
export const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  ...['password', 'token', 'secret', 'signingSecret', 'fullKey', 'apiKey', 'key'].flatMap((f) => [f, `*.${f}`]),
];

/** Error fields that hold the values of a failed statement: TypeORM's `parameters`, PostgreSQL's `detail` (`Key (email)=(...)`). */
const VALUE_FIELDS = ['parameters', 'detail', 'where', 'driverError'];
/** PostgreSQL quotes offending input after a colon: `invalid input syntax for type bigint: "<value>"`. */
const QUOTED_VALUE = /: "(?:[^"\\]|\\.)*"/g;

/**
 * The `err` serializer: pino's standard one, minus the values of a failed SQL statement (they are
 * request data: emails, tokens, key hashes). The query text stays: its values are bind parameters.
 */
export function serializeError(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const out = pino.stdSerializers.err(err) as unknown as Record<string, unknown>;
  for (const field of VALUE_FIELDS) delete out[field];
  const driver = (err as { driverError?: { code?: string } }).driverError;
  if (driver?.code) out.code = driver.code;
  for (const field of ['message', 'stack'] as const) {
    if (typeof out[field] === 'string') out[field] = (out[field] as string).replace(QUOTED_VALUE, ': "[redacted]"');
  }
  return out;
}
