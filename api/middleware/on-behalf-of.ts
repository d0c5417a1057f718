import type { RequestHandler } from 'express';
import type { DataSource } from 'typeorm';
import { User } from '../../db/entities';
import { AppError } from '../../lib/errors';
import { decodeId } from '../../lib/ids';
import { unscoped } from '../../db/unscoped';

const TARGET_USER_MESSAGE = 'Target user not found or not in the same tenant';

/**
 * X-On-Behalf-Of: the named user, active and in the key's tenant, becomes the actor.
 * The key owner stays in the audit log.
 */
export function onBehalfOf(db: DataSource): RequestHandler {
  const users = unscoped(db).repo(User);
  return async (req, _res, next) => {
    const header = req.get('x-on-behalf-of');
    if (header === undefined) return next();
    const auth = req.ctx.auth!;
    const userId = decodeId('user', header.trim());
    const user = userId ? await users.findOne({ where: { id: userId, tenantId: auth.tenantId } }) : null;
    if (!user || user.status !== 'active') return next(new AppError('forbidden', TARGET_USER_MESSAGE));
    auth.actorUserId = user.id;
    next();
  };
}
