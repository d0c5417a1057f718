import pino from 'pino';
import { config } from './config';
import { REDACTED_PATHS, serializeError } from './log-redaction';

export const logger = pino({
  level: config.NODE_ENV === 'test' && config.LOG_LEVEL === 'info' ? 'silent' : config.LOG_LEVEL,
  base: { service: 'lead-engagement' },
  redact: REDACTED_PATHS,
  serializers: { err: serializeError },
});

export type Logger = typeof logger;
