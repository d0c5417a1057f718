import { z } from 'zod';
import { decodeChangeCursor } from '../lib/change-cursor';
import { references } from './common';
import { Lead } from './lead';
import { Opportunity } from './opportunity';

/** Changes an answer holds at most: a sync pages through a tenant's records ten times as fast as a list's 100. */
const CHANGES_MAX = 1000;

/** The query of a change feed of `noun`s (lead, opportunity): where to go on from, and how many. */
function changesQuery(noun: string) {
  return z.object({
    cursor: z
      .string()
      .max(100)
      .transform((cursor, ctx) => {
        const position = decodeChangeCursor(cursor);
        if (position) return position;
        ctx.addIssue({
          code: 'custom',
          message:
            "Not a cursor of this feed: pass an answer's nextCursor as it was given, or leave cursor out to start from the beginning",
        });
        return z.NEVER;
      })
      .optional()
      .meta({
        description: `Where to go on from: the previous answer's nextCursor. Without it the feed starts at the beginning: every ${noun} there is, then each change after`,
        ...references('changeCursor'),
      }),
    limit: z.coerce.number().int().min(1).max(CHANGES_MAX).default(100),
  });
}

/** A change feed's answer: each change the record (under `key`) as it is now, or a deleted one's ID. */
function changesOf<K extends string, S extends z.ZodObject>(name: string, key: K, record: S, noun: string) {
  const change = z
    .discriminatedUnion('type', [
      z.object({
        type: z.literal('changed'),
        ...({ [key]: record.meta({ description: `The ${noun} as it is now (created or changed since the cursor)` }) } as Record<K, S>),
      }),
      z.object({
        type: z.literal('deleted'),
        id: z.string().meta({ description: `The deleted ${noun}'s ID` }),
        deletedAt: z.string(),
      }),
    ])
    .meta({ id: `${name}Change` });
  return z
    .object({
      changes: z.array(change).meta({
        description: `In the order the changes committed: a ${noun} appears once, as it is now, however often it changed since the cursor; a ${noun} created and deleted since then appears only as deleted`,
      }),
      nextCursor: z.string().meta({ description: 'Pass as cursor to read what comes after; the same cursor again when nothing did' }),
      hasMore: z.boolean().meta({ description: 'true: more changes are there now; read again at once' }),
    })
    .meta({ id: `${name}Changes` });
}

export const LeadChangesQuery = changesQuery('lead');
export const LeadChanges = changesOf('Lead', 'lead', Lead, 'lead');
export const OpportunityChangesQuery = changesQuery('opportunity');
export const OpportunityChanges = changesOf('Opportunity', 'opportunity', Opportunity, 'opportunity');
