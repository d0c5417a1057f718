import { z } from 'zod';
import { PLANS } from '../db/entities/tenant';

export const Usage = z
  .object({
    plan: z.enum(PLANS),
    period: z.object({ start: z.string(), end: z.string() }),
    calls: z.object({ current: z.number().int(), limit: z.number().int(), remaining: z.number().int() }),
    rateLimit: z.object({ perMinute: z.number().int(), burstPerSecond: z.number().int() }),
  })
  .meta({ id: 'Usage' });
