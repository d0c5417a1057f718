import { z } from 'zod';
import { createCommission, getCommission, listCommissions, payCommission } from '../../domain/commissions';
import { domainContext, type AppDeps } from '../http/domain-context';
import { paginate } from '../http/envelope';
import { defineRoute } from '../http/route';
import { serializeCommission } from '../serializers/commission';
import { Commission, CommissionCreate, CommissionIdParams, CommissionListQuery } from '../schemas/commission';

export function commissionRoutes(deps: AppDeps) {
  const base = { tag: 'Commissions', auth: 'tenant', scope: 'commissions:write' } as const;
  return [
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/commissions',
      summary: 'Record a commission manually (status earned; emits commission.earned)',
      body: CommissionCreate,
      response: Commission,
      handler: async ({ body, auth }) => ({
        data: serializeCommission(await createCommission(domainContext(deps, auth), body)),
        message: 'Commission recorded',
      }),
    }),
    defineRoute({
      ...base,
      method: 'get',
      path: '/v1/commissions',
      summary: 'List commissions, newest first',
      scope: 'commissions:read',
      query: CommissionListQuery,
      response: z.array(Commission),
      list: true,
      handler: async ({ query, auth }) => {
        const { rows, total } = await listCommissions(domainContext(deps, auth), query);
        return {
          data: rows.map(serializeCommission),
          pagination: paginate(query.page, query.limit, total),
          message: 'Commissions retrieved',
        };
      },
    }),
    defineRoute({
      ...base,
      method: 'get',
      path: '/v1/commissions/:id',
      summary: 'Get a commission',
      scope: 'commissions:read',
      params: CommissionIdParams,
      response: Commission,
      handler: async ({ params, auth }) => ({
        data: serializeCommission(await getCommission(domainContext(deps, auth), params.id)),
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
      handler: async ({ params, auth }) => ({
        data: serializeCommission(await payCommission(domainContext(deps, auth), params.id)),
        message: 'Commission paid',
      }),
    }),
  ];
}
