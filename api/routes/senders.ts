import { z } from 'zod';
import { deleteDkimKey, getDkimKey, listDkimKeys, registerDkimKey, verifyDkimKey } from '../../domain/communications/dkim-keys';
import { createSender, deleteSender, getSender, listSenders, updateSender } from '../../domain/communications/senders';
import { config } from '../../lib/config';
import type { AppDeps } from '../http/domain-context';
import { defineListRoute, defineRoute } from '../http/route';
import { PaginationQuery } from '../../contracts/common';
import {
  DkimKeyCreate,
  DkimKeyIdParams,
  DkimKeyRecord,
  SenderCreate,
  SenderIdParams,
  SenderRecord,
  SenderUpdate,
} from '../../contracts/sender';
import { serializeDkimKey, serializeSender } from '../serializers/sender';

const tag = 'Communications';
const senders = '/v1/communications/senders';
const dkimKeys = '/v1/communications/dkim-keys';

/**
 * Sender identities (from name, from address, reply-to) that campaign email nodes and one-off sends
 * pick by `senderId`, and the DKIM keys that verify each sending domain and sign mail from it.
 */
export function senderRoutes(deps: Pick<AppDeps, 'dkimDns'>) {
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
      handler: async ({ body, ctx }) => ({
        data: serializeSender(await createSender(ctx, body)),
        message: 'Sender created',
      }),
    }),
    defineListRoute({
      ...read,
      method: 'get',
      path: senders,
      summary: 'List sender identities',
      query: PaginationQuery,
      response: z.array(SenderRecord),
      message: 'Senders retrieved',
      serialize: serializeSender,
      handler: ({ query, ctx }) => listSenders(ctx, query),
    }),
    defineRoute({
      ...read,
      method: 'get',
      path: `${senders}/:id`,
      summary: 'Get a sender identity',
      params: SenderIdParams,
      response: SenderRecord,
      handler: async ({ params, ctx }) => ({
        data: serializeSender(await getSender(ctx, params.id)),
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
      handler: async ({ params, body, ctx }) => ({
        data: serializeSender(await updateSender(ctx, params.id, body)),
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
      handler: async ({ params, ctx }) => ({
        data: serializeSender(await deleteSender(ctx, params.id)),
        message: 'Sender deleted',
      }),
    }),
    defineRoute({
      ...write,
      method: 'post',
      path: dkimKeys,
      summary:
        'Register the DKIM private key of a sending domain at a selector. The key is stored encrypted and never returned; the answer holds the DNS record to publish, then verify it (POST .../verify): only then is mail signed with it and live mail from senders at the domain sent. To rotate a key, register the new one at another selector: the key verified last signs (409 for a selector the domain has already)',
      body: DkimKeyCreate,
      response: DkimKeyRecord,
      handler: async ({ body, ctx }) => ({
        data: serializeDkimKey(await registerDkimKey(ctx, body, config.DKIM_KEY_SECRET)),
        message: 'DKIM key registered',
      }),
    }),
    defineListRoute({
      ...read,
      method: 'get',
      path: dkimKeys,
      summary: 'List DKIM keys (public parts only)',
      query: PaginationQuery,
      response: z.array(DkimKeyRecord),
      message: 'DKIM keys retrieved',
      serialize: serializeDkimKey,
      handler: ({ query, ctx }) => listDkimKeys(ctx, query),
    }),
    defineRoute({
      ...read,
      method: 'get',
      path: `${dkimKeys}/:id`,
      summary: 'Get a DKIM key (public part only)',
      params: DkimKeyIdParams,
      response: DkimKeyRecord,
      handler: async ({ params, ctx }) => ({
        data: serializeDkimKey(await getDkimKey(ctx, params.id)),
        message: 'DKIM key retrieved',
      }),
    }),
    defineRoute({
      ...write,
      method: 'post',
      path: `${dkimKeys}/:id/verify`,
      summary:
        'Look the key up in DNS at its selector: found published, the domain is verified (verifiedAt). 422 naming the record to publish when it is missing or holds another key; 503 when DNS does not answer',
      params: DkimKeyIdParams,
      response: DkimKeyRecord,
      status: 200,
      errors: [503],
      handler: async ({ params, ctx }) => ({
        data: serializeDkimKey(await verifyDkimKey(ctx, params.id, deps.dkimDns)),
        message: 'DKIM key verified',
      }),
    }),
    defineRoute({
      ...write,
      method: 'delete',
      path: `${dkimKeys}/:id`,
      summary: 'Delete a DKIM key: mail from its domain goes out unsigned',
      params: DkimKeyIdParams,
      response: DkimKeyRecord,
      handler: async ({ params, ctx }) => ({
        data: serializeDkimKey(await deleteDkimKey(ctx, params.id)),
        message: 'DKIM key deleted',
      }),
    }),
  ];
}
