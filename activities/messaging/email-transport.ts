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

/**
 * A recipient the mail server refused for good (a 5xx answer to RCPT TO: "550 mailbox unavailable"):
 * a hard bounce, as Postmark and SendGrid count it, not only a failed send.
 */
export const RECIPIENT_REJECTED = 'SmtpRecipientRejected';

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
      const { responseCode: code, command, response } = err as { responseCode?: number; command?: string; response?: string };
      if (code && code >= 500 && command === 'RCPT TO') {
        throw ApplicationFailure.nonRetryable(
          `The mail server refused the recipient: ${response ?? (err as Error).message}`,
          RECIPIENT_REJECTED,
        );
      }
      if (code && code >= 500) throw ApplicationFailure.nonRetryable(`SMTP refused the message: ${(err as Error).message}`, 'SmtpRejected');
      throw err;
    }
  };
}

/** The domain of the From address, for Message-IDs. */
export function senderDomain(from: string): string {
  return /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';
}
