/** Scopes a dashboard (JWT) user gets from their role. API keys carry their own scopes. */
const ROLE_SCOPES: Record<string, string[]> = {
  admin: ['*'],
  manager: ['*'],
  member: ['*:read', 'leads:write', 'opportunities:write', 'tasks:write', 'files:write'],
  viewer: ['*:read'],
};

export const ROLES = Object.keys(ROLE_SCOPES) as [string, ...string[]];

export function scopesForRole(roleId: string): string[] {
  return ROLE_SCOPES[roleId] ?? ROLE_SCOPES.viewer;
}
