import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { newTenant, startStack, type TestStack, type TestTenant } from './support/stack';
import { waitUntil } from './support/wait-until';

/**
 * The tenant's share of in-flight requests (TENANT_MAX_IN_FLIGHT), here 1: a request waiting on a
 * workflow (a send waits up to 5 s for its delivery) gives its slot back, so the tenant's next
 * request runs at once instead of queueing behind the wait. The mail server here accepts the
 * connection and never greets, so the send's delivery hangs and the API waits its full bound.
 */
let stack: TestStack;
let tenant: TestTenant;
let mailServer: Server;
const connections: Socket[] = [];

beforeAll(async () => {
  mailServer = createServer((socket) => connections.push(socket)).listen(0, '127.0.0.1');
  await new Promise((resolve) => mailServer.once('listening', resolve));
  const tracking = { secret: 'fair-share-tracking-secret-0123456789', baseUrl: 'https://fair-share.test' };
  stack = await startStack({
    activityDeps: {
      messaging: { smtpUrl: `smtp://127.0.0.1:${(mailServer.address() as AddressInfo).port}`, emailFrom: 'a@example.test', tracking },
    },
    appDeps: { tracking, tenantMaxInFlight: 1 },
  });
  tenant = await newTenant(stack.db);
});

afterAll(async () => {
  for (const socket of connections) socket.destroy();
  await new Promise((resolve) => mailServer.close(resolve));
  await stack.stop();
});

describe("a tenant's share of in-flight requests", () => {
  it('is given back while a request waits on its workflow, so the next request of the tenant runs at once', async () => {
    let sendAnswered = false;
    const send = stack
      .http()
      .post('/v1/communications/send/email')
      .set(tenant.live)
      .send({ to: 'someone@example.com', subject: 'Receipt', body: 'Paid' })
      .then((res) => {
        sendAnswered = true;
        return res;
      });
    await waitUntil(async () => connections.length > 0, 'the delivery reaching the mail server');

    const list = await stack.http().get('/v1/leads').set(tenant.live);
    expect(list.status).toBe(200);
    expect(sendAnswered).toBe(false);
    const sent = await send;
    expect(sent.status).toBe(200);
    expect(sent.body.data.status).toBe('queued');
  });
});
