import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { DataSource } from 'typeorm';
import { IdempotencyKey } from '../../db/entities';
import { IDEMPOTENCY_TTL_MS } from '../../domain/idempotency-purge';
import { AppError } from '../../lib/errors';
import type { AuthContext } from '../http/context';
import { redactSecrets } from '../http/response-secrets';
import { unscoped } from '../../db/unscoped';

/** A first request that has not finished after this long is treated as abandoned (process died). */
const STALE_IN_PROGRESS_MS = 60_000;

export const SECRET_REPLAY_MESSAGE = 'response contains a secret; retry with a new Idempotency-Key';

/** Records belong to one caller: an API key, or for the platform UI (JWT) the user. */
const principalOf = (auth: AuthContext) => (auth.apiKeyId ? `key:${auth.apiKeyId}` : `user:${auth.ownerUserId}`);

/**
 * Idempotency-Key on POST (docs/decisions.md, "Access"): the same key with the same request from the same caller
 * within 24 h replays the first response (with `Idempotent-Replayed: true`); with a different
 * request it is a 422; while the first is still running, 409. Only successful responses are
 * stored, so a request that failed validation can be corrected and retried under the same key.
 *
 * Mounted after authentication and the scope check (api/http/mount.ts), so a replay is refused to a
 * caller who lost the scope. Secrets in a response are never stored: its replay answers 409 (the
 * secret was shown once; the client retries with a new key and gets a new secret).
 */
export function idempotency(db: DataSource): RequestHandler {
  const repo = unscoped(db).repo(IdempotencyKey);
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
    const auth = req.ctx.auth!;
    const requestHash = createHash('sha256')
      .update(`${req.method} ${req.originalUrl}\n${JSON.stringify(req.body ?? null)}`)
      .digest('hex');
    const id = { tenantId: auth.tenantId, environment: auth.environment, principal: principalOf(auth), key };

    const inserted: unknown[] = await unscoped(db).rows(
      `INSERT INTO idempotency_keys (tenant_id, environment, principal, key, request_hash) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT DO NOTHING RETURNING key`,
      [id.tenantId, id.environment, id.principal, key, requestHash],
    );
    if (inserted.length === 0) {
      const existing = await repo.findOneBy(id);
      const age = existing ? Date.now() - existing.createdAt.getTime() : Infinity;
      const reusable = existing && age < IDEMPOTENCY_TTL_MS && !(existing.statusCode === null && age > STALE_IN_PROGRESS_MS);
      if (existing && reusable) {
        if (existing.requestHash !== requestHash) {
          return next(
            new AppError('validation_failed', 'Idempotency-Key was already used with a different request', [
              { field: 'Idempotency-Key', message: 'Reused with a different request body' },
            ]),
          );
        }
        if (existing.statusCode === null) return next(new AppError('conflict', 'A request with this Idempotency-Key is still in progress'));
        if (existing.secretRedacted) return next(new AppError('conflict', SECRET_REPLAY_MESSAGE));
        res.setHeader('Idempotent-Replayed', 'true');
        return res.status(existing.statusCode).json(existing.responseBody);
      }
      // expired or abandoned: take the key over
      await repo.update(id, { requestHash, statusCode: null, responseBody: () => 'NULL', secretRedacted: false, createdAt: new Date() });
    }

    const send = res.json.bind(res);
    res.json = (body: unknown) => {
      let store: Promise<unknown>;
      if (res.statusCode < 300) {
        const stored = redactSecrets(body);
        store = repo.update(id, { statusCode: res.statusCode, responseBody: stored.body as object, secretRedacted: stored.redacted });
      } else {
        store = repo.delete(id);
      }
      store.then(
        () => send(body),
        () => send(body),
      );
      return res;
    };
    next();
  };
}
