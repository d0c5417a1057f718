import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { TenantOwned } from './tenant-owned';

/** The global catalog, shared by every tenant (seeded by migration, not tenant-owned). */
@Entity({ name: 'addons' })
@Index('uq_addons_slug', ['slug'], { unique: true })
export class Addon {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ type: 'varchar', length: 60 })
  slug: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'text' })
  description: string;

  @Column({ type: 'varchar', length: 40 })
  category: string;

  @Column({ type: 'varchar', length: 20 })
  version: string;

  @Column({ name: 'pricing_type', type: 'varchar', length: 20 })
  pricingType: string;

  @Column({
    name: 'monthly_price',
    type: 'numeric',
    precision: 10,
    scale: 2,
    transformer: { to: (v: number) => v, from: (v: string) => Number(v) },
  })
  monthlyPrice: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

export const ADDON_INSTALL_STATUSES = ['installed', 'active', 'suspended', 'uninstalled'] as const;
export type AddonInstallStatus = (typeof ADDON_INSTALL_STATUSES)[number];

/** A tenant's installation of a catalog addon in one environment; uninstalling keeps the row. */
@Entity({ name: 'addon_installations' })
@Index('uq_addon_installations_addon', ['tenantId', 'environment', 'addonId'], { unique: true })
export class AddonInstallation extends TenantOwned {
  @Column({ name: 'addon_id', type: 'bigint' })
  addonId: string;

  @Column({ type: 'varchar', length: 12 })
  status: AddonInstallStatus;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  config: Record<string, unknown>;

  @Column({ name: 'installed_at', type: 'timestamptz' })
  installedAt: Date;
}
