import { getOperation } from '../../domain/operations';
import { defineRoute } from '../http/route';
import { Operation, OperationIdParams } from '../../contracts/operation';
import { serializeOperation } from '../serializers/operation';

/** Work that continues after a 202 (a campaign's pause, resume or completion): poll until it is done. */
export function operationRoutes() {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/operations/:id',
      summary: 'Get an operation started by a 202 answer (status running, then succeeded or failed)',
      tag: 'Operations',
      auth: 'tenant',
      scope: 'campaigns:read',
      params: OperationIdParams,
      response: Operation,
      handler: async ({ params, ctx }) => ({
        data: serializeOperation(await getOperation(ctx, params.id)),
        message: 'Operation retrieved',
      }),
    }),
  ];
}
