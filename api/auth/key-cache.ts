import { listen, type Subscription } from '../../db/notifications';
import { parseRevocation, REVOCATION_CHANNEL } from '../../lib/auth/key-revocation';
import { logger } from '../../lib/logger';
import type { ResolvedKey } from './resolve-api-key';

const TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;
const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 5_000;

interface Entry {
  key: ResolvedKey;
  keyExpiresAt: number | null;
  cachedUntil: number;
}

/**
 * Resolved API keys by hash, so a request does not pay a database round trip to authenticate.
 * Revocation must still be immediate everywhere: revoking sends NOTIFY on REVOCATION_CHANNEL and
 * every API process listening evicts the key at once; the TTL bounds staleness should a
 * notification be missed (e.g. while the listener reconnects). Unknown keys are never cached.
 *
 * A lookup races revocation: it may read a key as active, then a revocation commits and its NOTIFY
 * evicts (nothing yet), then the lookup caches the stale active key for the whole TTL. So every
 * eviction advances `generation`, a lookup notes the generation before it reads the database, and
 * `set` drops the result when an eviction happened in between.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly lookups = new Map<string, Promise<ResolvedKey | null>>();
  private evictions = 0;
  private listener: Subscription | null = null;
  private databaseUrl: string | null = null;
  private closed = false;
  private reconnectDelayMs = RECONNECT_MIN_MS;
  private reconnectTimer: NodeJS.Timeout | undefined;

  get(hash: string, now = Date.now()): ResolvedKey | null {
    const e = this.entries.get(hash);
    if (!e) return null;
    if (e.cachedUntil <= now || (e.keyExpiresAt !== null && e.keyExpiresAt <= now)) {
      this.entries.delete(hash);
      return null;
    }
    return e.key;
  }

  /**
   * The key from `lookup`, run once however many requests miss the cache for `hash` at the same
   * time: a burst on a cold cache (a new process, an integration's first 50 concurrent calls) costs
   * one query, not one per request ahead of everyone else's in the pool. An eviction drops the
   * lookups under way, so a request that arrives after a revocation never joins one that began before.
   */
  async resolve(hash: string, lookup: () => Promise<ResolvedKey | null>): Promise<ResolvedKey | null> {
    const cached = this.get(hash);
    if (cached) return cached;
    const joined = this.lookups.get(hash);
    if (joined) return joined;
    const pending = lookup().finally(() => {
      if (this.lookups.get(hash) === pending) this.lookups.delete(hash);
    });
    this.lookups.set(hash, pending);
    return pending;
  }

  /** Advances on every eviction; note it before a lookup and hand it to `set`. */
  get generation(): number {
    return this.evictions;
  }

  /** Caches a looked-up key, unless something was evicted since `generation` (the lookup may be stale). */
  set(hash: string, key: ResolvedKey, keyExpiresAt: Date | null, generation: number, now = Date.now()): void {
    if (generation !== this.evictions) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(hash, { key, keyExpiresAt: keyExpiresAt?.getTime() ?? null, cachedUntil: now + TTL_MS });
  }

  evict(hash: string): void {
    this.evictions++;
    this.lookups.clear();
    this.entries.delete(hash);
  }

  /** Forgets every key `ownerUserId` owns (the user was deactivated). */
  evictOwner(ownerUserId: string): void {
    this.evictions++;
    this.lookups.clear();
    for (const [hash, e] of this.entries) if (e.key.ownerUserId === ownerUserId) this.entries.delete(hash);
  }

  private clear(): void {
    this.evictions++;
    this.lookups.clear();
    this.entries.clear();
  }

  /** Subscribes to revocations from every process sharing the database, and stays subscribed. */
  async listen(databaseUrl: string): Promise<void> {
    this.databaseUrl = databaseUrl;
    this.closed = false;
    await this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    const listener = this.listener;
    this.listener = null;
    await listener?.close();
  }

  private async connect(): Promise<void> {
    const subscription: Subscription = await listen(REVOCATION_CHANNEL, {
      databaseUrl: this.databaseUrl as string,
      applicationName: 'lead-engagement-key-cache',
      onMessage: (payload) => {
        const revoked = parseRevocation(payload);
        if ('keyHash' in revoked) this.evict(revoked.keyHash);
        else this.evictOwner(revoked.ownerUserId);
      },
      // Before listen() returns nothing is lost: a failure rejects the call.
      onLost: (err) => this.lost(subscription, err),
    });
    this.listener = subscription;
    // Revocations sent while nobody listened were missed: forget every cached key.
    this.clear();
    if (this.reconnectTimer) logger.info('API key revocation listener reconnected');
    this.reconnectTimer = undefined;
    this.reconnectDelayMs = RECONNECT_MIN_MS;
  }

  /**
   * The listening connection died (database restart, failover, network): forget cached keys and
   * listen again with backoff. Without this a revocation by another API process would never reach
   * this one again, and its revoked keys would keep working for up to the TTL after every request.
   */
  private lost(subscription: Subscription, err?: Error): void {
    if (subscription !== this.listener) return;
    this.listener = null;
    this.clear();
    logger.warn({ err }, 'API key revocation listener lost its connection; reconnecting');
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    this.reconnectTimer = setTimeout(() => {
      this.connect().catch((err) => {
        logger.warn({ err }, 'API key revocation listener could not reconnect yet');
        this.reconnectDelayMs = Math.min(this.reconnectDelayMs * 2, RECONNECT_MAX_MS);
        this.scheduleReconnect();
      });
    }, this.reconnectDelayMs);
    this.reconnectTimer.unref();
  }
}
