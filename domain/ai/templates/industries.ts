/** Copy building blocks per industry; the request's industry (or prompt) picks one by keyword. */
export interface IndustryProfile {
  key: string;
  audience: string;
  pain: string;
  promise: string;
  proof: string;
  offer: string;
  features: string[];
  palette: { primary: string; background: string };
  leadStatuses: [code: string, name: string, description: string][];
  stages: [code: string, name: string, probability: number][];
  matches: RegExp;
}

const INDUSTRIES: IndustryProfile[] = [
  {
    key: 'saas',
    audience: 'software teams',
    pain: 'hours lost to manual work and disconnected tools',
    promise: 'automate the busywork so your team ships what matters',
    proof: 'Teams like yours cut admin time by a third in their first month.',
    offer: 'a 14-day free trial',
    features: [
      'Set up in minutes, no engineering required',
      'Integrates with the tools you already use',
      'Reports your leadership will actually read',
    ],
    palette: { primary: '#4f46e5', background: '#f8fafc' },
    leadStatuses: [
      ['trial_started', 'Trial started', 'Signed up for a trial'],
      ['demo_scheduled', 'Demo scheduled', 'A product demo is booked'],
      ['product_qualified', 'Product qualified', 'Active in the product and a fit'],
    ],
    stages: [
      ['discovery', 'Discovery', 10],
      ['demo_done', 'Demo done', 30],
      ['proposal_sent', 'Proposal sent', 55],
      ['security_review', 'Security review', 75],
    ],
    matches: /\b(saas|software|app|platform|tech|startup|crm|cloud|api|devops|b2b)\b/,
  },
  {
    key: 'real-estate',
    audience: 'home buyers and sellers',
    pain: 'a stressful, uncertain move',
    promise: 'find the right home at the right price, with an expert beside you',
    proof: 'Our clients close faster than the local average.',
    offer: 'a free home valuation',
    features: ['Local market reports every week', 'Private viewings on your schedule', 'Negotiation handled end to end'],
    palette: { primary: '#b45309', background: '#fffbeb' },
    leadStatuses: [
      ['viewing_booked', 'Viewing booked', 'A property viewing is scheduled'],
      ['pre_approved', 'Pre-approved', 'Financing is in place'],
      ['offer_ready', 'Offer ready', 'Ready to make an offer'],
    ],
    stages: [
      ['viewing', 'Viewing', 15],
      ['offer_made', 'Offer made', 45],
      ['under_contract', 'Under contract', 80],
    ],
    matches: /\b(real|estate|realty|property|properties|home|homes|housing|mortgage|broker|realtor)\b/,
  },
  {
    key: 'healthcare',
    audience: 'patients and care teams',
    pain: 'long waits and confusing follow-ups',
    promise: 'make every visit simpler, from booking to aftercare',
    proof: 'Clinics using our approach see fewer missed appointments.',
    offer: 'a free consultation',
    features: ['Online booking around the clock', 'Reminders that reduce no-shows', 'Secure, private communication'],
    palette: { primary: '#0f766e', background: '#f0fdfa' },
    leadStatuses: [
      ['consult_requested', 'Consultation requested', 'Asked for a first consultation'],
      ['insurance_checked', 'Insurance checked', 'Coverage verified'],
      ['appointment_set', 'Appointment set', 'First appointment booked'],
    ],
    stages: [
      ['assessment', 'Assessment', 15],
      ['treatment_plan', 'Treatment plan', 45],
      ['approval_pending', 'Approval pending', 70],
    ],
    matches: /\b(health|healthcare|clinic|medical|dental|dentist|patient|patients|care|therapy|wellness|pharma)\b/,
  },
  {
    key: 'ecommerce',
    audience: 'online shoppers',
    pain: 'endless browsing without finding the right fit',
    promise: 'get exactly what you want, delivered fast',
    proof: 'Thousands of five-star reviews from customers like you.',
    offer: '10% off your first order',
    features: ['Free returns within 30 days', 'Fast, tracked delivery', 'Curated picks based on your style'],
    palette: { primary: '#db2777', background: '#fff1f2' },
    leadStatuses: [
      ['subscriber', 'Subscriber', 'Joined the mailing list'],
      ['cart_abandoned', 'Cart abandoned', 'Left items in the cart'],
      ['repeat_buyer', 'Repeat buyer', 'Ordered more than once'],
    ],
    stages: [
      ['quote_requested', 'Quote requested', 20],
      ['sample_sent', 'Sample sent', 45],
      ['bulk_order', 'Bulk order', 75],
    ],
    matches: /\b(ecommerce|e-commerce|shop|store|retail|fashion|apparel|products|dtc|shopify)\b/,
  },
  {
    key: 'finance',
    audience: 'finance leaders',
    pain: 'month-end surprises and spreadsheets nobody trusts',
    promise: 'see your numbers clearly and plan with confidence',
    proof: 'Advisors trusted by hundreds of growing companies.',
    offer: 'a free financial health check',
    features: ['Clear monthly reporting', 'Cash-flow forecasts you can act on', 'Compliance handled by experts'],
    palette: { primary: '#1d4ed8', background: '#eff6ff' },
    leadStatuses: [
      ['kyc_pending', 'KYC pending', 'Identity checks in progress'],
      ['review_booked', 'Review booked', 'Financial review scheduled'],
      ['advised', 'Advised', 'Received a first recommendation'],
    ],
    stages: [
      ['fact_find', 'Fact find', 15],
      ['recommendation', 'Recommendation', 45],
      ['compliance_check', 'Compliance check', 75],
    ],
    matches: /\b(finance|financial|bank|banking|insurance|accounting|fintech|invest|investment|wealth|tax)\b/,
  },
  {
    key: 'education',
    audience: 'learners',
    pain: 'courses that do not fit a busy life',
    promise: 'learn practical skills at your own pace',
    proof: 'Graduates report real career progress within a year.',
    offer: 'a free trial lesson',
    features: ['Short lessons that fit any schedule', 'Mentors who answer within a day', 'A certificate employers recognise'],
    palette: { primary: '#7c3aed', background: '#faf5ff' },
    leadStatuses: [
      ['info_requested', 'Info requested', 'Asked for programme details'],
      ['application_started', 'Application started', 'Began an application'],
      ['enrolled', 'Enrolled', 'Signed up for a course'],
    ],
    stages: [
      ['inquiry', 'Inquiry', 15],
      ['application', 'Application', 40],
      ['offer_extended', 'Offer extended', 75],
    ],
    matches: /\b(education|school|course|courses|training|university|learning|edtech|tutoring|academy)\b/,
  },
];

