import { Column, Entity } from 'typeorm';
import type { EmailFormat } from './message';
import { TenantOwned } from './tenant-owned';

/** Subject and body with {{variable}} placeholders, rendered with HTML escaping at send time. */
@Entity({ name: 'email_templates' })
export class EmailTemplate extends TenantOwned {
  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 300 })
  subject: string;

  @Column({ type: 'text' })
  body: string;

  /** Given by the author or inferred once from the body when it was created; kept on later edits unless given. */
  @Column({ type: 'varchar', length: 4 })
  format: EmailFormat;
}
