import { z } from 'zod';
import { getMessage, listMessages, sendEmail, sendSms } from '../../domain/communications/send-message';
import { recordInbound } from '../../domain/engagement/inbound';
import { domainContext, type AppDeps } from '../http/domain-context';
import { paginate } from '../http/envelope';
import { defineRoute } from '../http/route';
import { InboundEvent, MessageIdParams, MessageListQuery, MessageRecord, SendEmail, SendSms, SentMessage } from '../schemas/communication';
import { EngagementEventRecord } from '../schemas/engagement-event';
import { serializeEngagementEvent } from '../serializers/engagement-event';
import { serializeMessage, serializeSentMessage } from '../serializers/message';

const tag = 'Communications';

/** The mail provider's notifications, each recorded as an engagement event (and sent as its webhook). */
const INBOUND = {
  reply: { type: 'email_reply', summary: 'Record an inbound reply (email_reply)' },
  bounce: { type: 'email_bounce', summary: 'Record a bounce (email_bounce); the lead is marked bounced; fires email.bounced' },
  delivered: {
    type: 'email_delivered',
    summary: "Record that the recipient's mail server accepted an email (email_delivered); fires email.delivered",
  },
} as const;

/** Email and SMS (spec 4.9): sends run as workflows; inbound reply/bounce/delivery notifications become engagement events. */
export function communicationRoutes(deps: AppDeps) {
  const inbound = (kind: keyof typeof INBOUND) =>
    defineRoute({
      method: 'post',
      path: `/v1/communications/inbound/${kind}`,
      summary: INBOUND[kind].summary,
      tag,
      auth: 'tenant',
      scope: 'communications:write',
      body: InboundEvent,
      response: EngagementEventRecord,
      handler: async ({ body, auth }) => ({
        data: serializeEngagementEvent(await recordInbound(domainContext(deps, auth), INBOUND[kind].type, body)),
        message: 'Event recorded',
      }),
    });
  return [
    defineRoute({
      method: 'post',
      path: '/v1/communications/send/email',
      summary: 'Send an email (body, or templateId with templateData); with leadId, opens and clicks are tracked',
      tag,
      auth: 'tenant',
      scope: 'communications:write',
      body: SendEmail,
      response: SentMessage,
      status: 200,
      handler: async ({ body, auth }) => ({
        data: serializeSentMessage(await sendEmail(domainContext(deps, auth), body)),
        message: 'Email accepted',
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/communications/send/sms',
      summary: 'Send an SMS',
      tag,
      auth: 'tenant',
      scope: 'communications:write',
      body: SendSms,
      response: SentMessage,
      status: 200,
      handler: async ({ body, auth }) => ({
        data: serializeSentMessage(await sendSms(domainContext(deps, auth), body)),
        message: 'SMS accepted',
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/communications/messages',
      summary: 'List sent and queued messages',
      tag,
      auth: 'tenant',
      scope: 'communications:read',
      query: MessageListQuery,
      response: z.array(MessageRecord),
      list: true,
      handler: async ({ query, auth }) => {
        const { rows, total } = await listMessages(domainContext(deps, auth), query);
        return { data: rows.map(serializeMessage), pagination: paginate(query.page, query.limit, total), message: 'Messages retrieved' };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/communications/messages/:id',
      summary: 'Get a message',
      tag,
      auth: 'tenant',
      scope: 'communications:read',
      params: MessageIdParams,
      response: MessageRecord,
      handler: async ({ params, auth }) => ({
        data: serializeMessage(await getMessage(domainContext(deps, auth), params.id)),
        message: 'Message retrieved',
      }),
    }),
    inbound('reply'),
    inbound('bounce'),
    inbound('delivered'),
  ];
}
