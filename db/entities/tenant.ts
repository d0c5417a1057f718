import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const PLANS = ['free', 'starter', 'pro', 'team', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export interface CustomLimits {
  monthlyCalls: number;
  perMinute: number;
  burst: number;
}

@Entity({ name: 'tenants' })
export class Tenant {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' })
  id: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 20, default: 'free' })
  plan: Plan;

  /** Enterprise plans carry their own numbers; null means the plan's defaults. */
  @Column({ name: 'custom_limits', type: 'jsonb', nullable: true })
  customLimits: CustomLimits | null;

  /** How opens and clicks are classed as machine traffic (domain/engagement/machine-traffic.ts); {} means the defaults. */
  @Column({ name: 'engagement_settings', type: 'jsonb', default: () => "'{}'" })
  engagementSettings: Record<string, unknown>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
