import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { DataSource } from 'typeorm';
import { IdempotencyKey } from '../../db/entities';
import { AppError } from '../../lib/errors';

const TTL_MS = 24 * 60 * 60 * 1000;
/** A first request that has not finished after this long is treated as abandoned (process died). */
const STALE_IN_PROGRESS_MS = 60_000;

/**
 * Idempotency-Key on POST (DESIGN 4): the same key with the same request within 24 h replays the
 * first response (with `Idempotent-Replayed: true`); with a different request it is a 422; while
 * the first is still running, 409. Only successful responses are stored, so a request that failed
 * validation can be corrected and retried under the same key.
 */
export function idempotency(db: DataSource): RequestHandler {
  const repo = db.getRepository(IdempotencyKey);
  return async (req, res, next) => {
    const key = req.get('idempotency-key');
    if (req.method !== 'POST' || key === undefined) return next();
    if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
      return next(
        new AppError('bad_request', 'Invalid Idempotency-Key', [
          { field: 'Idempotency-Key', message: 'Must be 1-255 visible ASCII characters' },
        ]),
      );
    }
    const { tenantId, environment } = req.ctx.auth!;
    const requestHash = createHash('sha256')
      .update(`${req.method} ${req.originalUrl}\n${JSON.stringify(req.body ?? null)}`)
      .digest('hex');
    const id = { tenantId, environment, key };

    const inserted: unknown[] = await db.query(
      `INSERT INTO idempotency_keys (tenant_id, environment, key, request_hash) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING RETURNING key`,
      [tenantId, environment, key, requestHash],
    );
    if (inserted.length === 0) {
      const existing = await repo.findOneBy(id);
      const age = existing ? Date.now() - existing.createdAt.getTime() : Infinity;
      const reusable = existing && age < TTL_MS && !(existing.statusCode === null && age > STALE_IN_PROGRESS_MS);
      if (existing && reusable) {
        if (existing.requestHash !== requestHash) {
          return next(
            new AppError('validation_failed', 'Idempotency-Key was already used with a different request', [
              { field: 'Idempotency-Key', message: 'Reused with a different request body' },
            ]),
          );
        }
        if (existing.statusCode === null) return next(new AppError('conflict', 'A request with this Idempotency-Key is still in progress'));
        res.setHeader('Idempotent-Replayed', 'true');
        return res.status(existing.statusCode).json(existing.responseBody);
      }
      // expired or abandoned: take the key over
      await repo.update(id, { requestHash, statusCode: null, responseBody: () => 'NULL', createdAt: new Date() });
    }

    const send = res.json.bind(res);
    res.json = (body: unknown) => {
      const store = res.statusCode < 300 ? repo.update(id, { statusCode: res.statusCode, responseBody: body as object }) : repo.delete(id);
      store.then(
        () => send(body),
        () => send(body),
      );
      return res;
    };
    next();
  };
}
