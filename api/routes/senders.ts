import { z } from 'zod';
import { deleteDkimKey, getDkimKey, listDkimKeys, registerDkimKey } from '../../domain/communications/dkim-keys';
import { createSender, deleteSender, getSender, listSenders, updateSender } from '../../domain/communications/senders';
import { config } from '../../lib/config';
import { domainContext, type AppDeps } from '../http/domain-context';
import { paginate } from '../http/envelope';
import { defineRoute } from '../http/route';
import { PaginationQuery } from '../schemas/common';
import { DkimKeyCreate, DkimKeyIdParams, DkimKeyRecord, SenderCreate, SenderIdParams, SenderRecord, SenderUpdate } from '../schemas/sender';
import { serializeDkimKey, serializeSender } from '../serializers/sender';

const tag = 'Communications';
const senders = '/v1/communications/senders';
const dkimKeys = '/v1/communications/dkim-keys';

/**
 * Sender identities (from name, from address, reply-to) that campaign email nodes and one-off sends
 * pick by `senderId`, and the DKIM keys that sign mail from each sending domain.
 */
export function senderRoutes(deps: AppDeps) {
  const common = { tag, auth: 'tenant' as const };
  const read = { ...common, scope: 'communications:read' as const };
  const write = { ...common, scope: 'communications:write' as const };
  return [
    defineRoute({
      ...write,
      method: 'post',
      path: senders,
      summary: 'Create a sender identity (without one, email comes from EMAIL_FROM)',
      body: SenderCreate,
      response: SenderRecord,
      handler: async ({ body, auth }) => ({
        data: serializeSender(await createSender(domainContext(deps, auth), body)),
        message: 'Sender created',
      }),
    }),
    defineRoute({
      ...read,
      method: 'get',
      path: senders,
      summary: 'List sender identities',
      query: PaginationQuery,
      response: z.array(SenderRecord),
      list: true,
      handler: async ({ query, auth }) => {
        const { rows, total } = await listSenders(domainContext(deps, auth), query);
        return { data: rows.map(serializeSender), pagination: paginate(query.page, query.limit, total), message: 'Senders retrieved' };
      },
    }),
    defineRoute({
      ...read,
      method: 'get',
      path: `${senders}/:id`,
      summary: 'Get a sender identity',
      params: SenderIdParams,
      response: SenderRecord,
      handler: async ({ params, auth }) => ({
        data: serializeSender(await getSender(domainContext(deps, auth), params.id)),
        message: 'Sender retrieved',
      }),
    }),
    defineRoute({
      ...write,
      method: 'patch',
      path: `${senders}/:id`,
      summary: 'Update a sender identity',
      params: SenderIdParams,
      body: SenderUpdate,
      response: SenderRecord,
      handler: async ({ params, body, auth }) => ({
        data: serializeSender(await updateSender(domainContext(deps, auth), params.id, body)),
        message: 'Sender updated',
      }),
    }),
    defineRoute({
      ...write,
      method: 'delete',
      path: `${senders}/:id`,
      summary: 'Delete a sender identity (email still queued from it goes out from EMAIL_FROM)',
      params: SenderIdParams,
      response: SenderRecord,
      handler: async ({ params, auth }) => ({
        data: serializeSender(await deleteSender(domainContext(deps, auth), params.id)),
        message: 'Sender deleted',
      }),
    }),
    defineRoute({
      ...write,
      method: 'post',
      path: dkimKeys,
      summary:
        'Register the DKIM private key of a sending domain: mail from that domain is signed with it. The key is stored encrypted and never returned; the answer holds the DNS record to publish',
      body: DkimKeyCreate,
      response: DkimKeyRecord,
      handler: async ({ body, auth }) => ({
        data: serializeDkimKey(await registerDkimKey(domainContext(deps, auth), body, config.DKIM_KEY_SECRET)),
        message: 'DKIM key registered',
      }),
    }),
    defineRoute({
      ...read,
      method: 'get',
      path: dkimKeys,
      summary: 'List DKIM keys (public parts only)',
      query: PaginationQuery,
      response: z.array(DkimKeyRecord),
      list: true,
      handler: async ({ query, auth }) => {
        const { rows, total } = await listDkimKeys(domainContext(deps, auth), query);
        return { data: rows.map(serializeDkimKey), pagination: paginate(query.page, query.limit, total), message: 'DKIM keys retrieved' };
      },
    }),
    defineRoute({
      ...read,
      method: 'get',
      path: `${dkimKeys}/:id`,
      summary: 'Get a DKIM key (public part only)',
      params: DkimKeyIdParams,
      response: DkimKeyRecord,
      handler: async ({ params, auth }) => ({
        data: serializeDkimKey(await getDkimKey(domainContext(deps, auth), params.id)),
        message: 'DKIM key retrieved',
      }),
    }),
    defineRoute({
      ...write,
      method: 'delete',
      path: `${dkimKeys}/:id`,
      summary: 'Delete a DKIM key: mail from its domain goes out unsigned',
      params: DkimKeyIdParams,
      response: DkimKeyRecord,
      handler: async ({ params, auth }) => ({
        data: serializeDkimKey(await deleteDkimKey(domainContext(deps, auth), params.id)),
        message: 'DKIM key deleted',
      }),
    }),
  ];
}
