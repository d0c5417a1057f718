import type { Addon, AddonInstallation as InstallationEntity } from '../../db/entities';
import { encodeId } from '../../lib/ids';
import type { AddonCatalogItem, AddonInstallation } from '../../contracts/addon';

export function serializeAddon(a: Addon): AddonCatalogItem {
  return {
    id: encodeId('addon', a.id),
    name: a.name,
    description: a.description,
    category: a.category,
    version: a.version,
    pricing: { type: a.pricingType, monthlyPrice: a.monthlyPrice },
  };
}

export function serializeInstallation({ installation: i, addon }: { installation: InstallationEntity; addon: Addon }): AddonInstallation {
  return {
    id: encodeId('addon', i.addonId),
    addon: serializeAddon(addon),
    status: i.status,
    config: i.config,
    installedAt: i.installedAt.toISOString(),
    updatedAt: i.updatedAt.toISOString(),
  };
}
