import type { Lead } from '../../db/entities';

/** What `{{...}}` placeholders may name: the lead's own fields, also under `lead.`, and its custom fields. */
export function leadVariables(lead: Lead): Record<string, unknown> {
  const fields = {
    firstName: lead.firstName,
    lastName: lead.lastName,
    email: lead.email,
    phone: lead.phone ?? '',
    status: lead.status,
    score: lead.score,
    customFields: lead.customFields,
  };
  return { ...fields, lead: fields };
}
