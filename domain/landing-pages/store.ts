import type { LandingPageDefinition } from '../../contracts/landing-page';
import { LandingPage } from '../../db/entities';
import { scoped, type TenantScope } from '../../db/scoped-repository';
import { AppError, notFound } from '../../lib/errors';
import type { DomainContext } from '../context';

export async function createLandingPage(ctx: DomainContext, input: LandingPageDefinition): Promise<LandingPage> {
  const pages = ctx.data.repo(LandingPage);
  if (await pages.findOne({ slug: input.slug })) {
    throw new AppError('conflict', `A landing page with slug "${input.slug}" already exists`, [
      { field: 'slug', message: 'Already in use' },
    ]);
  }
  try {
    return await pages.insert(input);
  } catch (err) {
    // Two concurrent creates with one slug: the unique index decides, the loser gets the same 409.
    if ((err as { code?: string }).code === '23505') {
      throw new AppError('conflict', `A landing page with slug "${input.slug}" already exists`, [
        { field: 'slug', message: 'Already in use' },
      ]);
    }
    throw err;
  }
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

export async function deleteLandingPage(ctx: DomainContext, id: string): Promise<LandingPage> {
  const page = await getLandingPage(ctx, id);
  await ctx.data.repo(LandingPage).deleteById(id);
  return page;
}

/** The public page lookup: by tenant, environment and slug (no API key; the URL is the address). */
export function findPublishedPage(db: DomainContext['db'], scope: TenantScope, slug: string): Promise<LandingPage | null> {
  return scoped(db.manager, LandingPage, scope).findOne({ slug });
}
