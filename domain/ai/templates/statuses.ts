import type { StatusDefinition } from '../../../contracts/status-definition';
import type { PromptOnlyRequest } from '../../../contracts/ai-requests';
import { industryFor } from './industries';
import { pick, seedOf } from './seed';

const COLORS = ['blue', 'sky', 'amber', 'violet', 'teal', 'green', 'gray'] as const;

/**
 * Lead statuses for the prompt's industry: an entry status (the default), the industry's own
 * steps, and a closing pair. Codes avoid the seeded defaults so each can be POSTed as is.
 */
export function statusesTemplate(req: PromptOnlyRequest): { statuses: StatusDefinition[] } {
  const seed = seedOf({ kind: 'statuses', ...req });
  const industry = industryFor(undefined, req.prompt);
  const rows: [string, string, string][] = [
    ['new_inquiry', 'New inquiry', 'Just arrived; not contacted yet'],
    ['attempting_contact', 'Attempting contact', 'Outreach started, no answer yet'],
    ...industry.leadStatuses,
    ['nurture', 'Nurture', 'Not ready now; keep in touch'],
    ['disqualified', 'Disqualified', 'Not a fit'],
  ];
  const offset = seed % COLORS.length;
  return {
    statuses: rows.map(([code, name, description], i) => ({
      code,
      name,
      description,
      color: i === rows.length - 1 ? 'red' : COLORS[(offset + i) % COLORS.length],
      sortOrder: i,
      isDefault: i === 0,
      isClosed: false,
      isWon: false,
      defaultProbability: null,
      entityType: 'lead',
    })),
  };
}

/** Opportunity stages: the industry's open stages with rising probabilities, then one won and one lost stage. */
export function stagesTemplate(req: PromptOnlyRequest): { stages: StatusDefinition[] } {
  const seed = seedOf({ kind: 'opportunity-stages', ...req });
  const industry = industryFor(undefined, req.prompt);
  const open = industry.stages.map(([code, name, probability], i) => ({
    code,
    name,
    description: `${name} (${probability}% likely to close)`,
    color: pick(['blue', 'indigo', 'violet', 'sky', 'amber', 'teal'] as const, seed, i),
    sortOrder: i,
    isDefault: i === 0,
    isClosed: false,
    isWon: false,
    defaultProbability: probability,
    entityType: 'opportunity' as const,
  }));
  const n = open.length;
  return {
    stages: [
      ...open,
      {
        code: 'closed_won',
        name: 'Closed won',
        description: 'Deal signed',
        color: 'green',
        sortOrder: n,
        isDefault: false,
        isClosed: true,
        isWon: true,
        defaultProbability: 100,
        entityType: 'opportunity',
      },
      {
        code: 'closed_lost',
        name: 'Closed lost',
        description: 'Deal lost or abandoned',
        color: 'red',
        sortOrder: n + 1,
        isDefault: false,
        isClosed: true,
        isWon: false,
        defaultProbability: 0,
        entityType: 'opportunity',
      },
    ],
  };
}
