import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  /** The raw message with quoted-printable soft breaks and escapes decoded, headers unfolded. */
  text: string;
  /** The message exactly as received. */
  raw: Buffer;
}

const decodeQuotedPrintable = (raw: string) =>
  raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
const decode = (raw: string) => decodeQuotedPrintable(raw).replace(/\r?\n[ \t]+/g, ' ');

/** A real SMTP server on loopback that keeps what it receives (no STARTTLS, no auth). */
export class SmtpSink {
  received: ReceivedMail[] = [];
  /**
   * Runs once a message is fully received and before the server answers 250: the sender is still
   * waiting for that answer, so a crash test can kill it in the window between send and confirm.
   */
  beforeAccept: (mail: ReceivedMail) => void | Promise<void> = () => {};
  /** Recipients this server refuses at RCPT TO with 550, as a recipient's server does for a dead mailbox. */
  readonly unknownMailboxes = new Set<string>();
  private readonly server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo: (address, _session, callback) => {
      if (!this.unknownMailboxes.has(address.address.toLowerCase())) return callback();
      callback(Object.assign(new Error(`5.1.1 <${address.address}>: mailbox unavailable`), { responseCode: 550 }));
    },
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        const mail = { to: session.envelope.rcptTo.map((r) => r.address), text: decode(raw.toString('utf8')), raw };
        this.received.push(mail);
        Promise.resolve(this.beforeAccept(mail)).then(() => callback(), callback);
      });
    },
  });
  private port = 0;

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.server.address() as { port: number }).port;
    return this;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  to(address: string): ReceivedMail[] {
    return this.received.filter((m) => m.to.includes(address));
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Tracking paths (/v1/t/<kind>/<token>) found in a received mail, in order of appearance. */
export function trackingPaths(mail: ReceivedMail, kind: 'o' | 'c' | 'u'): string[] {
  return [...new Set([...mail.text.matchAll(new RegExp(`https?://[^/\\s"<>]+(/v1/t/${kind}/[A-Za-z0-9_.-]+)`, 'g'))].map((m) => m[1]))];
}

/**
 * A header's value, unfolded, read from the raw header section: not from `text`, whose
 * quoted-printable decoding would join a header ending in `=` (base64 padding of a DKIM-Signature) with the next.
 */
export function header(mail: ReceivedMail, name: string): string | undefined {
  const raw = mail.raw.toString('utf8');
  const head = raw.slice(0, raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
  return new RegExp(`^${name}: (.*)$`, 'mi').exec(head)?.[1];
}

/** One part of a received mail: from after its part headers up to the next MIME boundary. */
function part(source: string, type: 'text/html' | 'text/plain'): string {
  const start = source.search(new RegExp(`^Content-Type: ${type.replace('/', '\\/')}`, 'im'));
  if (start < 0) throw new Error(`the mail has no ${type} part`);
  const bodyStart = source.indexOf('\r\n\r\n', start) + 4;
  const end = source.indexOf('\r\n--', bodyStart);
  return source.slice(bodyStart, end < 0 ? undefined : end);
}

/** The text/html part of a received mail. */
export const htmlPart = (mail: ReceivedMail) => part(mail.text, 'text/html');

/** The text/plain part of a received mail, quoted-printable decoded, lines as sent (not unfolded), ending in \n. */
export const textPart = (mail: ReceivedMail) => decodeQuotedPrintable(part(mail.raw.toString('utf8'), 'text/plain')).replace(/\r\n/g, '\n');

/** The URLs signed into a mail's click-tracking links (the claims of a token are readable, not forgeable). */
export const clickTargets = (mail: ReceivedMail): string[] =>
  trackingPaths(mail, 'c').map((path) => JSON.parse(Buffer.from(path.split('/').pop()!.split('.')[0], 'base64url').toString()).u);
