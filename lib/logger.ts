import pino from 'pino';
import { config } from './config';

export const logger = pino({
  level: config.NODE_ENV === 'test' && config.LOG_LEVEL === 'info' ? 'silent' : config.LOG_LEVEL,
  base: { service: 'lead-engagement' },
  redact: ['req.headers["x-api-key"]', 'req.headers.authorization', 'password'],
});

export type Logger = typeof logger;
