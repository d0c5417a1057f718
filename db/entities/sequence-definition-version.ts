import { Column, Entity, Index } from 'typeorm';
import type { SequenceDefinition as Definition } from '../../contracts/sequence-definition';
import { TenantOwned } from './tenant-owned';

/** Immutable snapshot of one version, so a running enrollment can keep the version it started on. */
@Entity({ name: 'workflow_definition_versions' })
@Index('uq_workflow_definition_versions', ['workflowDefinitionId', 'version'], { unique: true })
export class SequenceDefinitionVersion extends TenantOwned {
  @Column({ name: 'workflow_definition_id', type: 'bigint' })
  workflowDefinitionId: string;

  @Column({ type: 'integer' })
  version: number;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 2000, default: '' })
  description: string;

  @Column({ type: 'jsonb' })
  nodes: Definition['nodes'];

  @Column({ type: 'jsonb' })
  edges: Definition['edges'];
}
