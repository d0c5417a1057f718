import { EmailSender } from '../../db/entities';
import { verifiedDomains } from './dkim-keys';
import type { SenderCreate, SenderUpdate } from '../../contracts/sender';
import { notFound, validationFailed } from '../../lib/errors';
import type { DomainContext } from '../context';

export interface SenderWithSigning {
  sender: EmailSender;
  dkimSigned: boolean;
}

const repo = (ctx: DomainContext) => ctx.data.repo(EmailSender);

/** The domain of an address (lower case): what a DKIM key is registered for. */
export const addressDomain = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

async function withSigning(ctx: DomainContext, senders: EmailSender[]): Promise<SenderWithSigning[]> {
  const signed = await verifiedDomains(ctx.data, [...new Set(senders.map((s) => addressDomain(s.fromAddress)))]);
  return senders.map((sender) => ({ sender, dkimSigned: signed.has(addressDomain(sender.fromAddress)) }));
}

export async function createSender(ctx: DomainContext, input: SenderCreate): Promise<SenderWithSigning> {
  const sender = await repo(ctx).insert({ ...input, replyTo: input.replyTo ?? null });
  return (await withSigning(ctx, [sender]))[0];
}

export async function listSenders(ctx: DomainContext, f: { page: number; limit: number }) {
  const [rows, total] = await repo(ctx).select('s').orderBy('s.id', 'DESC').page(f.page, f.limit);
  return { rows: await withSigning(ctx, rows), total };
}

async function findSender(ctx: DomainContext, id: string): Promise<EmailSender> {
  const sender = await repo(ctx).findById(id);
  if (!sender) throw notFound('Sender');
  return sender;
}

export const getSender = async (ctx: DomainContext, id: string) => (await withSigning(ctx, [await findSender(ctx, id)]))[0];

export async function updateSender(ctx: DomainContext, id: string, patch: SenderUpdate): Promise<SenderWithSigning> {
  const sender = await findSender(ctx, id);
  const saved = await repo(ctx).save(Object.assign(sender, patch));
  return (await withSigning(ctx, [saved]))[0];
}

/** Messages already queued from a deleted sender go out from EMAIL_FROM (see deliverMessage). */
export async function deleteSender(ctx: DomainContext, id: string): Promise<SenderWithSigning> {
  const found = await getSender(ctx, id);
  await repo(ctx).deleteById(id);
  return found;
}

/**
 * For sends that name a sender: a 422 on `field` when it is not one of the caller's, or, for live
 * mail, when its domain is not verified yet (sandbox mail is only captured, so it needs no domain).
 */
export async function requireSender(ctx: DomainContext, id: string | undefined, field: string): Promise<EmailSender | null> {
  if (!id) return null;
  const sender = await repo(ctx).findById(id);
  if (!sender) throw validationFailed([{ field, message: 'Sender not found: create one with POST /v1/communications/senders' }]);
  const domain = addressDomain(sender.fromAddress);
  if (ctx.scope.environment === 'live' && !(await verifiedDomains(ctx.data, [domain])).has(domain)) {
    throw validationFailed([{ field, message: unverifiedDomain(domain) }]);
  }
  return sender;
}

/** Why live mail from a domain is refused, and what to do. */
export const unverifiedDomain = (domain: string) =>
  `${domain} is not verified: register a DKIM key for it (POST /v1/communications/dkim-keys), publish its DNS record, then POST /v1/communications/dkim-keys/{id}/verify`;
