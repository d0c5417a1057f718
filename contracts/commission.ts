import { z } from 'zod';
import { COMMISSION_STATUSES } from '../db/entities/commission';
import { PaginationQuery, currencyCode, encodedId, references } from './common';
import { anyOf } from './list-filters';

/**
 * At most two decimal places, read to a double's 15 significant digits: 0.57 arrives as
 * 0.5700000000000001 from clients that compute it as 57 * 0.01, and 669792285802.68 * 100 is not
 * an integer in floating point, yet both are amounts in cents.
 */
const hasCents = (v: number) => /^-?\d+(\.\d{1,2})?$/.test(String(Number(v.toPrecision(15))));

export const CommissionCreate = z
  .object({
    partnerId: encodedId('partner').meta({ description: 'An approved partner (422 otherwise)', ...references('approvedPartner') }),
    amount: z.number().positive().lt(1e12).refine(hasCents, 'At most two decimal places').meta({ multipleOf: 0.01 }),
    currency: currencyCode,
    note: z.string().trim().max(500).nullable().optional(),
  })
  .strict()
  .meta({ id: 'CommissionCreate' });
export type CommissionCreate = z.output<typeof CommissionCreate>;

export const Commission = z
  .object({
    id: z.string(),
    partnerId: z.string(),
    amount: z.number(),
    currency: z.string(),
    status: z.enum(COMMISSION_STATUSES),
    rate: z.number().nullable().meta({ description: 'Tier rate applied to a won deal (fraction); null for manual records' }),
    leadId: z.string().nullable(),
    opportunityId: z.string().nullable(),
    note: z.string().nullable(),
    paidAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Commission' });
export type Commission = z.output<typeof Commission>;

export const CommissionListQuery = PaginationQuery.extend({
  partnerId: encodedId('partner').optional(),
  status: anyOf(COMMISSION_STATUSES).optional(),
});
export type CommissionListQuery = z.output<typeof CommissionListQuery>;

export const CommissionIdParams = z.object({ id: encodedId('commission') });
