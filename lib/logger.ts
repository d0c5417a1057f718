import pino from 'pino';
import { config } from './config';
import { REDACTED_PATHS, serializeError } from './log-redaction';

/**
 * Lines go to stdout through an asynchronous destination: a request does not wait for its access-log
 * line's write(2) (a synchronous one blocked the event loop on every line; see README, benchmark).
 * They are written in batches of at least BATCH_BYTES, and at the latest FLUSH_MS after they were
 * logged: one asynchronous write per line cost the API a thread-pool round trip per request (8 %
 * of its CPU per POST /v1/leads, `npm run bench:ab`). pino flushes what is buffered synchronously when the process
 * exits, `process.exit()` included, so a fatal line logged just before exiting is still written.
 */
const BATCH_BYTES = 8192;
const FLUSH_MS = 100;
/** The stream under the loggers (exported for its test). */
export const logStream = pino.destination({ dest: 1, sync: false, minLength: BATCH_BYTES });
let unflushed = false;
const destination = {
  write(line: string) {
    unflushed = true;
    return logStream.write(line);
  },
};
setInterval(() => {
  if (unflushed) logStream.flush();
  unflushed = false;
}, FLUSH_MS).unref();
const level = config.NODE_ENV === 'test' && config.LOG_LEVEL === 'info' ? 'silent' : config.LOG_LEVEL;
const base = { service: 'lead-engagement' };

export const logger = pino({ level, base, redact: REDACTED_PATHS, serializers: { err: serializeError } }, destination);

/**
 * The access log (api/middleware/observe-request.ts), to the same destination. Its lines have fixed
 * fields (IDs, method, route template, status, time), none of which can hold a credential, so they
 * skip the redaction pass every other line takes: about 1 % of the API's CPU per request.
 */
export const accessLogger = pino({ level, base }, destination);
