import { z } from 'zod';
import { ENVIRONMENTS } from '../db/entities/tenant-owned';
import { encodedId, isoDateTime, nonBlank, PaginationQuery } from './common';
import { anyOf } from './list-filters';

const SCOPE_PATTERN = /^(\*|\*:read|[a-z_-]+:(read|write))$/;

export const ApiKeyCreate = z
  .object({
    name: nonBlank(100),
    environment: z
      .enum(ENVIRONMENTS)
      .optional()
      .meta({ description: "The caller's own environment (the default); a key cannot create keys for the other environment" }),
    scopes: z.array(z.string().regex(SCOPE_PATTERN, 'Must be *, *:read or <resource>:read|write')).min(1).max(50).default(['*']),
    expiresAt: isoDateTime
      .refine((v) => new Date(v).getTime() > Date.now(), 'Must be in the future')
      .optional()
      .meta({ description: 'When the key stops working; must be in the future (422 otherwise)', 'x-future-only': true }),
  })
  .strict()
  .meta({ id: 'ApiKeyCreate' });
export type ApiKeyCreate = z.output<typeof ApiKeyCreate>;

export const ApiKey = z
  .object({
    id: z.string(),
    name: z.string(),
    keyPrefix: z.string(),
    environment: z.enum(ENVIRONMENTS),
    status: z.enum(['active', 'revoked']),
    scopes: z.array(z.string()),
    createdBy: z.string(),
    expiresAt: z.string().nullable(),
    lastUsedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'ApiKey' });
export type ApiKey = z.output<typeof ApiKey>;

export const ApiKeyCreated = ApiKey.extend({ fullKey: z.string().meta({ description: 'Shown only in this response' }) }).meta({
  id: 'ApiKeyCreated',
});

export const ApiKeyListQuery = PaginationQuery.extend({ status: anyOf(['active', 'revoked']).optional() });
export const ApiKeyIdParams = z.object({ id: encodedId('apiKey') });
