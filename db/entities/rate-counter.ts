import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * Fixed-window counters shared by every API process (per-second burst, per-minute limit, per-IP,
 * monthly usage). Keys look like `t:<tenantId>:m`; expired windows are swept periodically.
 */
@Entity({ name: 'rate_counters' })
@Index('ix_rate_counters_expires', ['expiresAt'])
export class RateCounter {
  @PrimaryColumn({ type: 'varchar', length: 120 })
  key: string;

  @PrimaryColumn({ name: 'window_start', type: 'timestamptz' })
  windowStart: Date;

  @Column({ type: 'integer', default: 0 })
  count: number;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;
}
