import { z } from 'zod';
import { encodedId, nonBlank, PaginationQuery } from './common';

export const TeamCreate = z
  .object({
    name: nonBlank(100),
    description: z.string().trim().max(1000).optional(),
    memberIds: z.array(encodedId('user')).max(500).default([]),
  })
  .strict()
  .meta({ id: 'TeamCreate' });
export type TeamCreate = z.output<typeof TeamCreate>;

export const TeamUpdate = TeamCreate.partial()
  .extend({ memberIds: z.array(encodedId('user')).max(500).optional() })
  .strict()
  .meta({ id: 'TeamUpdate' });
export type TeamUpdate = z.output<typeof TeamUpdate>;

export const TeamMembersAdd = z
  .object({ userIds: z.array(encodedId('user')).min(1).max(500) })
  .strict()
  .meta({ id: 'TeamMembersAdd' });

export const Team = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    memberIds: z.array(z.string()),
    memberCount: z.number().int(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Team' });
export type Team = z.output<typeof Team>;

export const TeamListQuery = PaginationQuery.extend({ q: nonBlank(100).optional() });
export const TeamIdParams = z.object({ id: encodedId('team') });
export const TeamMemberParams = z.object({ id: encodedId('team'), userId: encodedId('user') });
