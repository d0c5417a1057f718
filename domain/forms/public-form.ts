import type { DataSource } from 'typeorm';
import { Form, LandingPage } from '../../db/entities';
import { decodeId } from '../../lib/ids';
import { ScopedData } from '../../db/scoped-data';
import { unscoped } from '../../db/unscoped';
import { pageFormFields } from './page-form';

/**
 * The form behind a public submission path. The ID is a form's, or a landing page's: a landing
 * page's form section becomes a form of its own on first use (one per page), so its submissions
 * have a formId like any other. Unknown and archived forms are null (404).
 */
export async function resolvePublicForm(db: DataSource, publicId: string): Promise<Form | null> {
  const formId = decodeId('form', publicId);
  if (formId) {
    const form = await unscoped(db).repo(Form).findOneBy({ id: formId });
    return form?.status === 'active' ? form : null;
  }
  const pageId = decodeId('landingPage', publicId);
  if (!pageId) return null;
  const existing = await unscoped(db).repo(Form).findOneBy({ landingPageId: pageId });
  if (existing) return existing.status === 'active' ? existing : null;
  const page = await unscoped(db).repo(LandingPage).findOneBy({ id: pageId });
  const fields = page && pageFormFields(page);
  if (!fields) return null;
  // The page's own tenant and environment: the form is created in the scope the page belongs to.
  await new ScopedData(db.manager, { tenantId: page.tenantId, environment: page.environment }).repo(Form).insertIgnoringConflicts([
    {
      name: `${page.name} form`,
      description: `Form section of landing page ${page.slug}`,
      fields,
      landingPageId: page.id,
    },
  ]);
  return unscoped(db).repo(Form).findOneBy({ landingPageId: pageId });
}
