import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** `req_` and a random UUID's 32 hex digits (the dashes dropped by slicing: cheaper than a regex per request). */
function mintRequestId(): string {
  const u = randomUUID();
  return `req_${u.slice(0, 8)}${u.slice(9, 13)}${u.slice(14, 18)}${u.slice(19, 23)}${u.slice(24)}`;
}

/** Honours a caller's X-Request-Id when it is safe to echo, otherwise mints one. */
export const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.get('x-request-id');
  const id = incoming && SAFE_ID.test(incoming) ? incoming : mintRequestId();
  req.ctx = { requestId: id };
  res.setHeader('X-Request-Id', id);
  next();
};
