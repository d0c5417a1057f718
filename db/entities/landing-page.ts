import { Column, Entity, Index } from 'typeorm';
import type { LandingPageDefinition } from '../../contracts/landing-page';
import { TenantOwned } from './tenant-owned';

@Entity({ name: 'landing_pages' })
@Index('uq_landing_pages_slug', ['tenantId', 'environment', 'slug'], { unique: true })
export class LandingPage extends TenantOwned {
  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 2000, default: '' })
  description: string;

  @Column({ type: 'varchar', length: 80 })
  slug: string;

  @Column({ type: 'jsonb' })
  sections: LandingPageDefinition['sections'];

  @Column({ type: 'jsonb' })
  seo: LandingPageDefinition['seo'];

  @Column({ type: 'jsonb' })
  style: LandingPageDefinition['style'];

  /** Stored and returned as given; never served as-is (the hosted page is rendered from the fields). */
  @Column({ type: 'text' })
  content: string;
}
