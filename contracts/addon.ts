import { z } from 'zod';
import { ADDON_INSTALL_STATUSES } from '../db/entities/addon';
import { encodedId, nonBlank, PaginationQuery } from './common';
import { anyOf } from './list-filters';

export const AddonCatalogItem = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    category: z.string(),
    version: z.string(),
    pricing: z.object({ type: z.string(), monthlyPrice: z.number() }),
  })
  .meta({ id: 'AddonCatalogItem' });
export type AddonCatalogItem = z.output<typeof AddonCatalogItem>;

export const AddonInstallation = z
  .object({
    id: z.string().meta({ description: 'The catalog addon ID (one installation per addon and environment)' }),
    addon: AddonCatalogItem,
    status: z.enum(ADDON_INSTALL_STATUSES),
    config: z.record(z.string(), z.unknown()),
    installedAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'AddonInstallation' });
export type AddonInstallation = z.output<typeof AddonInstallation>;

export const AddonCatalogQuery = PaginationQuery.extend({
  category: nonBlank(40).optional(),
  search: nonBlank(200).optional().meta({ description: 'Case-insensitive match on name or description' }),
});
export type AddonCatalogQuery = z.output<typeof AddonCatalogQuery>;

export const InstalledAddonsQuery = PaginationQuery.extend({
  status: anyOf(ADDON_INSTALL_STATUSES, 'Without it, every status except uninstalled').optional(),
});
export type InstalledAddonsQuery = z.output<typeof InstalledAddonsQuery>;

export const AddonConfiguration = z
  .object({
    config: z
      .record(z.string().min(1).max(100), z.unknown())
      .refine((c) => JSON.stringify(c).length <= 50_000, 'At most 50 kB of configuration'),
  })
  .strict()
  .meta({ id: 'AddonConfiguration' });

export const AddonIdParams = z.object({ id: encodedId('addon') });
