import { z } from 'zod';
import { FORM_FIELD_TYPES, LEAD_FIELDS } from '../db/entities/form';
import { encodedId, nonBlank, PaginationQuery, uniqueBy } from './common';
import { anyOf } from './list-filters';

const FormFieldSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,49}$/, 'Must start with a letter; letters, digits and _ only'),
    label: nonBlank(200),
    type: z.enum(FORM_FIELD_TYPES).default('text'),
    required: z.boolean().default(false),
    options: z.array(z.string().min(1).max(200)).min(1).max(50).optional(),
    mapsTo: z.enum(LEAD_FIELDS).optional(),
  })
  .strict()
  // A select needs options, as the document states it.
  .meta({ anyOf: [{ not: { required: ['type'], properties: { type: { const: 'select' } } } }, { required: ['options'] }] });

const fieldList = z
  .array(FormFieldSchema)
  .min(1)
  .max(50)
  .superRefine((fields, ctx) => {
    const names = new Set<string>();
    fields.forEach((f, i) => {
      if (names.has(f.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: 'Duplicate field name' });
      names.add(f.name);
      if (f.type === 'select' && !f.options) ctx.addIssue({ code: 'custom', path: [i, 'options'], message: 'A select needs options' });
    });
    if (!fields.some((f) => f.mapsTo === 'email' && f.required)) {
      ctx.addIssue({ code: 'custom', path: [], message: 'A form needs a required field that maps to the lead email (mapsTo: "email")' });
    }
  })
  // The email rule above, as the document states it (unique names in x-unique-by and the description).
  .meta({
    description: 'Field names are unique; a select field needs options',
    ...uniqueBy('name'),
    contains: { type: 'object', required: ['mapsTo', 'required'], properties: { mapsTo: { const: 'email' }, required: { const: true } } },
  });

const description = z.string().trim().max(1000);

export const FormCreate = z
  .object({
    name: nonBlank(200),
    description: description.default(''),
    fields: fieldList,
    successMessage: nonBlank(500).optional(),
    redirectUrl: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .optional(),
  })
  .strict()
  .meta({ id: 'FormCreate' });
export type FormCreate = z.output<typeof FormCreate>;

export const FormUpdate = FormCreate.partial()
  .extend({
    // Without its create default: a PATCH that leaves the description out keeps it.
    description: description.optional(),
    status: z.enum(['active', 'archived']).optional(),
    redirectUrl: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .nullable()
      .optional(),
  })
  .strict()
  .meta({ id: 'FormUpdate' });
export type FormUpdate = z.output<typeof FormUpdate>;

export const Form = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    fields: z.array(FormFieldSchema),
    status: z.enum(['active', 'archived']),
    successMessage: z.string(),
    redirectUrl: z.string().nullable(),
    landingPageId: z.string().nullable(),
    submissionCount: z.number().int(),
    submitPath: z.string().meta({ description: 'Public endpoint (no auth) that accepts JSON or an HTML form post' }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Form' });
export type Form = z.output<typeof Form>;

export const FormSubmission = z
  .object({
    id: z.string(),
    formId: z.string(),
    leadId: z.string().nullable(),
    fields: z.record(z.string(), z.unknown()),
    createdAt: z.string(),
  })
  .meta({ id: 'FormSubmission' });
export type FormSubmission = z.output<typeof FormSubmission>;

export const FormListQuery = PaginationQuery.extend({ status: anyOf(['active', 'archived']).optional() });
export const FormIdParams = z.object({ id: encodedId('form') });
/** Public submissions name a form, or a landing page whose form section is its form. */
export const PublicFormParams = z.object({ id: z.string().max(40) });
export const SubmissionReceipt = z
  .object({ submissionId: z.string(), leadId: z.string(), message: z.string() })
  .meta({ id: 'SubmissionReceipt' });
