import { In, type DataSource } from 'typeorm';
import { Message } from '../../db/entities';
import { scoped, type TenantScope } from '../../db/scoped-repository';
import { logger } from '../../lib/logger';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import { machineReason, machineRulesOf } from './machine-traffic';
import { recordEngagements } from './record-engagement';

export interface TrackingHit {
  scope: TenantScope;
  type: 'email_open' | 'link_click';
  messageId: string;
  method: string;
  userAgent: string | undefined;
  at: Date;
  details?: Record<string, unknown>;
}

export interface TrackingHitsOptions {
  flushEveryMs?: number;
  /** Hits held at most; past it new hits are dropped (and counted in the log) rather than queued. */
  capacity?: number;
}

/**
 * Opens and clicks are answered at once and recorded in batches (DESIGN 8: no database write on
 * the pixel's hot path): every 100 ms, one query loads the batch's messages and one statement per
 * tenant stores its events, which then signal their enrollments. The cost is durability: hits of
 * the last 100 ms are lost if the process dies, which tracking (already lossy: images blocked,
 * links copied) tolerates. Unsubscribes are never batched.
 */
export class TrackingHits {
  private buffer: TrackingHit[] = [];
  private dropped = 0;
  private flushing: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout;
  private readonly capacity: number;

  constructor(
    private readonly db: DataSource,
    private readonly workflows: WorkflowStarter,
    opts: TrackingHitsOptions = {},
  ) {
    this.capacity = opts.capacity ?? 50_000;
    this.timer = setInterval(() => void this.flush(), opts.flushEveryMs ?? 100);
    this.timer.unref();
  }

  add(hit: TrackingHit): void {
    if (this.buffer.length >= this.capacity) this.dropped++;
    else this.buffer.push(hit);
  }

  /** Records everything added so far (shutdown, tests). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
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

  private async record(batch: TrackingHit[]): Promise<void> {
    const byScope = new Map<string, TrackingHit[]>();
    for (const hit of batch) {
      const key = `${hit.scope.tenantId}:${hit.scope.environment}`;
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
      const inputs = hits.flatMap((hit) => {
        const message = byId.get(hit.messageId);
        if (!message) return []; // deleted since it was sent
        const machine = machineReason(
          { type: hit.type, method: hit.method, userAgent: hit.userAgent, sentAt: message.sentAt, at: hit.at },
          rules,
        );
        return [
          {
            type: hit.type,
            leadId: message.leadId,
            message,
            workflowExecutionId: null,
            occurredAt: hit.at,
            machine: machine !== null,
            details: { ...hit.details, userAgent: hit.userAgent?.slice(0, 300) ?? null, ...(machine ? { machineReason: machine } : {}) },
          },
        ];
      });
      await recordEngagements({ db: this.db, workflows: this.workflows }, scope, inputs);
    }
  }
}
