/**
 * Imported first by bench/run.ts, before anything reads lib/config: production refuses the built-in
 * dev secrets, so the bench makes random ones for this run. The shipped processes it starts inherit
 * them, and the bench itself needs the same ID_SECRET and TRACKING_SECRET to encode public IDs and
 * sign tracking links the API accepts.
 */
import { randomBytes } from 'node:crypto';

export const SECRET_NAMES = ['JWT_SECRET', 'TRACKING_SECRET', 'FILE_URL_SECRET', 'ID_SECRET', 'DKIM_KEY_SECRET'] as const;

for (const name of SECRET_NAMES) process.env[name] ||= randomBytes(48).toString('base64');
