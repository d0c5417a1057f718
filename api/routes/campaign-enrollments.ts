import { z } from 'zod';
import { enrollLeads, unenrollLead } from '../../domain/campaigns/enroll';
import { listEnrollments } from '../../domain/campaigns/enrollments';
import { defineListRoute, defineRoute } from '../http/route';
import { serializeEnrollment } from '../serializers/campaign';
import {
  CampaignIdParams,
  CampaignLeadParams,
  EnrollRequest,
  EnrollResult,
  Enrollment,
  EnrollmentListQuery,
} from '../../contracts/campaign';

const tag = 'Campaigns';

/** One workflow per campaign and lead (`campaign/<campaignId>/lead/<leadId>`). */
export function campaignEnrollmentRoutes() {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/campaigns/:id/enrollments',
      summary: 'Enroll up to 500 leads (per-lead result: enrolled, already_enrolled, not_found, unsubscribed)',
      tag,
      auth: 'tenant',
      scope: 'campaigns:write',
      params: CampaignIdParams,
      body: EnrollRequest,
      response: z.array(EnrollResult),
      status: 200,
      handler: async ({ params, body, ctx }) => {
        const results = await enrollLeads(ctx, params.id, body.leadIds);
        const enrolled = results.filter((r) => r.status === 'enrolled').length;
        return { data: results, message: `${enrolled} of ${results.length} lead(s) enrolled` };
      },
    }),
    defineListRoute({
      method: 'get',
      path: '/v1/campaigns/:id/enrollments',
      summary: "List enrollments with each lead's progress (current node, path taken, next wake-up)",
      tag,
      auth: 'tenant',
      scope: 'campaigns:read',
      params: CampaignIdParams,
      query: EnrollmentListQuery,
      response: z.array(Enrollment),
      message: 'Enrollments retrieved',
      serialize: serializeEnrollment,
      handler: ({ params, query, ctx }) => listEnrollments(ctx, params.id, query),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/campaigns/:id/enrollments/:leadId',
      summary: 'Unenroll a lead (its workflow stops)',
      tag,
      auth: 'tenant',
      scope: 'campaigns:write',
      params: CampaignLeadParams,
      response: Enrollment,
      handler: async ({ params, ctx }) => ({
        data: serializeEnrollment({ enrollment: await unenrollLead(ctx, params.id, params.leadId), progress: null }),
        message: 'Lead unenrolled',
      }),
    }),
  ];
}
