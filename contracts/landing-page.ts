import { z } from 'zod';
import { encodedId, nonBlank, PaginationQuery, uniqueBy } from './common';

const SECTION_TYPES = ['hero', 'features', 'form', 'testimonials', 'cta', 'text'] as const;
const FORM_FIELDS = ['email', 'firstName', 'lastName', 'phone', 'company', 'message'] as const;

const hex = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'Must be a hex color such as #1a2b3c');

/**
 * The public section fields (sectionId, type, label, visible, order) plus optional copy (heading,
 * body, items, form fields, button text): the
 * hosted page is rendered from these, never from free HTML.
 */
export const LandingSection = z
  .object({
    sectionId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'Must be 1-64 letters, digits, _ or -'),
    type: z.enum(SECTION_TYPES),
    label: nonBlank(200),
    visible: z.boolean(),
    order: z.number().int().min(0),
    heading: z.string().max(200).optional(),
    body: z.string().max(5000).optional(),
    items: z.array(nonBlank(300)).max(12).optional(),
    fields: z
      .array(z.enum(FORM_FIELDS))
      .min(1)
      .max(6)
      .optional()
      .meta({ description: "A form section's fields: the email is one of them", contains: { const: 'email' } }),
    buttonText: nonBlank(60).optional(),
  })
  .strict()
  .meta({ id: 'LandingSection' });
export type LandingSection = z.output<typeof LandingSection>;

const fields = {
  name: nonBlank(200),
  description: z.string().max(2000).default(''),
  slug: z
    .string()
    .max(80)
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'Must be URL-safe: lower-case letters and digits separated by single hyphens'),
  sections: z
    .array(LandingSection)
    .min(1)
    .max(20)
    .meta({ description: 'Each section has its own sectionId and order', ...uniqueBy('sectionId', 'order') }),
  seo: z.object({ title: nonBlank(120), metaDescription: z.string().max(320) }).strict(),
  style: z
    .object({
      primaryColor: hex,
      backgroundColor: hex,
      // A font stack only: letters, digits, spaces, commas, quotes and hyphens (it lands in CSS).
      fontFamily: z
        .string()
        .max(120)
        .regex(/^[A-Za-z0-9 ,'-]+$/, 'Must be a font stack such as "Inter, sans-serif"'),
    })
    .strict(),
  content: z.string().max(200_000),
};

function checkSections(d: { sections: LandingSection[] }, ctx: z.RefinementCtx) {
  const ids = new Set<string>();
  const orders = new Set<number>();
  d.sections.forEach((s, i) => {
    if (ids.has(s.sectionId)) ctx.addIssue({ code: 'custom', path: ['sections', i, 'sectionId'], message: 'Duplicate sectionId' });
    if (orders.has(s.order)) ctx.addIssue({ code: 'custom', path: ['sections', i, 'order'], message: 'Duplicate order' });
    ids.add(s.sectionId);
    orders.add(s.order);
    if (s.type === 'form' && s.fields && !s.fields.includes('email')) {
      ctx.addIssue({ code: 'custom', path: ['sections', i, 'fields'], message: 'A form collects at least the email' });
    }
  });
}

/** A landing page: the body of POST /v1/landing-pages and the output of generate-landing-page. */
export const LandingPageDefinition = z.object(fields).strict().superRefine(checkSections).meta({ id: 'LandingPageDefinition' });
export type LandingPageDefinition = z.output<typeof LandingPageDefinition>;

/** PATCH /v1/landing-pages/:id: any of the definition's fields; sections, seo and style are replaced whole. */
export const LandingPageUpdate = z
  .object({ ...fields, description: z.string().max(2000) })
  .partial()
  .strict()
  .superRefine((d, ctx) => d.sections && checkSections({ sections: d.sections }, ctx))
  .meta({ id: 'LandingPageUpdate' });
export type LandingPageUpdate = z.output<typeof LandingPageUpdate>;

export const LandingPageRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    slug: z.string(),
    sections: z.array(LandingSection),
    seo: fields.seo,
    style: fields.style,
    content: z.string(),
    /** Where the hosted page is served (public, no auth). */
    publicPath: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'LandingPageRecord' });
export type LandingPageRecord = z.output<typeof LandingPageRecord>;

export const LandingPageListQuery = PaginationQuery;
export const LandingPageIdParams = z.object({ id: encodedId('landingPage') });
