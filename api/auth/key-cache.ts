import { Client } from 'pg';
import { logger } from '../../lib/logger';
import type { ResolvedKey } from './resolve-api-key';

const TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;
export const REVOCATION_CHANNEL = 'api_key_revoked';
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
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, Entry>();
  private listener: Client | null = null;
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

  set(hash: string, key: ResolvedKey, keyExpiresAt: Date | null, now = Date.now()): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(hash, { key, keyExpiresAt: keyExpiresAt?.getTime() ?? null, cachedUntil: now + TTL_MS });
  }

  evict(hash: string): void {
    this.entries.delete(hash);
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
    await listener?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new Client({ connectionString: this.databaseUrl as string, application_name: 'lead-engagement-key-cache' });
    client.on('notification', (msg) => {
      if (msg.channel === REVOCATION_CHANNEL && msg.payload) this.evict(msg.payload);
    });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    await client.connect();
    await client.query(`LISTEN ${REVOCATION_CHANNEL}`);
    this.listener = client;
    // Revocations sent while nobody listened were missed: forget every cached key.
    this.entries.clear();
    if (this.reconnectTimer) logger.info('API key revocation listener reconnected');
    this.reconnectTimer = undefined;
    this.reconnectDelayMs = RECONNECT_MIN_MS;
  }

  /**
   * The listening connection died (database restart, failover, network): forget cached keys and
   * listen again with backoff. Without this a revocation by another API process would never reach
   * this one again, and its revoked keys would keep working for up to the TTL after every request.
   */
  private lost(client: Client, err?: Error): void {
    if (client !== this.listener) return;
    this.listener = null;
    this.entries.clear();
    void client.end().catch(() => undefined);
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
