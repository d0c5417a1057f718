import type { StatusDefinition } from '../contracts/status-definition';

type Seed = Omit<StatusDefinition, 'description'> & { description: string };

const lead = (code: string, name: string, color: Seed['color'], sortOrder: number, isDefault = false, description = ''): Seed => ({
  code,
  name,
  description,
  color,
  sortOrder,
  isDefault,
  isClosed: false,
  isWon: false,
  defaultProbability: null,
  entityType: 'lead',
});

const stage = (
  code: string,
  name: string,
  color: Seed['color'],
  sortOrder: number,
  defaultProbability: number,
  flags: { isDefault?: boolean; isClosed?: boolean; isWon?: boolean } = {},
): Seed => ({
  code,
  name,
  description: '',
  color,
  sortOrder,
  isDefault: flags.isDefault ?? false,
  isClosed: flags.isClosed ?? false,
  isWon: flags.isWon ?? false,
  defaultProbability,
  entityType: 'opportunity',
});

/** What every tenant and environment starts with: the spec's lead states and a classic pipeline. */
export const DEFAULT_DEFINITIONS: Record<'lead' | 'opportunity', Seed[]> = {
  lead: [
    lead('new', 'New', 'blue', 0, true, 'Just arrived; nobody has reached out yet'),
    lead('contacted', 'Contacted', 'amber', 1, false, 'First contact made'),
    lead('qualified', 'Qualified', 'green', 2, false, 'Fits the ideal customer profile'),
    lead('unqualified', 'Unqualified', 'gray', 3, false, 'Not a fit for now'),
  ],
  opportunity: [
    stage('qualified', 'Qualified', 'blue', 0, 10, { isDefault: true }),
    stage('proposal', 'Proposal', 'indigo', 1, 40),
    stage('negotiation', 'Negotiation', 'amber', 2, 70),
    stage('won', 'Won', 'green', 3, 100, { isClosed: true, isWon: true }),
    stage('lost', 'Lost', 'red', 4, 0, { isClosed: true }),
  ],
};
