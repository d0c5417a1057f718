import { generateKeyPairSync } from 'node:crypto';
import type request from 'supertest';
import type { z } from 'zod';
import type { AnyRoute } from '../../api/http/route';
import { landingPageTemplate } from '../../domain/ai/templates/landing-page';
import { sequenceTemplate } from '../../domain/ai/templates/sequence';
import type { IdType } from '../../lib/ids';
import { validLead } from './stack';

type Headers = Record<string, string>;

/** The seeded file's contents: as a CSV, one column and no rows. */
export const FILE_FIXTURE_CONTENT = 'fixture';

/**
 * tenantWide: shared by both environments, so created with the live key whatever key seeds the rest
 * (users can only be created with a live key); global: a catalog record every tenant sees (addons).
 */
export type IdFixture = { create: (headers: Headers) => Promise<string>; tenantWide?: boolean; global?: boolean };

/**
 * How to create one record of every ID type a route takes in its path, through the public API
 * with the given key. Tests that walk every route (tenant isolation, the OpenAPI fuzzer) seed
 * from here; a new resource needs a fixture here.
 */
export function idFixtures(http: () => request.Agent): Partial<Record<IdType, IdFixture>> {
  let partners = 0;
  const post = async (path: string, headers: Headers, body: object) => {
    const res = await http().post(path).set(headers).send(body);
    if (res.status !== 201) throw new Error(`fixture ${path} failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data.id as string;
  };
  const fixtures: Partial<Record<IdType, IdFixture>> = {
    lead: { create: (h) => post('/v1/leads', h, validLead()) },
    apiKey: { create: (h) => post('/v1/api-keys', h, { name: 'fixture' }) },
    user: {
      tenantWide: true,
      create: (h) =>
        post('/v1/users', h, { email: `fixture-${Math.random()}@example.com`, password: 'long enough', firstName: 'I', lastName: 'S' }),
    },
    team: { tenantWide: true, create: (h) => post('/v1/teams', h, { name: 'Fixture' }) },
    form: {
      create: (h) =>
        post('/v1/forms', h, {
          name: 'Fixture',
          fields: [{ name: 'email', label: 'Email', type: 'email', required: true, mapsTo: 'email' }],
        }),
    },
    opportunity: { create: (h) => post('/v1/opportunities', h, { name: 'Fixture deal', value: 1 }) },
    // An opportunity stage: opportunities name it as their stageId, and every flag applies to it.
    status: {
      create: (h) =>
        post('/v1/config/statuses', h, {
          entityType: 'opportunity',
          code: `fixture_${Math.random().toString(36).slice(2, 10)}`,
          name: 'Fixture stage',
        }),
    },
    workflow: { create: (h) => post('/v1/workflows', h, sequenceTemplate({ prompt: 'fixture welcome series' })) },
    landingPage: { create: (h) => post('/v1/landing-pages', h, landingPageTemplate({ prompt: `fixture page ${Math.random()}` })) },
    task: { create: (h) => post('/v1/tasks', h, { title: 'Fixture' }) },
    // One partner per address: each fixture partner gets its own.
    partner: { create: (h) => post('/v1/partners', h, { email: `fixture-${++partners}@example.com`, firstName: 'I', lastName: 'S' }) },
    file: {
      create: async (h) => {
        const res = await http().post('/v1/files/upload').set(h).attach('file', Buffer.from(FILE_FIXTURE_CONTENT), 'fixture.txt');
        if (res.status !== 201) throw new Error(`fixture upload failed: ${res.status}`);
        return res.body.data.id as string;
      },
    },
    course: { create: (h) => post('/v1/training/courses', h, { title: 'Fixture' }) },
    agentExecution: {
      create: (h) => post('/v1/agents/executions', h, { agent: 'caller', outcome: 'success', requiresApproval: true }),
    },
    // The owner installs a catalog addon; the others' calls must not reach that installation.
    addon: {
      global: true,
      create: async (h) => {
        const catalog = await http().get('/v1/addons/catalog').set(h);
        return post(`/v1/addons/${catalog.body.data[0].id}/install`, h, {});
      },
    },
    commission: {
      // Only an approved partner earns commissions.
      create: async (h) => {
        const partnerId = await fixtures.partner!.create(h);
        const approved = await http().post(`/v1/partners/${partnerId}/approve`).set(h);
        if (approved.status !== 200) throw new Error(`fixture partner approval failed: ${approved.status}`);
        return post('/v1/commissions', h, { partnerId, amount: 10, currency: 'USD' });
      },
    },
    webhook: { create: (h) => post('/v1/integrations/webhooks', h, { url: 'http://127.0.0.1:9/hook', events: ['*'] }) },
    emailTemplate: {
      create: (h) => post('/v1/communications/templates', h, { name: 'Fixture', subject: 'Hi', body: 'Hello {{firstName}}' }),
    },
    message: {
      create: async (h) => {
        const res = await http()
          .post('/v1/communications/send/email')
          .set(h)
          .send({ to: 'fixture@example.com', subject: 'Hi', body: 'Hello' });
        if (res.status !== 200) throw new Error(`fixture send/email failed: ${res.status} ${JSON.stringify(res.body)}`);
        return res.body.data.id as string;
      },
    },
    // A bounce reported for a lead's address puts that address on the suppression list.
    suppression: {
      create: async (h) => {
        const email = `fixture-${Math.random().toString(36).slice(2)}@example.com`;
        await post('/v1/leads', h, validLead({ email }));
        await post('/v1/communications/inbound/bounce', h, { email });
        const list = await http().get('/v1/suppressions').query({ email }).set(h);
        if (list.status !== 200 || !list.body.data[0]) throw new Error(`fixture suppression failed: ${JSON.stringify(list.body)}`);
        return list.body.data[0].id as string;
      },
    },
    sender: {
      create: (h) => post('/v1/communications/senders', h, { fromName: 'Fixture', fromAddress: 'fixture@example.com', replyTo: null }),
    },
    dkimKey: {
      create: (h) =>
        post('/v1/communications/dkim-keys', h, {
          domain: `fixture-${Math.random().toString(36).slice(2)}.example.com`,
          selector: 's1',
          privateKey: generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
        }),
    },
    campaign: {
      create: async (h) => {
        const workflowId = await post('/v1/workflows', h, sequenceTemplate({ prompt: 'fixture campaign' }));
        return post('/v1/campaigns', h, { name: 'Fixture', workflowId, status: 'active' });
      },
    },
    // Pausing a campaign answers 202 with the operation that tells its enrollments.
    operation: {
      create: async (h) => {
        const campaign = await fixtures.campaign!.create(h);
        const res = await http().post(`/v1/campaigns/${campaign}/pause`).set(h);
        if (res.status !== 202) throw new Error(`fixture pause failed: ${res.status} ${JSON.stringify(res.body)}`);
        return res.body.data.operation.id as string;
      },
    },
    // An import of a one-row CSV answers 202 with the import its workflow then runs.
    leadImport: {
      create: async (h) => {
        const file = await http()
          .post('/v1/files/upload')
          .set(h)
          .attach('file', Buffer.from('email,first,last\nfixture@example.com,I,S\n'), { filename: 'leads.csv', contentType: 'text/csv' });
        if (file.status !== 201) throw new Error(`fixture import upload failed: ${file.status}`);
        const mapping = { email: 'email', firstName: 'first', lastName: 'last' };
        const res = await http()
          .post('/v1/leads/imports')
          .set(h)
          .send({ fileId: file.body.data.id, format: 'csv', mapping, onExisting: 'skip' });
        if (res.status !== 202) throw new Error(`fixture import failed: ${res.status} ${JSON.stringify(res.body)}`);
        return res.body.data.id as string;
      },
    },
    delivery: {
      create: async (h) => {
        const endpoint = await post('/v1/integrations/webhooks', h, { url: 'http://127.0.0.1:9/hook', events: ['*'] });
        await http().post(`/v1/integrations/webhooks/${endpoint}/test`).set(h);
        for (let i = 0; i < 100; i++) {
          const list = await http().get(`/v1/integrations/webhooks/${endpoint}/deliveries`).set(h);
          if (list.body.data?.length) return list.body.data[0].id as string;
          await new Promise((r) => setTimeout(r, 100));
        }
        throw new Error('no delivery appeared for the test event');
      },
    },
  };
  return fixtures;
}

/** The ID type of each path parameter of a route (from the params schema's `x-id-type`). */
export function paramTypes(route: AnyRoute): Record<string, IdType> {
  const shape = (route.params as z.ZodObject | undefined)?.shape ?? {};
  return Object.fromEntries(Object.entries(shape).map(([name, schema]) => [name, (schema as z.ZodType).meta()?.['x-id-type'] as IdType]));
}

/** One record of every fixture type, created with the tenant's `environment` key (tenant-wide ones with its live key). */
export async function seedEveryIdType(
  fixtures: Partial<Record<IdType, IdFixture>>,
  tenant: { live: Headers; sandbox: Headers },
  environment: 'live' | 'sandbox',
): Promise<Map<IdType, string>> {
  const owned = new Map<IdType, string>();
  for (const [type, fixture] of Object.entries(fixtures) as [IdType, IdFixture][]) {
    owned.set(type, await fixture.create(fixture.tenantWide ? tenant.live : tenant[environment]));
  }
  return owned;
}

/**
 * A value of every `x-references` kind for the seeded tenant: its default lead status, the referral
 * code of an approved partner of its own (not the seeded one, which a fuzzer may suspend), and the
 * address the seeded message went to; a cursor of the leads' change feed.
 */
export async function seedReferences(
  http: () => request.Agent,
  headers: Headers,
  owned: Map<IdType, string>,
): Promise<Map<string, string>> {
  const ok = (res: request.Response) => {
    if (res.status >= 300) throw new Error(`reference fixture failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  };
  const partner = ok(await http().post('/v1/partners').set(headers).send({ email: 'upline@example.com', firstName: 'U', lastName: 'P' }));
  ok(await http().post(`/v1/partners/${partner.id}/approve`).set(headers));
  const [code] = ok(await http().get(`/v1/partners/${partner.id}/referral-codes`).set(headers));
  const message = ok(
    await http()
      .get(`/v1/communications/messages/${owned.get('message')}`)
      .set(headers),
  );
  const changes = ok(await http().get('/v1/leads/changes?limit=1').set(headers));
  return new Map([
    ['leadStatus', 'new'],
    ['changeCursor', changes.nextCursor as string],
    ['referralCode', code.code as string],
    ['approvedPartner', partner.id as string],
    ['contactEmail', message.to as string],
  ]);
}
