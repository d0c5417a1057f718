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
import { defineListRoute, defineRoute, pageOfList } from '../http/route';
import { serializePartner, serializeReferralCode } from '../serializers/partner';
import {
  DownlinePartner,
  Partner,
  PartnerCreate,
  PartnerIdParams,
  PartnerListQuery,
  PartnerUpdate,
  ReferralCode,
} from '../../contracts/partner';
import { PaginationQuery } from '../../contracts/common';

type Downline = Awaited<ReturnType<typeof listDownline>>[number];

const ACTION_SUMMARIES: Record<PartnerAction, string> = {
  approve: 'Approve a pending partner (emits partner.approved; issues a first referral code)',
  reject: 'Reject a pending partner',
  suspend: 'Suspend an approved partner (its referral codes stop working)',
  reactivate: 'Reactivate a suspended partner',
};

export function partnerRoutes() {
  const base = { tag: 'Partners', auth: 'tenant', scope: 'partners:write' } as const;
  const read = { ...base, scope: 'partners:read' } as const;
  return [
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/partners',
      summary: 'Register a partner (status pending; emits partner.registered); 409 when a partner has the email',
      body: PartnerCreate,
      errors: [409],
      response: Partner,
      handler: async ({ body, ctx }) => ({
        data: serializePartner(await createPartner(ctx, body)),
        message: 'Partner registered',
      }),
    }),
    defineListRoute({
      ...read,
      method: 'get',
      path: '/v1/partners',
      summary: 'List partners',
      query: PartnerListQuery,
      response: z.array(Partner),
      message: 'Partners retrieved',
      serialize: serializePartner,
      handler: ({ query, ctx }) => listPartners(ctx, query),
    }),
    defineRoute({
      ...read,
      method: 'get',
      path: '/v1/partners/:id',
      summary: 'Get a partner',
      params: PartnerIdParams,
      response: Partner,
      handler: async ({ params, ctx }) => ({
        data: serializePartner(await getPartner(ctx, params.id)),
        message: 'Partner retrieved',
      }),
    }),
    defineRoute({
      ...base,
      method: 'patch',
      path: '/v1/partners/:id',
      summary: 'Update a partner (status moves through the action routes); 409 when another partner has the email',
      params: PartnerIdParams,
      body: PartnerUpdate,
      errors: [409],
      response: Partner,
      handler: async ({ params, body, ctx }) => ({
        data: serializePartner(await updatePartner(ctx, params.id, body)),
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
        handler: async ({ params, ctx }) => ({
          data: serializePartner(await transitionPartner(ctx, params.id, action)),
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
      handler: async ({ params, ctx }) => ({
        data: serializeReferralCode(await createReferralCode(ctx, params.id)),
        message: 'Referral code created',
      }),
    }),
    defineListRoute({
      ...read,
      method: 'get',
      path: '/v1/partners/:id/referral-codes',
      summary: "List a partner's referral codes",
      params: PartnerIdParams,
      query: PaginationQuery,
      response: z.array(ReferralCode),
      message: 'Referral codes retrieved',
      serialize: serializeReferralCode,
      handler: async ({ params, query, ctx }) => pageOfList(await listReferralCodes(ctx, params.id), query),
    }),
    defineListRoute({
      ...read,
      method: 'get',
      path: '/v1/partners/:id/downline',
      summary: 'Every partner below this one in the referral tree, with depth (1 = referred directly)',
      params: PartnerIdParams,
      query: PaginationQuery,
      response: z.array(DownlinePartner),
      message: 'Downline retrieved',
      serialize: ({ partner, depth }: Downline) => ({ ...serializePartner(partner), depth }),
      handler: async ({ params, query, ctx }) => pageOfList(await listDownline(ctx, params.id), query),
    }),
  ];
}
