import { z } from 'zod';
import { enrollLeads, unenrollLead } from '../../domain/campaigns/enroll';
import { listEnrollments } from '../../domain/campaigns/enrollments';
import { domainContext, type AppDeps } from '../http/domain-context';
import { paginate } from '../http/envelope';
import { defineRoute } from '../http/route';
import { serializeEnrollment } from '../serializers/campaign';
import { CampaignIdParams, CampaignLeadParams, EnrollRequest, EnrollResult, Enrollment, EnrollmentListQuery } from '../schemas/campaign';

const tag = 'Campaigns';

/** One workflow per campaign and lead (`campaign/<campaignId>/lead/<leadId>`). */
export function campaignEnrollmentRoutes(deps: AppDeps) {
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
      handler: async ({ params, body, auth }) => {
        const results = await enrollLeads(domainContext(deps, auth), params.id, body.leadIds);
        const enrolled = results.filter((r) => r.status === 'enrolled').length;
        return { data: results, message: `${enrolled} of ${results.length} lead(s) enrolled` };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/campaigns/:id/enrollments',
      summary: "List enrollments with each lead's progress (current node, path taken, next wake-up)",
      tag,
      auth: 'tenant',
      scope: 'campaigns:read',
      params: CampaignIdParams,
      query: EnrollmentListQuery,
      response: z.array(Enrollment),
      list: true,
      handler: async ({ params, query, auth }) => {
        const { rows, total } = await listEnrollments(domainContext(deps, auth), params.id, query);
        return {
          data: rows.map(serializeEnrollment),
          pagination: paginate(query.page, query.limit, total),
          message: 'Enrollments retrieved',
        };
      },
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
      handler: async ({ params, auth }) => ({
        data: serializeEnrollment({ enrollment: await unenrollLead(domainContext(deps, auth), params.id, params.leadId), progress: null }),
        message: 'Lead unenrolled',
      }),
    }),
  ];
}
