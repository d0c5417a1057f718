import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * Failed logins per account (domain/login-throttle.ts), shared by every API process: after a few
 * failures an email is refused for an exponentially growing delay. Keyed by a digest of the email,
 * so addresses an attacker guesses are not stored; rows idle for a day are swept.
 */
@Entity({ name: 'login_failures' })
@Index('ix_login_failures_last_failure', ['lastFailureAt'])
export class LoginFailure {
  /** SHA-256 of the lower-cased email. */
  @PrimaryColumn({ type: 'char', length: 64 })
  account: string;

  @Column({ type: 'integer' })
  failures: number;

  @Column({ name: 'blocked_until', type: 'timestamptz', nullable: true })
  blockedUntil: Date | null;

  @Column({ name: 'last_failure_at', type: 'timestamptz' })
  lastFailureAt: Date;
}
