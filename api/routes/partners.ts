import { z } from 'zod';
import {
  PARTNER_ACTIONS,
  createPartner,
  createReferralCode,
  getPartner,
  listDownline,
  listPartners,
  listReferralCodes,
  transitionPartner,
  updatePartner,
  type PartnerAction,
} from '../../domain/partners';
import { domainContext, type AppDeps } from '../http/domain-context';
import { paginate } from '../http/envelope';
import { defineRoute } from '../http/route';
import { serializePartner, serializeReferralCode } from '../serializers/partner';
import {
  DownlinePartner,
  Partner,
  PartnerCreate,
  PartnerIdParams,
  PartnerListQuery,
  PartnerUpdate,
  ReferralCode,
} from '../schemas/partner';

const ACTION_SUMMARIES: Record<PartnerAction, string> = {
  approve: 'Approve a pending partner (emits partner.approved; issues a first referral code)',
  reject: 'Reject a pending partner',
  suspend: 'Suspend an approved partner (its referral codes stop working)',
  reactivate: 'Reactivate a suspended partner',
};

export function partnerRoutes(deps: AppDeps) {
  const base = { tag: 'Partners', auth: 'tenant', scope: 'partners:write' } as const;
  const read = { ...base, scope: 'partners:read' } as const;
  return [
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/partners',
      summary: 'Register a partner (status pending; emits partner.registered)',
      body: PartnerCreate,
      response: Partner,
      handler: async ({ body, auth }) => ({
        data: serializePartner(await createPartner(domainContext(deps, auth), body)),
        message: 'Partner registered',
      }),
    }),
    defineRoute({
      ...read,
      method: 'get',
      path: '/v1/partners',
      summary: 'List partners',
      query: PartnerListQuery,
      response: z.array(Partner),
      list: true,
      handler: async ({ query, auth }) => {
        const { rows, total } = await listPartners(domainContext(deps, auth), query);
        return { data: rows.map(serializePartner), pagination: paginate(query.page, query.limit, total), message: 'Partners retrieved' };
      },
    }),
    defineRoute({
      ...read,
      method: 'get',
      path: '/v1/partners/:id',
      summary: 'Get a partner',
      params: PartnerIdParams,
      response: Partner,
      handler: async ({ params, auth }) => ({
        data: serializePartner(await getPartner(domainContext(deps, auth), params.id)),
        message: 'Partner retrieved',
      }),
    }),
    defineRoute({
      ...base,
      method: 'patch',
      path: '/v1/partners/:id',
      summary: 'Update a partner (status moves through the action routes)',
      params: PartnerIdParams,
      body: PartnerUpdate,
      response: Partner,
      handler: async ({ params, body, auth }) => ({
        data: serializePartner(await updatePartner(domainContext(deps, auth), params.id, body)),
        message: 'Partner updated',
      }),
    }),
    ...(Object.keys(PARTNER_ACTIONS) as PartnerAction[]).map((action) =>
      defineRoute({
        ...base,
        method: 'post',
        path: `/v1/partners/:id/${action}`,
        summary: ACTION_SUMMARIES[action],
        params: PartnerIdParams,
        response: Partner,
        status: 200,
        handler: async ({ params, auth }) => ({
          data: serializePartner(await transitionPartner(domainContext(deps, auth), params.id, action)),
          message: `Partner ${PARTNER_ACTIONS[action].to}`,
        }),
      }),
    ),
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/partners/:id/referral-codes',
      summary: 'Issue another referral code to an approved partner (409 otherwise)',
      params: PartnerIdParams,
      response: ReferralCode,
      handler: async ({ params, auth }) => ({
        data: serializeReferralCode(await createReferralCode(domainContext(deps, auth), params.id)),
        message: 'Referral code created',
      }),
    }),
    defineRoute({
      ...read,
      method: 'get',
      path: '/v1/partners/:id/referral-codes',
      summary: "List a partner's referral codes",
      params: PartnerIdParams,
      response: z.array(ReferralCode),
      handler: async ({ params, auth }) => ({
        data: (await listReferralCodes(domainContext(deps, auth), params.id)).map(serializeReferralCode),
        message: 'Referral codes retrieved',
      }),
    }),
    defineRoute({
      ...read,
      method: 'get',
      path: '/v1/partners/:id/downline',
      summary: 'Every partner below this one in the referral tree, with depth (1 = referred directly)',
      params: PartnerIdParams,
      response: z.array(DownlinePartner),
      handler: async ({ params, auth }) => ({
        data: (await listDownline(domainContext(deps, auth), params.id)).map(({ partner, depth }) => ({
          ...serializePartner(partner),
          depth,
        })),
        message: 'Downline retrieved',
      }),
    }),
  ];
}
