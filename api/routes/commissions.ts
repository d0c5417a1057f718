import { z } from 'zod';
import { createCommission, getCommission, listCommissions, payCommission } from '../../domain/commissions';
import { defineListRoute, defineRoute } from '../http/route';
import { serializeCommission } from '../serializers/commission';
import { Commission, CommissionCreate, CommissionIdParams, CommissionListQuery } from '../../contracts/commission';

export function commissionRoutes() {
  const base = { tag: 'Commissions', auth: 'tenant', scope: 'commissions:write' } as const;
  return [
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/commissions',
      summary: 'Record a commission manually (status earned; emits commission.earned)',
      body: CommissionCreate,
      response: Commission,
      handler: async ({ body, ctx }) => ({
        data: serializeCommission(await createCommission(ctx, body)),
        message: 'Commission recorded',
      }),
    }),
    defineListRoute({
      ...base,
      method: 'get',
      path: '/v1/commissions',
      summary: 'List commissions, newest first',
      scope: 'commissions:read',
      query: CommissionListQuery,
      response: z.array(Commission),
      message: 'Commissions retrieved',
      serialize: serializeCommission,
      handler: ({ query, ctx }) => listCommissions(ctx, query),
    }),
    defineRoute({
      ...base,
      method: 'get',
      path: '/v1/commissions/:id',
      summary: 'Get a commission',
      scope: 'commissions:read',
      params: CommissionIdParams,
      response: Commission,
      handler: async ({ params, ctx }) => ({
        data: serializeCommission(await getCommission(ctx, params.id)),
        message: 'Commission retrieved',
      }),
    }),
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/commissions/:id/pay',
      summary: 'Mark a commission paid (emits commission.paid; 409 when already paid)',
      params: CommissionIdParams,
      response: Commission,
      status: 200,
      handler: async ({ params, ctx }) => ({
        data: serializeCommission(await payCommission(ctx, params.id)),
        message: 'Commission paid',
      }),
    }),
  ];
}
