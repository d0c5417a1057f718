import { z } from 'zod';
import { emailField } from './common';
import { User } from './user';

export const LoginRequest = z
  .object({
    email: emailField,
    password: z.string().min(1).max(200),
    tenantId: z.string().max(40).optional().meta({ description: 'Needed only when the email belongs to several tenants' }),
  })
  .strict()
  .meta({ id: 'LoginRequest' });

export const LoginResponse = z
  .object({
    accessToken: z.string(),
    tokenType: z.literal('Bearer'),
    expiresIn: z.number().int(),
    tenantId: z.string().meta({ description: 'Send as X-Tenant-Id with the token' }),
    user: User,
    scopes: z.array(z.string()).meta({
      description: "What the token may do, from the user's role (as an API key's scopes): the dashboard leaves out what it cannot",
    }),
  })
  .meta({ id: 'LoginResponse' });
