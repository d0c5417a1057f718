import { ApplicationFailure } from '@temporalio/activity';
import nodemailer from 'nodemailer';
import type { ComposedEmail } from '../../domain/communications/compose-email';
import type { DkimSigning } from './sending-identity';

interface OutgoingEmail extends ComposedEmail {
  to: string;
  from: string | { name: string; address: string };
  replyTo?: string;
  /** Deterministic per message (`<msg-...@domain>`), so a duplicate is recognisable downstream. */
  messageId: string;
  /** Signs the message (nodemailer's DKIM support) when the From domain has a key. */
  dkim?: DkimSigning;
}

export type EmailSender = (email: OutgoingEmail) => Promise<void>;

/** nodemailer over SMTP_URL. SMTP 5xx answers are permanent (no retry); everything else is retried. */
export function smtpSender(smtpUrl: string): EmailSender {
  const transport = nodemailer.createTransport(smtpUrl);
  return async (email) => {
    try {
      await transport.sendMail({
        from: email.from,
        replyTo: email.replyTo,
        to: email.to,
        subject: email.subject,
        html: email.html,
        text: email.text,
        headers: email.headers,
        messageId: email.messageId,
        dkim: email.dkim,
      });
    } catch (err) {
      const code = (err as { responseCode?: number }).responseCode;
      if (code && code >= 500) throw ApplicationFailure.nonRetryable(`SMTP refused the message: ${(err as Error).message}`, 'SmtpRejected');
      throw err;
    }
  };
}

/** The domain of the From address, for Message-IDs. */
export function senderDomain(from: string): string {
  return /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';
}
