import type { CustomLimits, Plan, Tenant } from '../db/entities/tenant';

/** Spec part 8. Enterprise tenants carry their own numbers (tenants.custom_limits). */
export const PLAN_LIMITS: Record<Exclude<Plan, 'enterprise'>, CustomLimits> = {
  free: { monthlyCalls: 1_000, perMinute: 60, burst: 10 },
  starter: { monthlyCalls: 10_000, perMinute: 300, burst: 30 },
  pro: { monthlyCalls: 100_000, perMinute: 1_000, burst: 100 },
  team: { monthlyCalls: 500_000, perMinute: 5_000, burst: 500 },
};

/** Enterprise without custom numbers gets ten times the Team plan until sales sets them. */
const ENTERPRISE_DEFAULT: CustomLimits = { monthlyCalls: 5_000_000, perMinute: 50_000, burst: 5_000 };

export function limitsFor(tenant: Pick<Tenant, 'plan' | 'customLimits'>): CustomLimits {
  if (tenant.plan === 'enterprise') return tenant.customLimits ?? ENTERPRISE_DEFAULT;
  return PLAN_LIMITS[tenant.plan];
}
