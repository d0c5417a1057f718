import { z } from 'zod';
import { SUPPRESSION_REASONS } from '../db/entities/email-suppression';
import { emailField, encodedId, PaginationQuery } from './common';
import { anyOf } from './list-filters';

/** An address that gets no marketing email (unsubscribed) or no email at all (bounced), whichever lead carries it. */
export const Suppression = z
  .object({
    id: z.string(),
    email: z.string().meta({ description: 'The address, normalised (trimmed, lower case)' }),
    reason: z.enum(SUPPRESSION_REASONS).meta({ description: 'bounced outranks unsubscribed: a later unsubscribe never weakens a bounce' }),
    createdAt: z.string().meta({ description: 'When the address was first suppressed' }),
    updatedAt: z.string(),
  })
  .meta({ id: 'Suppression' });
export type Suppression = z.output<typeof Suppression>;

export const SuppressionListQuery = PaginationQuery.extend({
  reason: anyOf(SUPPRESSION_REASONS).optional(),
  email: emailField.optional().meta({ description: 'Exact address (compared normalised)' }),
});
export type SuppressionListQuery = z.output<typeof SuppressionListQuery>;

export const SuppressionIdParams = z.object({ id: encodedId('suppression') });

export const SuppressionCreate = z
  .object({
    email: emailField,
    reason: z.enum(SUPPRESSION_REASONS).default('unsubscribed').meta({
      description:
        'unsubscribed (default): an opt-out received elsewhere (by phone, by reply, from another provider); bounced: an address known to be dead',
    }),
  })
  .strict()
  .meta({ id: 'SuppressionCreate' });
export type SuppressionCreate = z.output<typeof SuppressionCreate>;
