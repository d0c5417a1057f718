import { generateKeyPairSync } from 'node:crypto';
import { dkimVerify } from 'mailauth/lib/dkim/verify';
import type { campaignSequenceWorkflow } from '../workflows/campaign-sequence';
import { DnsServer } from './support/dns-server';
import { oneEmail } from './support/sequences';
import { header, SmtpSink, type ReceivedMail } from './support/smtp-sink';
import { startMailStack } from './support/mail-stack';
import { newTenant, validLead, type TestStack, type TestTenant } from './support/stack';
import { waitUntil } from './support/wait-until';
import { registerEndpoint } from './support/webhook-api';
import { WebhookReceiver } from './support/webhook-receiver';

/**
 * Sender identities and DKIM (docs/decisions.md, "Tracking and engagement events"), at a real SMTP server with real Temporal: a
 * campaign node and a one-off send pick a sender by senderId, and mail from a domain whose key
 * the tenant registered arrives signed, verified by mailauth against the DNS record the API gave.
 */
let stack: TestStack;
let tenant: TestTenant;
let smtp: SmtpSink;
let stop: () => Promise<void>;
/** The DNS the API verifies sending domains against: a tenant "publishes" a record by adding it here. */
let dns: DnsServer;
const DOMAIN = `acme-${Date.now()}.test`;

beforeAll(async () => {
  dns = await new DnsServer({}).start();
  ({ stack, tenant, smtp, stop } = await startMailStack({
    name: 'senders',
    appDeps: { dkimDns: { servers: [dns.address], timeoutMs: 2000 } },
  }));
});
afterAll(async () => {
  await stop();
  await dns.stop();
});

const api = () => stack.http();
const newLead = async (headers = tenant.live) =>
  (await api().post('/v1/leads').set(headers).send(validLead()).expect(201)).body.data as { id: string; email: string };

/** A sender at DOMAIN, the one another tenant verified, in the given scope. */
const billingSender = async (headers: Record<string, string>) =>
  (
    await api()
      .post('/v1/communications/senders')
      .set(headers)
      .send({ fromName: 'Acme Billing', fromAddress: `billing@${DOMAIN}` })
      .expect(201)
  ).body.data;

/** An active campaign of one email node (`data`), a new lead enrolled in it, and its run to the end. */
async function campaignEmailFrom(headers: Record<string, string>, data: Record<string, unknown>) {
  const workflow = await api().post('/v1/workflows').set(headers).send(oneEmail(data, 'From a sender')).expect(201);
  const campaign = (
    await api()
      .post('/v1/campaigns')
      .set(headers)
      .send({ name: 'Senders', workflowId: workflow.body.data.id, status: 'active' })
      .expect(201)
  ).body.data.id as string;
  const lead = await newLead(headers);
  await api()
    .post(`/v1/campaigns/${campaign}/enrollments`)
    .set(headers)
    .send({ leadIds: [lead.id] })
    .expect(200);
  await stack.client.workflow.getHandle<typeof campaignSequenceWorkflow>(`campaign/${campaign}/lead/${lead.id}`).result();
  return { campaign, lead };
}
const mailTo = (address: string) => waitUntil(async () => smtp.to(address)[0], `the email to ${address}`);

/** mailauth's DKIM check, with DNS answered from the record the API told the tenant to publish. */
async function dkimResult(mail: ReceivedMail | Buffer, record: { dnsRecordName: string; dnsRecordValue: string }) {
  const resolver = async (name: string, type: string) => {
    if (name === record.dnsRecordName && type === 'TXT') return [[record.dnsRecordValue]];
    throw Object.assign(new Error(`no ${type} record for ${name}`), { code: 'ENOTFOUND' });
  };
  const { results } = await dkimVerify(Buffer.isBuffer(mail) ? mail : mail.raw, { resolver });
  return results;
}

