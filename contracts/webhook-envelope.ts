import { encodeId } from '../lib/ids';

export interface WebhookEnvelope {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
}

/** The delivery body every receiver gets. The same event always serialises to the same bytes. */
export function buildEnvelope(event: {
  id: string | number;
  type: string;
  createdAt: Date;
  data: Record<string, unknown>;
}): WebhookEnvelope {
  return { id: encodeId('event', event.id), type: event.type, createdAt: event.createdAt.toISOString(), data: event.data };
}
