import type { LandingPageDefinition, LandingPageUpdate } from '../../contracts/landing-page';
import { LandingPage } from '../../db/entities';
import type { ScopedData } from '../../db/scoped-data';
import { scoped, type TenantScope } from '../../db/scoped-repository';
import { AppError, notFound } from '../../lib/errors';
import type { DomainContext } from '../context';
import { syncPageForm } from '../forms/page-form';
import { findForUpdate } from '../scoped-lookups';
import { unitOfWork } from '../unit-of-work';

const slugTaken = (slug: string) =>
  new AppError('conflict', `A landing page with slug "${slug}" already exists`, [{ field: 'slug', message: 'Already in use' }]);

/** Runs a write that may take a slug; two concurrent writes of one slug: the unique index decides, the loser gets the same 409. */
async function claimingSlug<T>(data: ScopedData, slug: string | undefined, id: string | null, write: () => Promise<T>): Promise<T> {
  const holder = slug === undefined ? null : await data.repo(LandingPage).findOne({ slug });
  if (holder && holder.id !== id) throw slugTaken(slug!);
  try {
    return await write();
  } catch (err) {
    if ((err as { code?: string }).code === '23505' && slug !== undefined) throw slugTaken(slug);
    throw err;
  }
}

export function createLandingPage(ctx: DomainContext, input: LandingPageDefinition): Promise<LandingPage> {
  return claimingSlug(ctx.data, input.slug, null, () => ctx.data.repo(LandingPage).insert(input));
}

/** A page's edit; the form its form section became follows the section (syncPageForm). */
export function updateLandingPage(ctx: DomainContext, id: string, patch: LandingPageUpdate): Promise<LandingPage> {
  return unitOfWork(ctx, async (tx) => {
    const page = await findForUpdate(tx, LandingPage, id, 'Landing page');
    const before = { ...page };
    return claimingSlug(tx, patch.slug, id, async () => {
      const saved = await tx.repo(LandingPage).save(Object.assign(page, patch));
      await syncPageForm(tx, before, saved);
      return saved;
    });
  });
}

export async function listLandingPages(ctx: DomainContext, f: { page: number; limit: number }) {
  const [rows, total] = await ctx.data
    .repo(LandingPage)
    .select('p')
    .orderBy('p.created_at', 'DESC')
    .addOrderBy('p.id', 'DESC')
    .page(f.page, f.limit);
  return { rows, total };
}

export async function getLandingPage(ctx: DomainContext, id: string): Promise<LandingPage> {
  const page = await ctx.data.repo(LandingPage).findById(id);
  if (!page) throw notFound('Landing page');
  return page;
}

/** Deletes a page and archives the form its form section became (a copy of the page left open in a browser then posts to a 404). */
export function deleteLandingPage(ctx: DomainContext, id: string): Promise<LandingPage> {
  return unitOfWork(ctx, async (tx) => {
    const page = await findForUpdate(tx, LandingPage, id, 'Landing page');
    await tx.repo(LandingPage).deleteById(id);
    await syncPageForm(tx, page, null);
    return page;
  });
}

/** The public page lookup: by tenant, environment and slug (no API key; the URL is the address). */
export function findPublishedPage(db: DomainContext['db'], scope: TenantScope, slug: string): Promise<LandingPage | null> {
  return scoped(db.manager, LandingPage, scope).findOne({ slug });
}