describe('sender identities and DKIM', () => {
  it('signs campaign mail from a registered domain with its key, from the sender the node picked, with its Reply-To', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const registered = await api()
      .post('/v1/communications/dkim-keys')
      .set(tenant.live)
      .send({ domain: DOMAIN.toUpperCase(), selector: 'mail2026', privateKey: pem })
      .expect(201);
    const key = registered.body.data;
    expect(key).toEqual({
      id: expect.stringMatching(/^dkm/),
      domain: DOMAIN,
      selector: 'mail2026',
      dnsRecordName: `mail2026._domainkey.${DOMAIN}`,
      dnsRecordValue: expect.stringMatching(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/=]{300,}$/),
      verifiedAt: null,
      createdAt: expect.any(String),
    });
    // Never returned, and not stored readable.
    const listed = await api().get('/v1/communications/dkim-keys').set(tenant.live).expect(200);
    expect(JSON.stringify([registered.body, listed.body])).not.toMatch(/PRIVATE KEY|privateKey/);
    const [stored] = await stack.db.query(`SELECT private_key_sealed FROM dkim_keys WHERE domain = $1`, [DOMAIN]);
    expect(stored.private_key_sealed).toMatch(/^v1\./);
    expect(stored.private_key_sealed).not.toContain('PRIVATE KEY');
    expect(stored.private_key_sealed).not.toContain(pem.split('\n')[1]);
    const again = await api()
      .post('/v1/communications/dkim-keys')
      .set(tenant.live)
      .send({ domain: DOMAIN, selector: 'mail2026', privateKey: pem })
      .expect(409);
    expect(again.body.message).toBe(
      `A DKIM key for ${DOMAIN} at selector mail2026 is registered already; to rotate it, register the new key at another selector`,
    );

    // Verified once the record is published where the API said, as a long TXT record (several strings).
    const verify = () => api().post(`/v1/communications/dkim-keys/${key.id}/verify`).set(tenant.live);
    const unpublished = await verify();
    expect([unpublished.status, unpublished.body.errors]).toEqual([
      422,
      [
        {
          field: 'dnsRecordValue',
          message: `mail2026._domainkey.${DOMAIN} has no DKIM record: publish the TXT record "${key.dnsRecordValue}" there, then verify again (DNS changes can take minutes to be seen)`,
        },
      ],
    ]);
    dns.hosts[key.dnsRecordName] = { TXT: ['v=spf1 -all', key.dnsRecordValue.replace('; p=', ';  p=')] };
    const verified = await verify().expect(200);
    expect(verified.body.data.verifiedAt).toEqual(expect.any(String));
    expect((await verify().expect(200)).body.data.verifiedAt).toBe(verified.body.data.verifiedAt);

    const sender = await api()
      .post('/v1/communications/senders')
      .set(tenant.live)
      .send({ fromName: 'Ada at Acme', fromAddress: `ada@${DOMAIN}`, replyTo: `support@${DOMAIN}` })
      .expect(201);
    expect(sender.body.data).toMatchObject({ id: expect.stringMatching(/^snd/), replyTo: `support@${DOMAIN}`, dkimSigned: true });
    const senderId = sender.body.data.id as string;

    const { lead } = await campaignEmailFrom(tenant.live, { subjectLine: 'Hello', body: 'Hi {{firstName}}', senderId });

    const mail = await mailTo(lead.email);
    expect(header(mail, 'From')).toBe(`Ada at Acme <ada@${DOMAIN}>`);
    expect(header(mail, 'Reply-To')).toBe(`support@${DOMAIN}`);
    expect(header(mail, 'Message-ID')).toMatch(new RegExp(`^<msg[A-Za-z0-9]+@${DOMAIN.replace(/\./g, '\\.')}>$`));
    const [result] = await dkimResult(mail, key);
    expect(result).toMatchObject({ signingDomain: DOMAIN, selector: 'mail2026', status: { result: 'pass' } });
    // RFC 8058: the signature covers both one-click unsubscribe headers.
    expect(header(mail, 'DKIM-Signature')!.replace(/\s+/g, '')).toMatch(/h=[^;]*list-unsubscribe:list-unsubscribe-post/i);
    // The verifier is real: the same mail with its subject changed no longer passes.
    const tampered = Buffer.from(mail.raw.toString('utf8').replace(/^Subject: Hello/m, 'Subject: Hellp'));
    expect((await dkimResult(tampered, key))[0].status.result).not.toBe('pass');
  });

  it('sends one-off mail from a sender by senderId, from EMAIL_FROM unsigned without one, and refuses an unknown sender', async () => {
    const sender = await api()
      .post('/v1/communications/senders')
      .set(tenant.live)
      .send({ fromName: 'Billing', fromAddress: `billing@${DOMAIN}` })
      .expect(201);
    const lead = await newLead();
    await api()
      .post('/v1/communications/send/email')
      .set(tenant.live)
      .send({ to: lead.email, subject: 'Receipt', body: 'Thanks', senderId: sender.body.data.id, category: 'transactional' })
      .expect(200);
    const signed = await mailTo(lead.email);
    expect(header(signed, 'From')).toBe(`Billing <billing@${DOMAIN}>`);
    expect(header(signed, 'Reply-To')).toBeUndefined();
    expect(header(signed, 'DKIM-Signature')).toContain(`d=${DOMAIN}`);

    const other = `plain-${Date.now()}@example.com`;
    await api().post('/v1/communications/send/email').set(tenant.live).send({ to: other, subject: 'Plain', body: 'Hi' }).expect(200);
    const plain = await mailTo(other);
    expect(header(plain, 'From')).toBe('Campaigns <campaigns@example.test>');
    expect(header(plain, 'DKIM-Signature')).toBeUndefined();

    await api().delete(`/v1/communications/senders/${sender.body.data.id}`).set(tenant.live).expect(200);
    const refused = await api()
      .post('/v1/communications/send/email')
      .set(tenant.live)
      .send({ to: other, subject: 'Again', body: 'Hi', senderId: sender.body.data.id });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([{ field: 'senderId', message: expect.stringContaining('Sender not found') }]);
  });

  it("refuses live mail from a domain the tenant has not verified: another tenant's domain is not its to send from", async () => {
    const other = await newTenant(stack.db);
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    // Its own key at the selector the owner published: DNS holds the owner's key, not this one.
    const key = (
      await api()
        .post('/v1/communications/dkim-keys')
        .set(other.live)
        .send({ domain: DOMAIN, selector: 'mail2026', privateKey: pem })
        .expect(201)
    ).body.data;
    const verify = await api().post(`/v1/communications/dkim-keys/${key.id}/verify`).set(other.live);
    expect([verify.status, verify.body.errors[0].message]).toEqual([422, expect.stringContaining('holds another public key')]);

    const sender = await billingSender(other.live);
    expect(sender.dkimSigned).toBe(false);
    const to = `victim-${Date.now()}@example.com`;
    const send = (headers: Record<string, string>, senderId: string) =>
      api().post('/v1/communications/send/email').set(headers).send({ to, subject: 'Your invoice', body: 'Pay here', senderId });
    const refused = await send(other.live, sender.id);
    expect([refused.status, refused.body.errors]).toEqual([
      422,
      [
        {
          field: 'senderId',
          message: `${DOMAIN} is not verified: register a DKIM key for it (POST /v1/communications/dkim-keys), publish its DNS record, then POST /v1/communications/dkim-keys/{id}/verify`,
        },
      ],
    ]);
    // Sandbox mail is only captured: a sender there needs no domain yet.
    const sandboxSender = await billingSender(other.sandbox);
    expect((await send(other.sandbox, sandboxSender.id).expect(200)).body.data.status).toBe('sent');

    // A campaign's email from that sender is stored, then failed at delivery, never sent; the tenant's integration hears why.
    const receiver = await new WebhookReceiver().start();
    try {
      await registerEndpoint(stack.app, other, receiver, '/failed', ['email.failed']);
      const { campaign, lead } = await campaignEmailFrom(other.live, { subjectLine: 'Invoice', body: 'Pay here', senderId: sender.id });
      const [message] = (await api().get(`/v1/communications/messages?campaignId=${campaign}`).set(other.live).expect(200)).body.data;
      expect(message).toMatchObject({ status: 'failed', error: expect.stringContaining(`${DOMAIN} is not verified`) });
      expect(smtp.to(lead.email)).toHaveLength(0);
      expect(smtp.to(to)).toHaveLength(0);
      const [failed] = await receiver.waitFor('/failed', 1);
      expect(failed.body).toMatchObject({
        type: 'email.failed',
        data: { messageId: message.id, to: lead.email, leadId: lead.id, campaignId: campaign, reason: message.error },
      });
    } finally {
      await receiver.stop();
    }
  });

  it('rotates a key without a gap: the old key signs until the new one is verified, then the new one does', async () => {
    const domain = `rotate-${Date.now()}.test`;
    const register = async (selector: string) => {
      const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      const key = (
        await api().post('/v1/communications/dkim-keys').set(tenant.live).send({ domain, selector, privateKey: pem }).expect(201)
      ).body.data;
      return { ...key, publish: () => (dns.hosts[key.dnsRecordName] = { TXT: [key.dnsRecordValue] }) };
    };
    const verify = (id: string) => api().post(`/v1/communications/dkim-keys/${id}/verify`).set(tenant.live);
    const oldKey = await register('old');
    oldKey.publish();
    await verify(oldKey.id).expect(200);
    const sender = (
      await api()
        .post('/v1/communications/senders')
        .set(tenant.live)
        .send({ fromName: 'Rotating', fromAddress: `news@${domain}` })
        .expect(201)
    ).body.data;
    let sent = 0;
    const send = () => {
      const to = `rotation-${Date.now()}-${++sent}@example.com`;
      return api()
        .post('/v1/communications/send/email')
        .set(tenant.live)
        .send({ to, subject: 'Rotation', body: 'Hi', senderId: sender.id, category: 'transactional' })
        .then((res) => ({ res, mail: () => mailTo(to) }));
    };
    const signedBy = async (key: { dnsRecordName: string; dnsRecordValue: string }) => {
      const { res, mail } = await send();
      expect(res.status).toBe(200);
      const [result] = await dkimResult(await mail(), key);
      return { selector: result.selector, result: result.status.result };
    };

    // The new key is registered at another selector: until it is verified, the old one signs.
    const newKey = await register('new');
    expect(newKey.verifiedAt).toBeNull();
    expect(await signedBy(oldKey)).toEqual({ selector: 'old', result: 'pass' });
    newKey.publish();
    await verify(newKey.id).expect(200);
    expect(await signedBy(newKey)).toEqual({ selector: 'new', result: 'pass' });

    // The old key goes; the new one goes on signing. With no key left, the domain is not verified.
    await api().delete(`/v1/communications/dkim-keys/${oldKey.id}`).set(tenant.live).expect(200);
    expect(await signedBy(newKey)).toEqual({ selector: 'new', result: 'pass' });
    await api().delete(`/v1/communications/dkim-keys/${newKey.id}`).set(tenant.live).expect(200);
    const { res } = await send();
    expect([res.status, res.body.errors?.[0]?.message]).toEqual([422, expect.stringContaining(`${domain} is not verified`)]);
  });

  it('refuses a private key that is not an RSA key of 1024 bits or more, naming the field', async () => {
    const ed = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' });
    for (const privateKey of ['not a key', ed]) {
      const res = await api()
        .post('/v1/communications/dkim-keys')
        .set(tenant.live)
        .send({ domain: `other-${Date.now()}.test`, selector: 's1', privateKey });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual([{ field: 'privateKey', message: expect.any(String) }]);
    }
  });
});
