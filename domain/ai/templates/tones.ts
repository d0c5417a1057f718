/** How the copy sounds; unknown tones fall back to professional. */
export interface ToneProfile {
  key: string;
  greeting: string;
  signoff: string;
  cta: string;
  subjects: string[];
  followUps: string[];
}

const TONES: Record<string, ToneProfile> = {
  professional: {
    key: 'professional',
    greeting: 'Hello {{firstName}},',
    signoff: 'Kind regards,',
    cta: 'Book a short call',
    subjects: ['A better way to {promise}', 'How {audience} {promise}', 'Your next step with {topic}'],
    followUps: ['Following up on {topic}', 'A quick question about {topic}', 'Resources on {topic}'],
  },
  friendly: {
    key: 'friendly',
    greeting: 'Hi {{firstName}}!',
    signoff: 'Cheers,',
    cta: "Let's chat",
    subjects: ['Hey {{firstName}}, quick idea about {topic}', 'Something you will like: {topic}', 'Made for {audience} like you'],
    followUps: ['Just checking in on {topic}', 'Did you see this, {{firstName}}?', 'One more thing about {topic}'],
  },
  casual: {
    key: 'casual',
    greeting: 'Hey {{firstName}},',
    signoff: 'Talk soon,',
    cta: 'Take a look',
    subjects: ['{topic}, minus the hassle', 'Quick one about {topic}', 'Thought of you: {topic}'],
    followUps: ['Still thinking about {topic}?', 'Bumping this up', 'Last nudge on {topic}'],
  },
  urgent: {
    key: 'urgent',
    greeting: '{{firstName}},',
    signoff: 'Best,',
    cta: 'Claim it now',
    subjects: ['Ends soon: {offer}', 'Do not miss {offer}', 'Last chance for {topic}'],
    followUps: ['Only a few days left for {offer}', 'Final reminder: {topic}', 'Closing soon: {offer}'],
  },
  formal: {
    key: 'formal',
    greeting: 'Dear {{firstName}},',
    signoff: 'Yours sincerely,',
    cta: 'Arrange a consultation',
    subjects: ['Regarding {topic}', 'An introduction: {topic}', 'For your consideration: {offer}'],
    followUps: ['Further to my previous message', 'Additional information on {topic}', 'A brief follow-up regarding {topic}'],
  },
};

export function toneFor(tone: string | undefined): ToneProfile {
  const t = (tone ?? '').toLowerCase();
  if (/friend|warm/.test(t)) return TONES.friendly;
  if (/casual|relax|playful|fun/.test(t)) return TONES.casual;
  if (/urgent|bold|direct|fomo/.test(t)) return TONES.urgent;
  if (/formal|luxury|premium/.test(t)) return TONES.formal;
  return TONES.professional;
}
