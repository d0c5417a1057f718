import { ApplicationFailure } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import { EmailSender, type Message } from '../../db/entities';
import { ScopedData } from '../../db/scoped-data';
import { scoped, type TenantScope } from '../../db/scoped-repository';
import { dkimKeyBox, dkimKeyContext, signingDkimKey } from '../../domain/communications/dkim-keys';
import { addressDomain, unverifiedDomain } from '../../domain/communications/senders';
import { senderDomain } from './email-transport';

export interface DkimSigning {
  domainName: string;
  keySelector: string;
  privateKey: string;
  headerFieldNames: string;
}

/**
 * nodemailer's default signed headers (RFC 4871 5.5) plus List-Unsubscribe-Post: RFC 8058 section 4
 * asks for a signature over both one-click headers, and Gmail and Yahoo check it.
 */
const SIGNED_HEADERS = [
  'From:Sender:Reply-To:Subject:Date:Message-ID:To:Cc:MIME-Version:Content-Type:Content-Transfer-Encoding:Content-ID',
  'Content-Description:Resent-Date:Resent-From:Resent-Sender:Resent-To:Resent-Cc:Resent-Message-ID:In-Reply-To:References',
  'List-Id:List-Help:List-Unsubscribe:List-Unsubscribe-Post:List-Subscribe:List-Post:List-Owner:List-Archive:OTP-Token',
].join(':');

/** Who a message comes from, where replies go, and the DKIM key that signs it (if its domain has one). */
export interface SendingIdentity {
  from: string | { name: string; address: string };
  replyTo?: string;
  /** The From address's domain: Message-IDs are made in it. */
  domain: string;
  dkim?: DkimSigning;
}

/**
 * The message's sender identity, or EMAIL_FROM when it names none (or the one it named was deleted
 * since it was queued); signed when the tenant verified a DKIM key for the From domain. A sender
 * whose domain is not verified (its key deleted since the message was queued, or never verified:
 * a campaign's) fails the message: no tenant sends as a domain it has not shown it controls.
 */
export async function sendingIdentity(
  db: DataSource,
  scope: TenantScope,
  message: Message,
  settings: { emailFrom: string; dkimKeySecret: string },
): Promise<SendingIdentity> {
  const sender = message.senderId ? await scoped(db.manager, EmailSender, scope).findById(message.senderId) : null;
  const identity: SendingIdentity = sender
    ? {
        from: { name: sender.fromName, address: sender.fromAddress },
        ...(sender.replyTo ? { replyTo: sender.replyTo } : {}),
        domain: addressDomain(sender.fromAddress),
      }
    : { from: settings.emailFrom, domain: senderDomain(settings.emailFrom).toLowerCase() };
  // Only a verified key signs; a sender's domain must have one (EMAIL_FROM is the operator's own).
  const key = await signingDkimKey(new ScopedData(db.manager, scope), identity.domain);
  if (!key && sender) throw ApplicationFailure.nonRetryable(unverifiedDomain(identity.domain), 'SenderDomainUnverified');
  if (!key) return identity;
  let privateKey: string;
  try {
    privateKey = dkimKeyBox(settings.dkimKeySecret).open(key.privateKeySealed, dkimKeyContext(scope, key.domain));
  } catch {
    throw ApplicationFailure.nonRetryable(
      `The DKIM key for ${key.domain} cannot be decrypted with DKIM_KEY_SECRET (was the secret changed?); register the key again`,
      'DkimKeyUnreadable',
    );
  }
  return { ...identity, dkim: { domainName: key.domain, keySelector: key.selector, privateKey, headerFieldNames: SIGNED_HEADERS } };
}
