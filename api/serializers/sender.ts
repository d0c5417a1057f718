import type { DkimKey } from '../../db/entities';
import { dkimRecordName, dkimRecordValue } from '../../domain/communications/dkim-keys';
import type { SenderWithSigning } from '../../domain/communications/senders';
import { encodeId } from '../../lib/ids';
import type { DkimKeyRecord, SenderRecord } from '../../contracts/sender';

export const serializeSender = ({ sender, dkimSigned }: SenderWithSigning): SenderRecord => ({
  id: encodeId('sender', sender.id),
  fromName: sender.fromName,
  fromAddress: sender.fromAddress,
  replyTo: sender.replyTo,
  dkimSigned,
  createdAt: sender.createdAt.toISOString(),
  updatedAt: sender.updatedAt.toISOString(),
});

/** Never the private key: only what the tenant publishes in DNS. */
export const serializeDkimKey = (k: DkimKey): DkimKeyRecord => ({
  id: encodeId('dkimKey', k.id),
  domain: k.domain,
  selector: k.selector,
  dnsRecordName: dkimRecordName(k),
  dnsRecordValue: dkimRecordValue(k),
  verifiedAt: k.verifiedAt?.toISOString() ?? null,
  createdAt: k.createdAt.toISOString(),
});
