import request from 'supertest';
import type { TestTenant } from './stack';
import type { WebhookReceiver } from './webhook-receiver';

/** Registers an endpoint through the API (a running server's address or the app itself) and teaches the receiver its secret. */
export async function registerEndpoint(
  api: Parameters<typeof request>[0],
  tenant: TestTenant,
  receiver: WebhookReceiver,
  path: string,
  events: string[],
) {
  const res = await request(api)
    .post('/v1/integrations/webhooks')
    .set(tenant.live)
    .send({ url: receiver.url(path), events })
    .expect(201);
  receiver.secrets.push(res.body.data.secret);
  return res.body.data as { id: string; secret: string };
}
