import { deliverOrFail } from './deliver-message';
import type { ScopeRef } from './types';

/**
 * One message sent through the API (workflow ID `email/<messageId>` or `sms/<messageId>`): the row
 * is stored first, so a provider outage becomes durable retries instead of a failed request.
 */
export async function sendMessageWorkflow(input: ScopeRef & { messageId: string }): Promise<{ status: 'sent' | 'failed' }> {
  return { status: await deliverOrFail({ tenantId: input.tenantId, environment: input.environment }, input.messageId) };
}
