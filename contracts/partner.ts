import { z } from 'zod';
import { PARTNER_STATUSES, PARTNER_TIERS } from '../db/entities/partner';
import { emailField, encodedId, nonBlank, PaginationQuery, personName, phoneField, references, sortQuery } from './common';
import { anyOf } from './list-filters';

export const ReferralCodeInput = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_-]{4,40}$/, 'Must be a referral code (4-40 letters, digits, - or _)')
  .meta({ description: "A partner's referral code" });

export const PartnerCreate = z
  .object({
    email: emailField,
    firstName: personName,
    lastName: personName,
    phone: phoneField.nullable().optional(),
    company: z.string().trim().max(200).nullable().optional(),
    tier: z.enum(PARTNER_TIERS).optional(),
    referralCode: ReferralCodeInput.optional().meta({
      description: 'Code of an approved partner, who becomes this partner’s upline (an unknown or inactive code is a 422)',
      ...references('referralCode'),
    }),
  })
  .strict()
  .meta({ id: 'PartnerCreate' });
export type PartnerCreate = z.output<typeof PartnerCreate>;

/** Status moves through the action routes; the upline is fixed at registration. */
export const PartnerUpdate = PartnerCreate.omit({ referralCode: true }).partial().strict().meta({ id: 'PartnerUpdate' });
export type PartnerUpdate = z.output<typeof PartnerUpdate>;

export const Partner = z
  .object({
    id: z.string(),
    email: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    phone: z.string().nullable(),
    company: z.string().nullable(),
    tier: z.enum(PARTNER_TIERS),
    status: z.enum(PARTNER_STATUSES),
    parentId: z.string().nullable().meta({ description: 'Upline partner ID' }),
    approvedAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Partner' });
export type Partner = z.output<typeof Partner>;

export const DownlinePartner = Partner.extend({ depth: z.number().int().min(1).meta({ description: '1 = direct referral' }) }).meta({
  id: 'DownlinePartner',
});

export const ReferralCode = z.object({ code: z.string(), partnerId: z.string(), createdAt: z.string() }).meta({ id: 'ReferralCode' });

export const PartnerListQuery = PaginationQuery.extend({
  sort: sortQuery(['createdAt', 'updatedAt', 'lastName', 'company'] as const, 'createdAt:desc'),
  status: anyOf(PARTNER_STATUSES).optional(),
  tier: z.enum(PARTNER_TIERS).optional(),
  q: nonBlank(200).optional().meta({ description: 'Matches email, name or company' }),
});
export type PartnerListQuery = z.output<typeof PartnerListQuery>;

export const PartnerIdParams = z.object({ id: encodedId('partner') });
