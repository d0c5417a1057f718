/**
 * Scopes are `<resource>:read|write`, `*:read` or `*`. A write scope includes read on the same
 * resource, as with Stripe's restricted keys.
 */
export function hasScope(granted: readonly string[], required: string | undefined): boolean {
  if (!required) return true;
  if (granted.includes('*') || granted.includes(required)) return true;
  const [resource, action] = required.split(':');
  return action === 'read' && (granted.includes(`${resource}:write`) || granted.includes('*:read'));
}

/** A key may only hand out scopes it holds itself. */
export function isSubset(requested: readonly string[], granted: readonly string[]): boolean {
  return requested.every((s) =>
    s === '*' ? granted.includes('*') : s === '*:read' ? granted.includes('*') || granted.includes('*:read') : hasScope(granted, s),
  );
}
