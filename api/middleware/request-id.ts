import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Honours a caller's X-Request-Id when it is safe to echo, otherwise mints one. */
export const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.get('x-request-id');
  const id = incoming && SAFE_ID.test(incoming) ? incoming : `req_${randomUUID().replace(/-/g, '')}`;
  req.ctx = { requestId: id };
  res.setHeader('X-Request-Id', id);
  next();
};
