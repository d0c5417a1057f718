import { z } from 'zod';
import { checkDefinitionSize, DEFINITION_MAX_BYTES } from './definition-size';
import { EMAIL_FORMATS } from '../db/entities/message';
import { encodedId, nonBlank, PaginationQuery, references } from './common';
import { DEFAULT_CONDITION_WINDOW } from '../workflows/campaign-graph';
import { checkSequenceGraph } from './sequence-graph-rules';

export const NODE_TYPES = ['trigger', 'email', 'sms', 'wait', 'condition', 'action', 'end'] as const;
const TRIGGER_TYPES = ['lead_created', 'form_submitted', 'lead_status_changed', 'manual'] as const;
const DURATION_UNITS = ['minutes', 'hours', 'days'] as const;
const CONDITION_FIELDS = ['email_opened', 'link_clicked', 'email_replied', 'email_bounced', 'form_submitted', 'lead_status'] as const;
const ACTION_TYPES = ['update_lead_status', 'update_lead_score', 'create_task'] as const;

const key = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'Must be 1-64 letters, digits, _ or -');
const label = z.string().max(200).optional();
const duration = z.number().positive('Must be a positive number').max(100_000);

const TriggerData = z.object({ label, triggerType: z.enum(TRIGGER_TYPES) }).strict();
/** Body and subject may use Handlebars lead variables ({{firstName}}); rendering comes with campaigns. */
const EmailData = z
  .object({
    label,
    subjectLine: nonBlank(200),
    body: z.string().max(20_000).optional(),
    format: z
      .enum(EMAIL_FORMATS)
      .optional()
      .meta({ description: 'Format of body (text or html); when absent it is inferred from body once, when the definition is saved' }),
    templateId: z.string().max(64).optional(),
    senderId: z.string().max(64).optional().meta({
      description: 'A sender identity (/v1/communications/senders) to send from; absent: EMAIL_FROM. A deleted one skips the email',
    }),
  })
  .strict()
  .refine((d) => d.body !== undefined || d.templateId !== undefined, { message: 'An email needs a body or a templateId', path: ['body'] })
  .meta({ anyOf: [{ required: ['body'] }, { required: ['templateId'] }] });
const SmsData = z.object({ label, message: nonBlank(1600) }).strict();
const WaitData = z.object({ label, duration, durationUnit: z.enum(DURATION_UNITS) }).strict();
const ConditionData = z
  .object({
    label,
    conditionField: z.enum(CONDITION_FIELDS),
    value: z
      .string()
      .max(40)
      .optional()
      .meta({
        description: "For lead_status: the code of one of the tenant's lead statuses to compare with (another code is a 422)",
        ...references('leadStatus'),
      }),
    window: z
      .object({ duration, durationUnit: z.enum(DURATION_UNITS) })
      .strict()
      .optional()
      .meta({
        description: `How long the condition waits for its event (counted from when the sequence reaches it) before taking the false branch. Default ${DEFAULT_CONDITION_WINDOW.duration} ${DEFAULT_CONDITION_WINDOW.durationUnit}; responses always show the window in effect. Not used by lead_status conditions (decided at once).`,
      }),
  })
  .strict()
  .refine((d) => d.conditionField !== 'lead_status' || d.value, { message: 'lead_status conditions need a value', path: ['value'] })
  .meta({
    anyOf: [
      { properties: { conditionField: { enum: CONDITION_FIELDS.filter((f) => f !== 'lead_status') } } },
      { required: ['value'], properties: { value: { minLength: 1 } } },
    ],
  });
