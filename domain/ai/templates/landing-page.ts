import type { LandingPageDefinition } from '../../../contracts/landing-page';
import { renderSections } from '../../landing-pages/render';
import type { LandingPageRequest } from '../../../contracts/ai-requests';
import { industryFor } from './industries';
import { keywords, pick, seedOf, titleCase } from './seed';
import { toneFor } from './tones';

/** What the goal asks the visitor to do: form fields and button text. */
function goalFor(goal: string | undefined, offer: string) {
  const g = (goal ?? '').toLowerCase();
  if (/demo|meeting|call|consult/.test(g))
    return { fields: ['firstName', 'email', 'company', 'phone'] as const, button: 'Book my demo', verb: 'Book a demo' };
  if (/download|ebook|guide|whitepaper|report/.test(g))
    return { fields: ['firstName', 'email'] as const, button: 'Send me the guide', verb: 'Get the free guide' };
  if (/newsletter|subscribe|updates/.test(g)) return { fields: ['email'] as const, button: 'Subscribe', verb: 'Get the updates' };
  if (/webinar|event|register/.test(g))
    return { fields: ['firstName', 'lastName', 'email'] as const, button: 'Save my seat', verb: 'Register now' };
  return { fields: ['firstName', 'email', 'message'] as const, button: 'Get started', verb: `Claim ${offer}` };
}

const FONTS = ['Inter, system-ui, sans-serif', 'Georgia, serif', "'Helvetica Neue', Arial, sans-serif", 'system-ui, sans-serif'];

/**
 * Hero, features and form sections whose copy depends on prompt keywords, industry, goal and tone.
 * `content` is rendered from the sections with every text escaped.
 */
export function landingPageTemplate(req: LandingPageRequest): LandingPageDefinition {
  const seed = seedOf({ kind: 'landing-page', ...req });
  const industry = industryFor(req.industry, req.prompt);
  const tone = toneFor(req.tone);
  const words = keywords(req.prompt, 4);
  const topic = words.join(' ') || industry.key;
  const goal = goalFor(req.goal, industry.offer);
  const headline =
    tone.key === 'urgent'
      ? `${titleCase(topic)}: ${goal.verb} today`
      : tone.key === 'formal'
        ? `${titleCase(topic)} for discerning ${industry.audience}`
        : `${titleCase(topic)} that helps you ${industry.promise}`;
  const slugBase = (words.length ? words : [industry.key, 'offer']).join('-').replace(/[^a-z0-9-]/g, '');
  const page: Omit<LandingPageDefinition, 'content'> = {
    name: `${titleCase(topic)} landing page`.slice(0, 200),
    description: `Landing page for ${industry.audience}; goal: ${goal.verb.toLowerCase()}; ${tone.key} tone.`,
    slug: `${slugBase}-${(seed % 46656).toString(36)}`.replace(/-+/g, '-').slice(0, 80).replace(/-$/, ''),
    sections: [
      {
        sectionId: 'hero',
        type: 'hero',
        label: 'Hero',
        visible: true,
        order: 0,
        heading: headline.slice(0, 200),
        body: `Tired of ${industry.pain}? ${industry.proof}`,
      },
      {
        sectionId: 'features',
        type: 'features',
        label: 'Why us',
        visible: true,
        order: 1,
        heading: pick(['Why teams choose us', 'What you get', 'Built for you'], seed),
        items: industry.features,
      },
      {
        sectionId: 'signup',
        type: 'form',
        label: 'Sign-up form',
        visible: true,
        order: 2,
        heading: goal.verb,
        body: `${tone.cta}. It takes less than a minute.`,
        fields: [...goal.fields],
        buttonText: goal.button,
      },
    ],
    seo: {
      title: `${titleCase(topic)} | ${goal.verb}`.slice(0, 120),
      metaDescription: `${industry.promise}. ${industry.proof}`.slice(0, 320),
    },
    style: { primaryColor: industry.palette.primary, backgroundColor: industry.palette.background, fontFamily: pick(FONTS, seed, 3) },
  };
  return { ...page, content: renderSections(page) };
}
