import { z } from 'zod';
import { createCampaign, deleteCampaign, getCampaign, listCampaigns, updateCampaign } from '../../domain/campaigns/campaigns';
import { campaignStats } from '../../domain/campaigns/stats';
import {
  activateCampaign,
  completeCampaign,
  pauseCampaign,
  resumeCampaign,
  type CampaignTransition,
} from '../../domain/campaigns/transitions';
import type { DomainContext } from '../../domain/context';
import { defineListRoute, defineRoute } from '../http/route';
import { serializeCampaign } from '../serializers/campaign';
import { serializeOperation } from '../serializers/operation';
import { CampaignTransitionResult } from '../../contracts/operation';
import { Campaign, CampaignCreate, CampaignIdParams, CampaignListQuery, CampaignStats, CampaignUpdate } from '../../contracts/campaign';

const tag = 'Campaigns';

const TRANSITIONS = {
  activate: {
    run: async (ctx: DomainContext, id: string): Promise<CampaignTransition> => ({ campaign: await activateCampaign(ctx, id) }),
    summary: 'Activate a draft campaign (pins its workflow version)',
    message: 'Campaign activated',
  },
  pause: {
    run: pauseCampaign,
    summary: 'Pause an active campaign: 202 with the operation that signals every enrollment (poll GET /v1/operations/{id})',
    message: 'Campaign paused; its enrollments are being told',
  },
  resume: {
    run: resumeCampaign,
    summary: 'Resume a paused campaign: 202 with the operation that signals every enrollment (poll GET /v1/operations/{id})',
    message: 'Campaign resumed; its enrollments are being told',
  },
  complete: {
    run: completeCampaign,
    summary: 'Complete a campaign, ending every enrollment: 202 with the operation that stops their workflows',
    message: 'Campaign completed; its enrollments are being stopped',
  },
} satisfies Record<string, { run: (ctx: DomainContext, id: string) => Promise<CampaignTransition>; summary: string; message: string }>;

/** Campaigns (docs/decisions.md, "Campaigns"): CRUD, status transitions and stats. Enrollments are in campaign-enrollments.ts. */
export function campaignRoutes() {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/campaigns',
      summary: 'Create a campaign',
      tag,
      auth: 'tenant',
      scope: 'campaigns:write',
      body: CampaignCreate,
      response: Campaign,
      handler: async ({ body, ctx }) => ({
        data: serializeCampaign(await createCampaign(ctx, body)),
        message: 'Campaign created',
      }),
    }),
    defineListRoute({
      method: 'get',
      path: '/v1/campaigns',
      summary: 'List campaigns',
      tag,
      auth: 'tenant',
      scope: 'campaigns:read',
      query: CampaignListQuery,
      response: z.array(Campaign),
      message: 'Campaigns retrieved',
      serialize: serializeCampaign,
      handler: ({ query, ctx }) => listCampaigns(ctx, query),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/campaigns/:id',
      summary: 'Get a campaign',
      tag,
      auth: 'tenant',
      scope: 'campaigns:read',
      params: CampaignIdParams,
      response: Campaign,
      handler: async ({ params, ctx }) => ({
        data: serializeCampaign(await getCampaign(ctx, params.id)),
        message: 'Campaign retrieved',
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/campaigns/:id',
      summary: 'Update a campaign (a status change follows the same transitions as the action endpoints)',
      tag,
      auth: 'tenant',
      scope: 'campaigns:write',
      params: CampaignIdParams,
      body: CampaignUpdate,
      response: Campaign,
      handler: async ({ params, body, ctx }) => ({
        data: serializeCampaign(await updateCampaign(ctx, params.id, body)),
        message: 'Campaign updated',
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/campaigns/:id',
      summary: 'Delete a draft or completed campaign',
      tag,
      auth: 'tenant',
      scope: 'campaigns:write',
      params: CampaignIdParams,
      response: Campaign,
      handler: async ({ params, ctx }) => ({
        data: serializeCampaign(await deleteCampaign(ctx, params.id)),
        message: 'Campaign deleted',
      }),
    }),
    ...Object.entries(TRANSITIONS).map(([action, t]) =>
      defineRoute({
        method: 'post',
        path: `/v1/campaigns/:id/${action}`,
        summary: t.summary,
        tag,
        auth: 'tenant',
        scope: 'campaigns:write',
        params: CampaignIdParams,
        response: CampaignTransitionResult,
        // Activation starts no fan-out (a draft has no enrollments); the others answer before it is done.
        status: action === 'activate' ? 200 : 202,
        handler: async ({ params, ctx }) => {
          const { campaign, operation } = await t.run(ctx, params.id);
          return {
            data: { ...serializeCampaign(campaign), operation: operation ? serializeOperation(operation) : null },
            message: t.message,
          };
        },
      }),
    ),
    defineRoute({
      method: 'get',
      path: '/v1/campaigns/:id/stats',
      summary: 'Campaign statistics (counts and rates as fractions)',
      tag,
      auth: 'tenant',
      scope: 'campaigns:read',
      params: CampaignIdParams,
      response: CampaignStats,
      handler: async ({ params, ctx }) => ({
        data: await campaignStats(ctx, params.id),
        message: 'Campaign statistics retrieved',
      }),
    }),
  ];
}