/** The field each action type acts with. */
const ACTION_NEEDS = { update_lead_status: 'status', update_lead_score: 'scoreDelta', create_task: 'taskTitle' } as const;
const ActionData = z
  .object({
    label,
    actionType: z.enum(ACTION_TYPES),
    status: z
      .string()
      .max(40)
      .optional()
      .meta({
        description: "For update_lead_status: the code of one of the tenant's lead statuses (another code is a 422)",
        ...references('leadStatus'),
      }),
    scoreDelta: z.number().int().min(-100).max(100).optional(),
    taskTitle: z.string().max(200).optional(),
  })
  .strict()
  .superRefine((d, ctx) => {
    const field = ACTION_NEEDS[d.actionType];
    if (d[field] === undefined) ctx.addIssue({ code: 'custom', path: [field], message: `${d.actionType} needs ${field}` });
  })
  .meta({ anyOf: ACTION_TYPES.map((type) => ({ properties: { actionType: { const: type } }, required: [ACTION_NEEDS[type]] })) });
const EndData = z.object({ label }).strict();

const position = z.object({ x: z.number().finite(), y: z.number().finite() }).strict();
const node = <T extends (typeof NODE_TYPES)[number], D extends z.ZodType>(type: T, data: D) =>
  z.object({ nodeId: key, type: z.literal(type), position, data }).strict();

export const WorkflowNode = z
  .discriminatedUnion('type', [
    node('trigger', TriggerData),
    node('email', EmailData),
    node('sms', SmsData),
    node('wait', WaitData),
    node('condition', ConditionData),
    node('action', ActionData),
    node('end', EndData),
  ])
  .meta({ id: 'WorkflowNode' });
export type WorkflowNode = z.output<typeof WorkflowNode>;

const WorkflowEdge = z
  .object({ edgeId: key, source: key, target: key, branch: z.enum(['true', 'false']).optional() })
  .strict()
  .meta({ id: 'WorkflowEdge' });

const fields = {
  name: nonBlank(200),
  description: z.string().max(2000).default(''),
  nodes: z
    .array(WorkflowNode)
    .min(1)
    .max(200)
    .describe(`Nodes and edges together at most ${DEFINITION_MAX_BYTES} bytes as JSON (each enrollment's workflow carries them)`),
  edges: z.array(WorkflowEdge).max(400),
};

/**
 * A campaign sequence: the body of POST /v1/workflows and the output of
 * generate-sequence, checked by the same graph rules.
 */
export const SequenceDefinition = z
  .object(fields)
  .strict()
  .superRefine(checkSequenceGraph)
  .superRefine(checkDefinitionSize)
  .meta({
    id: 'WorkflowDefinition',
    // What JSON Schema cannot say about a graph, said in words (checked by checkSequenceGraph, 422 naming the node or edge).
    description:
      'Graph rules (422 naming the offending node or edge otherwise): nodeIds and edgeIds are unique; exactly one node has ' +
      'type trigger and no edge points at it; every edge starts and ends at a node of the graph; no edge leaves an end node; ' +
      'only condition nodes branch: each has exactly one outgoing edge with branch "true" and one with branch "false", every ' +
      'other node at most one outgoing edge and no branch; the graph has no cycle (a sequence always ends).',
  });
export type SequenceDefinition = z.output<typeof SequenceDefinition>;

/** PATCH replaces whole fields; the merged definition is re-checked with SequenceDefinition. */
export const SequenceDefinitionUpdate = z
  .object({ ...fields, description: z.string().max(2000) })
  .partial()
  .strict()
  .meta({ id: 'WorkflowDefinitionUpdate' });
export type SequenceDefinitionUpdate = z.output<typeof SequenceDefinitionUpdate>;

export const SequenceDefinitionRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    nodes: z.array(WorkflowNode),
    edges: z.array(WorkflowEdge),
    version: z.number().int(),
    warnings: z.array(z.object({ field: z.string(), message: z.string() })).meta({
      description:
        'Valid but probably not what was meant, e.g. a condition right after a wait without its own window (it waits the default window more); field names the node',
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'WorkflowDefinitionRecord' });
export type SequenceDefinitionRecord = z.output<typeof SequenceDefinitionRecord>;

export const WorkflowListQuery = PaginationQuery;
export const SequenceDefinitionIdParams = z.object({ id: encodedId('workflow') });
