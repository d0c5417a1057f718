import { In } from 'typeorm';
import { Addon, AddonInstallation } from '../db/entities';
import type { AddonInstallStatus } from '../db/entities/addon';
import { unscoped } from '../db/unscoped';
import { AppError, notFound } from '../lib/errors';
import { encodeId } from '../lib/ids';
import type { AddonCatalogQuery, InstalledAddonsQuery } from '../contracts/addon';
import type { DomainContext } from './context';
import { pageOf } from './scoped-lookups';
import { unitOfWork } from './unit-of-work';
import { nextState, type Transitions } from './transitions';

/** install creates (or revives an uninstalled) installation; the rest move it. */
export const ADDON_ACTIONS = {
  activate: { from: ['installed', 'suspended'], to: 'active' },
  suspend: { from: ['active'], to: 'suspended' },
  uninstall: { from: ['installed', 'active', 'suspended'], to: 'uninstalled' },
} as const satisfies Transitions<AddonInstallStatus, string>;
export type AddonAction = keyof typeof ADDON_ACTIONS;

export interface InstalledAddon {
  installation: AddonInstallation;
  addon: Addon;
}

/** The catalog is global: the same for every tenant and environment. */
export async function listCatalog(ctx: DomainContext, f: AddonCatalogQuery) {
  const qb = unscoped(ctx.db).select(Addon, 'a');
  if (f.category) qb.andWhere('lower(a.category) = lower(:category)', { category: f.category });
  if (f.search) {
    const like = `%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    qb.andWhere('(a.name ILIKE :like OR a.description ILIKE :like)', { like });
  }
  qb.orderBy('a.name', 'ASC').addOrderBy('a.id', 'ASC');
  return pageOf(qb, f.page, f.limit);
}

async function catalogAddon(ctx: DomainContext, addonId: string): Promise<Addon> {
  const addon = await unscoped(ctx.db).repo(Addon).findOneBy({ id: addonId });
  if (!addon) throw notFound('Addon');
  return addon;
}

export async function installAddon(ctx: DomainContext, addonId: string): Promise<InstalledAddon> {
  const addon = await catalogAddon(ctx, addonId);
  const installation = await unitOfWork(ctx, async (tx) => {
    const installs = tx.repo(AddonInstallation);
    const existing = await installs.select('i').andWhere('i.addon_id = :addonId', { addonId }).setLock('pessimistic_write').getOne();
    if (!existing) return installs.insert({ addonId, status: 'installed', config: {}, installedAt: new Date() });
    if (existing.status !== 'uninstalled') {
      throw new AppError('conflict', `Cannot install an addon that is ${existing.status} (only one never installed here, or uninstalled)`);
    }
    Object.assign(existing, { status: 'installed', config: {}, installedAt: new Date() });
    return installs.save(existing);
  });
  return { installation, addon };
}

/** Runs `change` on the scope's installation of the addon (404 when it was never installed here). */
async function changeInstallation(ctx: DomainContext, addonId: string, change: (i: AddonInstallation) => void): Promise<InstalledAddon> {
  const addon = await catalogAddon(ctx, addonId);
  const installation = await unitOfWork(ctx, async (tx) => {
    const installs = tx.repo(AddonInstallation);
    const found = await installs.select('i').andWhere('i.addon_id = :addonId', { addonId }).setLock('pessimistic_write').getOne();
    if (!found)
      throw new AppError(
        'not_found',
        `This addon is not installed here; install it first (POST /v1/addons/${encodeId('addon', addonId)}/install)`,
      );
    change(found);
    return installs.save(found);
  });
  return { installation, addon };
}

export const transitionAddon = (ctx: DomainContext, addonId: string, action: AddonAction) =>
  changeInstallation(ctx, addonId, (i) => {
    i.status = nextState('addon', ADDON_ACTIONS, i.status, action);
  });

/** Configuration replaces the whole object; an uninstalled addon has none to change. */
export const configureAddon = (ctx: DomainContext, addonId: string, config: Record<string, unknown>) =>
  changeInstallation(ctx, addonId, (i) => {
    if (i.status === 'uninstalled') throw new AppError('conflict', 'Cannot configure an addon that is uninstalled');
    i.config = config;
  });

export async function listInstalled(ctx: DomainContext, f: InstalledAddonsQuery) {
  const qb = ctx.data.repo(AddonInstallation).select('i');
  if (f.status) qb.andWhere('i.status IN (:...status)', { status: f.status });
  else qb.andWhere("i.status <> 'uninstalled'");
  qb.orderBy('i.installed_at', 'DESC').addOrderBy('i.id', 'DESC');
  const { rows, total } = await pageOf(qb, f.page, f.limit);
  const addons = rows.length
    ? await unscoped(ctx.db)
        .repo(Addon)
        .findBy({ id: In(rows.map((r) => r.addonId)) })
    : [];
  const byId = new Map(addons.map((a) => [a.id, a]));
  return { rows: rows.map((installation) => ({ installation, addon: byId.get(installation.addonId) as Addon })), total };
}
