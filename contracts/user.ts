import { z } from 'zod';
import { USER_STATUSES } from '../db/entities/user';
import { ROLES } from '../lib/auth/roles';
import { emailField, encodedId, nonBlank, PaginationQuery, personName, phoneField } from './common';
import { anyOf } from './list-filters';

export const UserCreate = z
  .object({
    email: emailField,
    password: z.string().min(8, 'Must be at least 8 characters').max(200),
    firstName: personName,
    lastName: personName,
    phone: phoneField.optional(),
    roleId: z.enum(ROLES).default('member'),
    teamIds: z.array(encodedId('team')).max(50).default([]),
  })
  .strict()
  .meta({ id: 'UserCreate' });
export type UserCreate = z.output<typeof UserCreate>;

export const UserUpdate = UserCreate.omit({ email: true })
  .partial()
  .extend({
    status: z.enum(USER_STATUSES).optional(),
    teamIds: z.array(encodedId('team')).max(50).optional(),
    roleId: z.enum(ROLES).optional(),
  })
  .strict()
  .meta({ id: 'UserUpdate' });
export type UserUpdate = z.output<typeof UserUpdate>;

export const User = z
  .object({
    id: z.string(),
    email: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    phone: z.string().nullable(),
    roleId: z.string(),
    status: z.enum(USER_STATUSES),
    teamIds: z.array(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'User' });
export type User = z.output<typeof User>;

export const UserListQuery = PaginationQuery.extend({
  status: anyOf(USER_STATUSES).optional(),
  teamId: encodedId('team').optional(),
  q: nonBlank(200).optional(),
});
export const UserIdParams = z.object({ id: encodedId('user') });
