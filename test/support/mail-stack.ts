import type { TrackingSettings } from '../../domain/communications/compose-email';
import type { MessagingSettings } from '../../activities/messaging/settings';
import { SmtpSink } from './smtp-sink';
import { newTenant, startStack, type StackOptions, type TestStack, type TestTenant } from './stack';

export interface MailStack {
  stack: TestStack;
  /** The real SMTP server on loopback the worker sends to. */
  smtp: SmtpSink;
  /** A tenant of this file's own on the shared database. */
  tenant: TestTenant;
  /** The settings both the worker (links in mail) and the app (the /v1/t routes) use, so links sent verify. */
  tracking: TrackingSettings;
  stop(): Promise<void>;
}

export interface MailStackOptions extends Omit<StackOptions, 'activityDeps'> {
  /** Names this file's tracking secret and host, so a token from one file never verifies in another. */
  name: string;
  emailFrom?: string;
  /** Further messaging settings (e.g. a Twilio stand-in). */
  messaging?: Partial<MessagingSettings>;
}

/** The real stack for one test file that sends mail: a real SMTP sink, tracking settings shared by worker and app, a tenant. */
export async function startMailStack({ name, emailFrom, messaging, ...opts }: MailStackOptions): Promise<MailStack> {
  const tracking = { secret: `${name}-tracking-secret-0123456789`, baseUrl: `https://${name}.test` };
  const smtp = await new SmtpSink().start();
  const stack = await startStack({
    ...opts,
    activityDeps: {
      messaging: { smtpUrl: smtp.url, emailFrom: emailFrom ?? 'Campaigns <campaigns@example.test>', tracking, ...messaging },
    },
    appDeps: { tracking, ...opts.appDeps },
  });
  const tenant = await newTenant(stack.db);
  return {
    stack,
    smtp,
    tenant,
    tracking,
    stop: async () => {
      await stack.stop();
      await smtp.stop();
    },
  };
}
