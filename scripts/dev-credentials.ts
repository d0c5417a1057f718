import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DataSource } from 'typeorm';
import { Tenant } from '../db/entities';
import { createTenant } from '../domain/tenants';
import { encodeId } from '../lib/ids';

export interface DevCredentials {
  tenantId: string;
  email: string;
  password: string;
  liveKey: string;
  sandboxKey: string;
}

/**
 * The dev tenant is created on first start. Keys are stored hashed in the database, so the
 * plaintext is kept in DATA_DIR (local dev only, git-ignored) to print it again on later starts.
 */
export async function ensureDevTenant(db: DataSource, dataDir: string): Promise<{ creds: DevCredentials; created: boolean }> {
  const file = path.join(dataDir, 'dev-credentials.json');
  if (existsSync(file)) {
    const creds = JSON.parse(readFileSync(file, 'utf8')) as DevCredentials;
    const tenants = await db.getRepository(Tenant).count();
    if (tenants > 0) return { creds, created: false };
  }
  const email = 'dev@example.com';
  const created = await createTenant(db, { name: 'Dev Tenant', plan: 'team', ownerEmail: email, ownerPassword: 'dev-password' });
  const creds: DevCredentials = {
    tenantId: encodeId('tenant', created.tenant.id),
    email,
    password: created.password,
    liveKey: created.liveKey,
    sandboxKey: created.sandboxKey,
  };
  writeFileSync(file, JSON.stringify(creds, null, 2), { mode: 0o600 });
  return { creds, created: true };
}
