import { createHash } from 'node:crypto';
import { In, type DataSource } from 'typeorm';
import { Message } from '../../db/entities';
import { scoped, type TenantScope } from '../../db/scoped-repository';
import { logger } from '../../lib/logger';
import type { CounterStore } from '../../lib/rate-limit/counter-store';
import { windowStart } from '../../lib/rate-limit/windows';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import { machineReason, machineRulesOf } from './machine-traffic';
import { recordEngagements, type EngagementInput } from './record-engagement';

export interface TrackingHit {
  scope: TenantScope;
  type: 'email_open' | 'link_click';
  messageId: string;
  method: string;
  userAgent: string | undefined;
  at: Date;
  details?: Record<string, unknown>;
  /** The signed token and the client's address: the same pair within the replay window counts once. */
  token: string;
  ip: string;
}

export interface TrackingHitsOptions {
  flushEveryMs?: number;
  /** Hits held at most; past it new hits are dropped (and counted in the log) rather than queued. */
  capacity?: number;
  /** Hits one tenant and environment may hold at most, so one tenant's flood cannot crowd out the others'. */
  perTenantCapacity?: number;
  /** Where replays are counted across API processes (the rate-limit counter store); without it, only within the batch. */
  replays?: CounterStore;
  replayWindowMs?: number;
}

/** A replayed token from the same address within this window records nothing more. */
const REPLAY_WINDOW_MS = 60_000;

const scopeKey = (scope: TenantScope) => `${scope.tenantId}:${scope.environment}`;
const replayKey = (hit: TrackingHit) => `replay:${createHash('sha256').update(hit.token).digest('base64url').slice(0, 22)}:${hit.ip}`;

/**
 * Opens and clicks are answered at once and recorded in batches (no database write on
 * the pixel's hot path): every 100 ms, one query loads the batch's messages and one statement per
 * tenant stores its events, which then signal their enrollments. The cost is durability: hits of
 * the last 100 ms are lost if the process dies, which tracking (already lossy: images blocked,
 * links copied) tolerates. Unsubscribes are never batched.
 *
 * Neither a replay nor a flood amplifies: the same token from the same address within a minute
 * is recorded (and signals its enrollment) once, checked at flush time in the shared counter store
 * so the pixel's answer still waits for nothing; and each tenant has its own share of the buffer.
 */
export class TrackingHits {
  private buffer: TrackingHit[] = [];
  /** Hits in the buffer per tenant and environment. */
  private held = new Map<string, number>();
  private dropped = 0;
  private flushing: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout;
  private readonly capacity: number;
  private readonly perTenantCapacity: number;
  private readonly replays: CounterStore | undefined;
  private readonly replayWindowMs: number;

  constructor(
    private readonly db: DataSource,
    private readonly workflows: WorkflowStarter,
    opts: TrackingHitsOptions = {},
  ) {
    this.capacity = opts.capacity ?? 50_000;
    this.perTenantCapacity = opts.perTenantCapacity ?? 10_000;
    this.replays = opts.replays;
    this.replayWindowMs = opts.replayWindowMs ?? REPLAY_WINDOW_MS;
    this.timer = setInterval(() => void this.flush(), opts.flushEveryMs ?? 100);
    this.timer.unref();
  }

  add(hit: TrackingHit): void {
    const key = scopeKey(hit.scope);
    const held = this.held.get(key) ?? 0;
    if (this.buffer.length >= this.capacity || held >= this.perTenantCapacity) {
      this.dropped++;
      return;
    }
    this.held.set(key, held + 1);
    this.buffer.push(hit);
  }

  /** Records everything added so far (shutdown, tests). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    this.held = new Map();
    if (this.dropped) {
      logger.warn({ dropped: this.dropped }, 'tracking hits dropped: the buffer was full');
      this.dropped = 0;
    }
    this.flushing = this.record(batch)
      .catch((err) => logger.error({ err, hits: batch.length }, 'tracking hits could not be recorded'))
      .finally(() => (this.flushing = null));
    await this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  /**
   * The hits that are not replays: the first of each token, address and kind of visitor (a machine
   * hit never hides a person's) per window, in this batch and, per the shared store, in any process.
   */
  private async withoutReplays<T extends { hit: TrackingHit; input: EngagementInput }>(candidates: T[]): Promise<T[]> {
    const keyOf = (c: T) => `${replayKey(c.hit)}${c.input.machine ? ':machine' : ''}`;
    const windowOf = (c: T) => windowStart(c.hit.at.getTime(), this.replayWindowMs);
    const firsts = new Map<string, T>();
    for (const c of candidates) {
      const id = `${keyOf(c)}@${windowOf(c).getTime()}`;
      if (!firsts.has(id)) firsts.set(id, c);
    }
    const unique = [...firsts.values()];
    if (!this.replays || unique.length === 0) return unique;
    const counts = await this.replays.hit(
      unique.map((c) => ({ key: keyOf(c), windowStart: windowOf(c), ttlMs: 2 * this.replayWindowMs, exactAbove: 0 })),
    );
    return unique.filter((_, i) => counts[i] === 1);
  }

  private async record(batch: TrackingHit[]): Promise<void> {
    const byScope = new Map<string, TrackingHit[]>();
    for (const hit of batch) {
      const key = scopeKey(hit.scope);
      const hits = byScope.get(key);
      if (hits) hits.push(hit);
      else byScope.set(key, [hit]);
    }
    for (const hits of byScope.values()) {
      const scope = hits[0].scope;
      const messages = await scoped(this.db.manager, Message, scope).find({
        where: { id: In([...new Set(hits.map((h) => h.messageId))]) },
      });
      const byId = new Map(messages.map((m) => [m.id, m]));
      const rules = await machineRulesOf(this.db, scope);
      const candidates = hits.flatMap((hit) => {
        const message = byId.get(hit.messageId);
        if (!message) return []; // deleted since it was sent
        const machine = machineReason(
          { type: hit.type, method: hit.method, userAgent: hit.userAgent, sentAt: message.sentAt, at: hit.at },
          rules,
        );
        const input: EngagementInput = {
          type: hit.type,
          leadId: message.leadId,
          message,
          workflowExecutionId: null,
          occurredAt: hit.at,
          machine: machine !== null,
          details: { ...hit.details, userAgent: hit.userAgent?.slice(0, 300) ?? null, ...(machine ? { machineReason: machine } : {}) },
        };
        return [{ hit, input }];
      });
      const kept = await this.withoutReplays(candidates);
      await recordEngagements(
        { db: this.db, workflows: this.workflows },
        scope,
        kept.map((c) => c.input),
      );
    }
  }
}
