import pino from 'pino';
import { config } from './config';
import { REDACTED_PATHS, serializeError } from './log-redaction';

/**
 * Lines go to stdout through an asynchronous destination: a request does not wait for its access-log
 * line's write(2) (a synchronous one blocked the event loop on every line; see README, benchmark).
 * pino flushes what is buffered synchronously when the process exits, `process.exit()` included,
 * so a fatal line logged just before exiting is still written.
 */
export const logger = pino(
  {
    level: config.NODE_ENV === 'test' && config.LOG_LEVEL === 'info' ? 'silent' : config.LOG_LEVEL,
    base: { service: 'lead-engagement' },
    redact: REDACTED_PATHS,
    serializers: { err: serializeError },
  },
  pino.destination({ dest: 1, sync: false }),
);
