import { Column, Entity } from 'typeorm';
import { TenantOwned } from './tenant-owned';

/** A tenant's sender identity: who its email comes from and where replies go. */
@Entity({ name: 'email_senders' })
export class EmailSender extends TenantOwned {
  @Column({ name: 'from_name', type: 'varchar', length: 200 })
  fromName: string;

  @Column({ name: 'from_address', type: 'varchar', length: 320 })
  fromAddress: string;

  @Column({ name: 'reply_to', type: 'varchar', length: 320, nullable: true })
  replyTo: string | null;
}
