import { z } from 'zod';
import { getMessage, listMessages, sendEmail, sendSms } from '../../domain/communications/send-message';
import { recordInbound } from '../../domain/engagement/inbound';
import { defineListRoute, defineRoute } from '../http/route';
import {
  InboundEvent,
  MessageIdParams,
  MessageListQuery,
  MessageRecord,
  SendEmail,
  SendSms,
  SentMessage,
} from '../../contracts/communication';
import { EngagementEventRecord } from '../../contracts/engagement-event';
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

/** Email and SMS sends run as workflows; inbound reply/bounce/delivery notifications become engagement events. */
export function communicationRoutes() {
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
      handler: async ({ body, ctx }) => ({
        data: serializeEngagementEvent(await recordInbound(ctx, INBOUND[kind].type, body)),
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
      handler: async ({ body, ctx }) => ({
        data: serializeSentMessage(await sendEmail(ctx, body)),
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
      handler: async ({ body, ctx }) => ({
        data: serializeSentMessage(await sendSms(ctx, body)),
        message: 'SMS accepted',
      }),
    }),
    defineListRoute({
      method: 'get',
      path: '/v1/communications/messages',
      summary: 'List sent and queued messages',
      tag,
      auth: 'tenant',
      scope: 'communications:read',
      query: MessageListQuery,
      response: z.array(MessageRecord),
      message: 'Messages retrieved',
      serialize: serializeMessage,
      handler: ({ query, ctx }) => listMessages(ctx, query),
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
      handler: async ({ params, ctx }) => ({
        data: serializeMessage(await getMessage(ctx, params.id)),
        message: 'Message retrieved',
      }),
    }),
    inbound('reply'),
    inbound('bounce'),
    inbound('delivered'),
  ];
}