const GENERIC_INDUSTRY: IndustryProfile = {
  key: 'general',
  audience: 'growing businesses',
  pain: 'time spent on work that does not move the needle',
  promise: 'get better results with less effort',
  proof: 'Customers see results within weeks, not months.',
  offer: 'a free consultation',
  features: ['Expert support when you need it', 'Simple, transparent pricing', 'Results you can measure'],
  palette: { primary: '#0f172a', background: '#ffffff' },
  leadStatuses: [
    ['engaged', 'Engaged', 'Opened or replied to outreach'],
    ['meeting_booked', 'Meeting booked', 'A first meeting is scheduled'],
    ['sales_ready', 'Sales ready', 'Ready for a sales conversation'],
  ],
  stages: [
    ['discovery', 'Discovery', 15],
    ['proposal_sent', 'Proposal sent', 45],
    ['contract_review', 'Contract review', 75],
  ],
  matches: /$^/,
};

/** The explicit industry wins; otherwise the prompt's words choose; otherwise generic copy. */
export function industryFor(industry: string | undefined, prompt: string): IndustryProfile {
  const probe = (text: string) => INDUSTRIES.find((p) => p.matches.test(text.toLowerCase()));
  return (industry && probe(industry)) || probe(prompt) || GENERIC_INDUSTRY;
}
