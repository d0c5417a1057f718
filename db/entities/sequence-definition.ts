import { Column, Entity } from 'typeorm';
import type { SequenceDefinition as Definition } from '../../contracts/sequence-definition';
import { TenantOwned } from './tenant-owned';

/** The current version of a campaign sequence; every version, this one included, is also in workflow_definition_versions. */
@Entity({ name: 'workflow_definitions' })
export class SequenceDefinition extends TenantOwned {
  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 2000, default: '' })
  description: string;

  @Column({ type: 'jsonb' })
  nodes: Definition['nodes'];

  @Column({ type: 'jsonb' })
  edges: Definition['edges'];

  @Column({ type: 'integer', default: 1 })
  version: number;
}
