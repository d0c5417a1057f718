import { z } from 'zod';
import { PaginationQuery, encodedId, rangeEnd, rangeStart } from './common';

export const AuditLogEntry = z
  .object({
    id: z.string(),
    action: z.string(),
    resourceType: z.string(),
    resourceId: z.string().nullable(),
    statusCode: z.number().int(),
    apiKeyId: z.string().nullable(),
    keyOwnerId: z.string(),
    actorId: z.string(),
    requestId: z.string(),
    ip: z.string().nullable(),
    environment: z.string(),
    createdAt: z.string(),
  })
  .meta({ id: 'AuditLogEntry' });
export type AuditLogEntry = z.output<typeof AuditLogEntry>;

export const AuditLogQuery = PaginationQuery.extend({
  resourceType: z.string().max(60).optional(),
  resourceId: z.string().max(40).optional(),
  actorId: encodedId('user').optional(),
  apiKeyId: encodedId('apiKey').optional(),
  action: z.string().max(200).optional(),
  createdFrom: rangeStart.optional(),
  createdTo: rangeEnd.optional(),
});
export type AuditLogQuery = z.output<typeof AuditLogQuery>;
