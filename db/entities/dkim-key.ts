import { Column, Entity, Index } from 'typeorm';
import { TenantOwned } from './tenant-owned';

/**
 * A DKIM signing key a tenant registered for a sending domain, one per selector (a domain holds
 * several while its key is rotated; the one verified last signs). The private key is stored
 * sealed (lib/secret-box.ts, AES-256-GCM under DKIM_KEY_SECRET, bound to tenant, environment and
 * domain) and never returned; the public key is kept in clear for the DNS record it needs.
 */
@Entity({ name: 'dkim_keys' })
@Index('uq_dkim_keys_domain_selector', ['tenantId', 'environment', 'domain', 'selector'], { unique: true })
export class DkimKey extends TenantOwned {
  /** Lower-case, as in the From address. */
  @Column({ type: 'varchar', length: 253 })
  domain: string;

  @Column({ type: 'varchar', length: 63 })
  selector: string;

  @Column({ name: 'private_key_sealed', type: 'text' })
  privateKeySealed: string;

  /** SubjectPublicKeyInfo, base64 DER: the `p=` of the DNS TXT record. */
  @Column({ name: 'public_key', type: 'text' })
  publicKey: string;

  /** `rsa` or `ed25519`: the `k=` of the DNS TXT record. */
  @Column({ name: 'key_type', type: 'varchar', length: 10 })
  keyType: string;

  /** When the key was found published at its selector: the domain is then the tenant's to send from. */
  @Column({ name: 'verified_at', type: 'timestamptz', nullable: true })
  verifiedAt: Date | null;
}
