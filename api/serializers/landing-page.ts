import type { LandingPage } from '../../db/entities';
import { encodeId } from '../../lib/ids';
import type { LandingPageRecord } from '../../contracts/landing-page';

/** Where the hosted page lives: live pages at /p/<tenantId>/<slug>, sandbox ones under /p/sandbox/. */
function publicPagePath(p: Pick<LandingPage, 'tenantId' | 'environment' | 'slug'>): string {
  const tenant = encodeId('tenant', p.tenantId);
  return p.environment === 'live' ? `/p/${tenant}/${p.slug}` : `/p/sandbox/${tenant}/${p.slug}`;
}

export function serializeLandingPage(p: LandingPage): LandingPageRecord {
  return {
    id: encodeId('landingPage', p.id),
    name: p.name,
    description: p.description,
    slug: p.slug,
    sections: p.sections,
    seo: p.seo,
    style: p.style,
    content: p.content,
    publicPath: publicPagePath(p),
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}
