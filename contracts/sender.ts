import { z } from 'zod';
import { emailField, encodedId } from './common';

/** No control characters: a display name goes into a header. */
const displayName = z
  .string()
  .trim()
  .min(1)
  .max(200)
  // eslint-disable-next-line no-control-regex -- the rule is exactly "no control characters"
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'Must not contain line breaks or other control characters');

export const SenderCreate = z
  .object({
    fromName: displayName.meta({ description: 'Shown as the sender, e.g. "Ada at Acme"' }),
    fromAddress: emailField.meta({
      description: 'The From address; live mail goes out from it once its domain has a verified DKIM key, signed with that key',
    }),
    replyTo: emailField.nullable().optional().meta({ description: 'Where replies go (Reply-To); absent or null: to fromAddress' }),
  })
  .strict()
  .meta({ id: 'SenderCreate' });
export type SenderCreate = z.output<typeof SenderCreate>;
export const SenderUpdate = SenderCreate.partial().strict().meta({ id: 'SenderUpdate' });
export type SenderUpdate = z.output<typeof SenderUpdate>;

export const SenderRecord = z
  .object({
    id: z.string(),
    fromName: z.string(),
    fromAddress: z.string(),
    replyTo: z.string().nullable(),
    dkimSigned: z.boolean().meta({
      description:
        "Whether fromAddress's domain has a verified DKIM key: mail from it is signed, and live mail from this sender is sent only then (sandbox mail is captured either way)",
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Sender' });
export type SenderRecord = z.output<typeof SenderRecord>;
export const SenderIdParams = z.object({ id: encodedId('sender') });

/** One DNS label of letters, digits and inner hyphens; a domain is two or more. Linear: each label ends at a dot. */
const domainName = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(/^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/, 'Must be a domain name such as example.com');

export const DkimKeyCreate = z
  .object({
    domain: domainName.meta({ description: 'The sending domain: mail whose From address is at this domain is signed (d=)' }),
    selector: z
      .string()
      .trim()
      .min(1)
      .max(63)
      .regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/, 'Must be one DNS label, e.g. s1 or mail2026')
      .meta({ description: 'The DKIM selector (s=): the public key is published at <selector>._domainkey.<domain>' }),
    privateKey: z.string().max(10_000).meta({
      description:
        'RSA private key (1024 bits or more, 2048 recommended) in unencrypted PEM (-----BEGIN PRIVATE KEY----- or -----BEGIN RSA PRIVATE KEY-----); stored encrypted, never returned',
    }),
  })
  .strict()
  .meta({ id: 'DkimKeyCreate' });
export type DkimKeyCreate = z.output<typeof DkimKeyCreate>;

export const DkimKeyRecord = z
  .object({
    id: z.string(),
    domain: z.string(),
    selector: z.string(),
    dnsRecordName: z.string().meta({ description: 'Where to publish the TXT record: <selector>._domainkey.<domain>' }),
    dnsRecordValue: z.string().meta({ description: 'The TXT record: v=DKIM1; k=rsa; p=<public key>' }),
    verifiedAt: z.string().nullable().meta({
      description:
        'When the record was found published (POST /v1/communications/dkim-keys/{id}/verify); until then mail is not signed with the key and live mail from senders at the domain is refused',
    }),
    createdAt: z.string(),
  })
  .meta({ id: 'DkimKey' });
export type DkimKeyRecord = z.output<typeof DkimKeyRecord>;
export const DkimKeyIdParams = z.object({ id: encodedId('dkimKey') });
