import type { SequenceDefinition, WorkflowNode } from '../../../contracts/sequence-definition';
import type { SequenceRequest } from '../../../contracts/ai-requests';
import { industryFor } from './industries';
import { emailCountFrom, keywords, pick, seedOf } from './seed';
import { toneFor } from './tones';

type Edge = SequenceDefinition['edges'][number];

/**
 * A sequence the marketer can use as is: trigger, `emailCount` emails spaced by waits, and a final
 * branch on opens (engaged leads get a score bump and a next-step email, the others a re-engagement
 * email). Copy depends on prompt keywords, industry and tone; all choices come from a hash of the input.
 */
export function sequenceTemplate(req: SequenceRequest): SequenceDefinition {
  const seed = seedOf({ kind: 'sequence', ...req });
  const industry = industryFor(req.industry, req.prompt);
  const tone = toneFor(req.tone);
  const topic = keywords(req.prompt).join(' ') || industry.offer;
  const fill = (s: string) =>
    s
      .replace('{topic}', topic)
      .replace('{offer}', industry.offer)
      .replace('{audience}', industry.audience)
      .replace('{promise}', industry.promise);
  const count = emailCountFrom(req.emailCount, seed);
  const gapDays = pick([2, 3, 4], seed, 7);

  const nodes: WorkflowNode[] = [];
  const edges: Edge[] = [];
  let y = 0;
  const add = (node: Omit<WorkflowNode, 'position'> & { x?: number }) => {
    const { x = 0, ...rest } = node;
    nodes.push({ ...rest, position: { x, y: (y += 140) - 140 } } as WorkflowNode);
  };
  const link = (source: string, target: string, branch?: 'true' | 'false') =>
    edges.push({ edgeId: `e${edges.length + 1}`, source, target, ...(branch ? { branch } : {}) });
  const body = (paragraph: string) =>
    `${tone.greeting}\n\n${paragraph}\n\n${tone.cta}: reply to this email and we will set it up.\n\n${tone.signoff}\nThe team`;

  const triggerType = /\b(form|webinar|download|signup|sign-up|register)\b/i.test(req.prompt) ? 'form_submitted' : 'lead_created';
  add({ nodeId: 'trigger', type: 'trigger', data: { label: 'Lead enters the sequence', triggerType } });
  add({
    nodeId: 'email-1',
    type: 'email',
    data: {
      label: 'Introduction',
      subjectLine: fill(pick(tone.subjects, seed)),
      body: body(`Many ${industry.audience} struggle with ${industry.pain}. We help you ${industry.promise}. ${industry.proof}`),
    },
  });
  link('trigger', 'email-1');
  let last = 'email-1';
  const middle = Math.max(count - 1, 0);
  for (let i = 2; i <= middle; i++) {
    add({ nodeId: `wait-${i - 1}`, type: 'wait', data: { label: `Wait ${gapDays} days`, duration: gapDays, durationUnit: 'days' } });
    link(last, `wait-${i - 1}`);
    add({
      nodeId: `email-${i}`,
      type: 'email',
      data: {
        label: `Follow-up ${i - 1}`,
        subjectLine: fill(pick(tone.followUps, seed, i)),
        body: body(`${pick(industry.features, seed, i)}. That is one reason ${industry.audience} choose us for ${topic}.`),
      },
    });
    link(`wait-${i - 1}`, `email-${i}`);
    last = `email-${i}`;
  }
  add({ nodeId: 'wait-final', type: 'wait', data: { label: `Wait ${gapDays} days`, duration: gapDays, durationUnit: 'days' } });
  link(last, 'wait-final');
  add({
    nodeId: 'opened',
    type: 'condition',
    data: { label: 'Opened the last email?', conditionField: 'email_opened', window: { duration: 2, durationUnit: 'days' } },
  });
  link('wait-final', 'opened');

  add({
    nodeId: 'score-up',
    type: 'action',
    x: -220,
    data: { label: 'Engaged: raise score', actionType: 'update_lead_score', scoreDelta: 15 },
  });
  link('opened', 'score-up', 'true');
  y -= 140;
  const reengage = count >= 2;
  if (reengage) {
    add({
      nodeId: `email-${count}-b`,
      type: 'email',
      x: 220,
      data: {
        label: 'Re-engage',
        subjectLine: fill(pick(tone.followUps, seed, 99)),
        body: body(`Still interested in ${topic}? ${industry.proof}`),
      },
    });
  } else {
    add({
      nodeId: 'call-task',
      type: 'action',
      x: 220,
      data: { label: 'Not engaged: call', actionType: 'create_task', taskTitle: `Call about ${topic}` },
    });
  }
  link('opened', reengage ? `email-${count}-b` : 'call-task', 'false');
  let engagedTail = 'score-up';
  if (reengage) {
    add({
      nodeId: `email-${count}-a`,
      type: 'email',
      x: -220,
      data: {
        label: 'Next step',
        subjectLine: fill(`Next step: ${industry.offer}`),
        body: body(`Glad this caught your eye. ${industry.offer} is ready for you.`),
      },
    });
    link('score-up', `email-${count}-a`);
    engagedTail = `email-${count}-a`;
  }
  add({ nodeId: 'end', type: 'end', data: { label: 'Done' } });
  link(engagedTail, 'end');
  link(reengage ? `email-${count}-b` : 'call-task', 'end');

  return {
    name: `${capitalise(topic)} sequence`.slice(0, 200),
    description: `${count} email${count === 1 ? '' : 's'} for ${industry.audience}, ${tone.key} tone, branching on opens.`,
    nodes,
    edges,
  };
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
