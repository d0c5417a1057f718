import { Client } from 'pg';
import { logger } from '../../lib/logger';
import type { ResolvedKey } from './resolve-api-key';

const TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;
export const REVOCATION_CHANNEL = 'api_key_revoked';

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

  /** Subscribes to revocations from every process sharing the database. */
  async listen(databaseUrl: string): Promise<void> {
    const client = new Client({ connectionString: databaseUrl, application_name: 'lead-engagement-key-cache' });
    client.on('notification', (msg) => {
      if (msg.channel === REVOCATION_CHANNEL && msg.payload) this.evict(msg.payload);
    });
    client.on('error', (err) => {
      logger.warn({ err }, 'API key revocation listener lost its connection; cached keys expire within 30 s');
      this.entries.clear();
      this.listener = null;
    });
    await client.connect();
    await client.query(`LISTEN ${REVOCATION_CHANNEL}`);
    this.listener = client;
  }

  async close(): Promise<void> {
    await this.listener?.end().catch(() => undefined);
    this.listener = null;
  }
}
