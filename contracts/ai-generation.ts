import { z } from 'zod';
import { nonBlank } from './common';
import type { GenerationKind } from './ai-requests';
import { LandingPageDefinition } from './landing-page';
import { StatusDefinition } from './status-definition';
import { SequenceDefinition } from './sequence-definition';

const prompt = nonBlank(2000);
const short = z.string().trim().max(100).optional();

const EMAIL_COUNT = 'Must be a number of emails from 1 to 10, or a range such as "3-5"';

export const GenerateSequenceRequest = z
  .object({
    prompt,
    industry: short,
    tone: short,
    emailCount: z
      .union(
        [
          z
            .string()
            // One pattern holds both rules (the shape and 1-10 per number), so the document states them too.
            .regex(/^\s*(10|0?[1-9])\s*(-\s*(10|0?[1-9])\s*)?$/, EMAIL_COUNT),
          // The spec's type is a string (a range); a plain count sent as a JSON number means the same.
          z.number().int(EMAIL_COUNT).min(1, EMAIL_COUNT).max(10, EMAIL_COUNT),
        ],
        EMAIL_COUNT,
      )
      // Outside the union: zod reports the matching branch's own message only for untransformed branches.
      .transform(String)
      .optional(),
  })
  .strict()
  .meta({ id: 'GenerateSequenceRequest' });

export const GenerateLandingPageRequest = z
  .object({ prompt, industry: short, goal: short, tone: short })
  .strict()
  .meta({ id: 'GenerateLandingPageRequest' });
export const GeneratePromptRequest = z.object({ prompt }).strict().meta({ id: 'GeneratePromptRequest' });

function exactlyOne(list: { isDefault: boolean }[], ctx: z.RefinementCtx, path: string) {
  const defaults = list.filter((s) => s.isDefault).length;
  if (defaults !== 1)
    ctx.addIssue({ code: 'custom', path: [path], message: `Exactly one entry must have isDefault true (found ${defaults})` });
}

function uniqueCodes(list: { code: string }[], ctx: z.RefinementCtx, path: string) {
  const seen = new Set<string>();
  list.forEach((s, i) => {
    if (seen.has(s.code)) ctx.addIssue({ code: 'custom', path: [path, i, 'code'], message: `Duplicate code "${s.code}"` });
    seen.add(s.code);
  });
}

/** generate-statuses output: lead statuses, each postable to /v1/config/statuses as is. */
export const GeneratedStatuses = z
  .object({ statuses: z.array(StatusDefinition).min(2).max(15) })
  .strict()
  .superRefine((d, ctx) => {
    exactlyOne(d.statuses, ctx, 'statuses');
    uniqueCodes(d.statuses, ctx, 'statuses');
    d.statuses.forEach((s, i) => {
      if (s.entityType !== 'lead') ctx.addIssue({ code: 'custom', path: ['statuses', i, 'entityType'], message: 'Must be lead' });
    });
  })
  .meta({ id: 'GeneratedStatuses' });

/** generate-opportunity-stages output: stages with probabilities, exactly one won and one lost closed stage. */
export const GeneratedStages = z
  .object({ stages: z.array(StatusDefinition).min(3).max(15) })
  .strict()
  .superRefine((d, ctx) => {
    exactlyOne(d.stages, ctx, 'stages');
    uniqueCodes(d.stages, ctx, 'stages');
    d.stages.forEach((s, i) => {
      if (s.entityType !== 'opportunity')
        ctx.addIssue({ code: 'custom', path: ['stages', i, 'entityType'], message: 'Must be opportunity' });
      if (s.defaultProbability === null)
        ctx.addIssue({ code: 'custom', path: ['stages', i, 'defaultProbability'], message: 'Required for stages' });
    });
    const won = d.stages.filter((s) => s.isClosed && s.isWon).length;
    const lost = d.stages.filter((s) => s.isClosed && !s.isWon).length;
    if (won !== 1 || lost !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['stages'],
        message: `Exactly one closed won and one closed lost stage (found ${won} and ${lost})`,
      });
    }
  })
  .meta({ id: 'GeneratedStages' });

/** The schema each kind's output must pass, whoever produced it (model or template). */
export const OUTPUT_SCHEMAS: Record<GenerationKind, z.ZodType> = {
  sequence: SequenceDefinition,
  'landing-page': LandingPageDefinition,
  statuses: GeneratedStatuses,
  'opportunity-stages': GeneratedStages,
};
