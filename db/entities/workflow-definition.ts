import { Column, Entity } from 'typeorm';
import type { WorkflowDefinition as Definition } from '../../contracts/workflow-definition';
import { TenantOwned } from './tenant-owned';

/** The current version of a campaign sequence; every version, this one included, is also in workflow_definition_versions. */
@Entity({ name: 'workflow_definitions' })
export class WorkflowDefinition extends TenantOwned {
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
