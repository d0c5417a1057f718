import { Form, type LandingPage } from '../../db/entities';
import type { FormField } from '../../db/entities/form';
import type { ScopedData } from '../../db/scoped-data';

const LANDING_FIELD: Record<string, FormField> = {
  email: { name: 'email', label: 'Email', type: 'email', required: true, mapsTo: 'email' },
  firstName: { name: 'firstName', label: 'First name', type: 'text', required: false, mapsTo: 'firstName' },
  lastName: { name: 'lastName', label: 'Last name', type: 'text', required: false, mapsTo: 'lastName' },
  phone: { name: 'phone', label: 'Phone', type: 'tel', required: false, mapsTo: 'phone' },
  company: { name: 'company', label: 'Company', type: 'text', required: false },
  message: { name: 'message', label: 'Message', type: 'textarea', required: false },
};

/** The names a page's form section collects, or null when the page has no form section. */
function formFieldNames(page: Pick<LandingPage, 'sections'>): string[] | null {
  const section = page.sections.find((s) => s.type === 'form');
  return section ? (section.fields ?? ['email', 'firstName', 'lastName']) : null;
}

/** The fields of the form a page's form section becomes, or null when the page has none. */
export function pageFormFields(page: Pick<LandingPage, 'sections'>): FormField[] | null {
  return (
    formFieldNames(page)
      ?.map((n) => LANDING_FIELD[n])
      .filter(Boolean) ?? null
  );
}

/**
 * After a page's edit, the form its section became (if a visitor ever submitted it) follows: it
 * collects the section's new fields (only if those changed, so an edit of the form's own fields
 * through /v1/forms survives an edit of the page's copy), is archived when the section goes and
 * active again when a section comes back. A deleted page (`after` null) archives it.
 */
export async function syncPageForm(tx: ScopedData, before: LandingPage, after: LandingPage | null): Promise<void> {
  const forms = tx.repo(Form);
  const form = await forms.findOne({ landingPageId: before.id });
  if (!form) return;
  const was = formFieldNames(before);
  const now = after ? formFieldNames(after) : null;
  if (!now) form.status = 'archived';
  else {
    if (!was) form.status = 'active';
    if (was?.join() !== now.join()) form.fields = pageFormFields(after!)!;
  }
  await forms.save(form);
}
