import { z } from 'zod';
import { decodeChangeCursor } from '../lib/change-cursor';
import { references } from './common';
import { Lead } from './lead';

/** Changes an answer holds at most: a sync pages through a tenant's leads ten times as fast as a list's 100. */
export const LEAD_CHANGES_MAX = 1000;

export const LeadChangesQuery = z.object({
  cursor: z
    .string()
    .max(100)
    .transform((cursor, ctx) => {
      const position = decodeChangeCursor(cursor);
      if (position) return position;
      ctx.addIssue({
        code: 'custom',
        message: "Not a cursor of this feed: pass an answer's nextCursor as it was given, or leave cursor out to start from the beginning",
      });
      return z.NEVER;
    })
    .optional()
    .meta({
      description:
        "Where to go on from: the previous answer's nextCursor. Without it the feed starts at the beginning: every lead there is, then each change after",
      ...references('changeCursor'),
    }),
  limit: z.coerce.number().int().min(1).max(LEAD_CHANGES_MAX).default(100),
});

export const LeadChange = z
  .discriminatedUnion('type', [
    z.object({
      type: z.literal('changed'),
      lead: Lead.meta({ description: 'The lead as it is now (created or changed since the cursor)' }),
    }),
    z.object({
      type: z.literal('deleted'),
      id: z.string().meta({ description: "The deleted lead's ID" }),
      deletedAt: z.string(),
    }),
  ])
  .meta({ id: 'LeadChange' });

export const LeadChanges = z
  .object({
    changes: z.array(LeadChange).meta({
      description:
        'In the order the changes committed: a lead appears once, as it is now, however often it changed since the cursor; a lead created and deleted since then appears only as deleted',
    }),
    nextCursor: z.string().meta({ description: 'Pass as cursor to read what comes after; the same cursor again when nothing did' }),
    hasMore: z.boolean().meta({ description: 'true: more changes are there now; read again at once' }),
  })
  .meta({ id: 'LeadChanges' });
export type LeadChanges = z.output<typeof LeadChanges>;
