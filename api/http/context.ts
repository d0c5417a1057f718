import type { CustomLimits } from '../../db/entities/tenant';
import type { Environment } from '../../db/entities/tenant-owned';
import type { TenantScope } from '../../db/scoped-repository';

export interface AuthContext extends TenantScope {
  tenantId: string;
  environment: Environment;
  method: 'api_key' | 'jwt';
  apiKeyId: string | null;
  /** The key's owner (or the JWT's user): always recorded in the audit log. */
  ownerUserId: string;
  /** The user the request acts as: the owner, or the X-On-Behalf-Of user. */
  actorUserId: string;
  scopes: string[];
  limits: CustomLimits;
}

interface RequestContext {
  requestId: string;
  auth?: AuthContext;
  /** Gives the tenant's in-flight slot back before the request ends (api/middleware/tenant-fair-share.ts). */
  leaveFairShare?: () => void;
  /** The same, but only while no other tenant or environment is using the process (its share is not shrunk). */
  leaveFairShareWhileAlone?: () => void;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      ctx: RequestContext;
    }
  }
}
