import { z } from 'zod';
import {
  createLandingPage,
  deleteLandingPage,
  getLandingPage,
  listLandingPages,
  updateLandingPage,
} from '../../domain/landing-pages/store';
import { defineListRoute, defineRoute } from '../http/route';
import { serializeLandingPage as serialize } from '../serializers/landing-page';
import {
  LandingPageDefinition,
  LandingPageIdParams,
  LandingPageListQuery,
  LandingPageRecord,
  LandingPageUpdate,
} from '../../contracts/landing-page';

const tag = 'Landing pages';

/** Stored landing pages; each is served publicly at its `publicPath` (api/routes/public-pages.ts). */
export function landingPageRoutes() {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/landing-pages',
      summary: 'Store a landing page (e.g. the output of generate-landing-page)',
      tag,
      auth: 'tenant',
      scope: 'landing-pages:write',
      body: LandingPageDefinition,
      response: LandingPageRecord,
      handler: async ({ body, ctx }) => ({
        data: serialize(await createLandingPage(ctx, body)),
        message: 'Landing page created',
      }),
    }),
    defineListRoute({
      method: 'get',
      path: '/v1/landing-pages',
      summary: 'List landing pages',
      tag,
      auth: 'tenant',
      scope: 'landing-pages:read',
      query: LandingPageListQuery,
      response: z.array(LandingPageRecord),
      message: 'Landing pages retrieved',
      serialize: serialize,
      handler: ({ query, ctx }) => listLandingPages(ctx, query),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/landing-pages/:id',
      summary: 'Get a landing page',
      tag,
      auth: 'tenant',
      scope: 'landing-pages:read',
      params: LandingPageIdParams,
      response: LandingPageRecord,
      handler: async ({ params, ctx }) => ({
        data: serialize(await getLandingPage(ctx, params.id)),
        message: 'Landing page retrieved',
      }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/landing-pages/:id',
      summary: 'Edit a landing page (its public URL serves the edit at once; a new slug moves it)',
      tag,
      auth: 'tenant',
      scope: 'landing-pages:write',
      params: LandingPageIdParams,
      body: LandingPageUpdate,
      response: LandingPageRecord,
      handler: async ({ params, body, ctx }) => ({
        data: serialize(await updateLandingPage(ctx, params.id, body)),
        message: 'Landing page updated',
      }),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/landing-pages/:id',
      summary: 'Delete a landing page (its public URL and form then answer 404)',
      tag,
      auth: 'tenant',
      scope: 'landing-pages:write',
      params: LandingPageIdParams,
      response: LandingPageRecord,
      handler: async ({ params, ctx }) => ({
        data: serialize(await deleteLandingPage(ctx, params.id)),
        message: 'Landing page deleted',
      }),
    }),
  ];
}
