import pino from 'pino';
import { config } from './config';
import { REDACTED_PATHS, serializeError } from './log-redaction';

/**
 * Lines go to stdout through an asynchronous destination: a request does not wait for its access-log
 * line's write(2) (a synchronous one blocked the event loop on every line; see README, benchmark).
 * pino flushes what is buffered synchronously when the process exits, `process.exit()` included,
 * so a fatal line logged just before exiting is still written.
 */
const destination = pino.destination({ dest: 1, sync: false });
const level = config.NODE_ENV === 'test' && config.LOG_LEVEL === 'info' ? 'silent' : config.LOG_LEVEL;
const base = { service: 'lead-engagement' };

export const logger = pino({ level, base, redact: REDACTED_PATHS, serializers: { err: serializeError } }, destination);

/**
 * The access log (api/middleware/observe-request.ts), to the same destination. Its lines have fixed
 * fields (IDs, method, route template, status, time), none of which can hold a credential, so they
 * skip the redaction pass every other line takes: about 1 % of the API's CPU per request.
 */
export const accessLogger = pino({ level, base }, destination);
