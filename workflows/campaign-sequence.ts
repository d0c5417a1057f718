import { condition, continueAsNew, patched, proxyActivities, proxyLocalActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { WorkflowNode } from '../contracts/sequence-definition';
import type { CampaignActivities, EnrollmentRef } from '../activities/campaigns';
import type { Eligibility } from '../activities/campaigns/check-lead';
import { DEFAULT_CONDITION_WINDOW_MS, durationMs, nextNodeId, nodeById, triggerOf, type SequenceGraph } from './campaign-graph';
import {
  engagementSignal,
  pauseSignal,
  progressQuery,
  resumeSignal,
  stopSignal,
  type EngagementSignal,
  type SequenceStatus,
} from './campaign-signals';
import { deliverOrFail } from './deliver-message';

/** Reads and writes in our own database: retried until they work. */
const bookkeeping = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
} as const;
const { checkLeadEligibility, prepareCampaignMessage, runCampaignAction, leadHasStatus, finishEnrollment } =
  proxyActivities<CampaignActivities>(bookkeeping);
/** Two short statements at each engagement condition: local, so they cost the server a marker, not a task round trip. */
const { awaitEngagement } = proxyLocalActivities<CampaignActivities>(bookkeeping);

/** Everything the run needs to resume where it was; carried across continue-as-new. */
export interface SequenceState {
  nextNodeId: string | null;
  path: string[];
  paused: boolean;
  engagements: EngagementSignal[];
  lastMessageId: string | null;
}

export interface CampaignSequenceInput extends EnrollmentRef {
  /** The campaign's pinned definition version, passed in so edits never reach running enrollments. */
  graph: SequenceGraph;
  /** Enrolling into a paused campaign starts paused. */
  startPaused?: boolean;
  state?: SequenceState;
  /** History length after which the run continues as new between nodes (tests set it low). */
  continueAsNewAfter?: number;
}

export interface CampaignSequenceResult {
  status: Exclude<SequenceStatus, 'running' | 'paused'>;
  exitReason: string | null;
  path: string[];
}

const ENGAGEMENT_OF: Record<string, EngagementSignal['type']> = {
  email_opened: 'email_open',
  link_clicked: 'link_click',
  email_replied: 'email_reply',
  email_bounced: 'email_bounce',
  form_submitted: 'form_submission',
};
const WAITED_FOR: Record<string, string> = {
  email_opened: 'open',
  link_clicked: 'click',
  email_replied: 'reply',
  email_bounced: 'bounce',
  form_submitted: 'form submission',
};
/** Stop reasons that mean the lead may no longer be emailed, or is gone: the enrollment exits (status `exited`) rather than stops. */
const EXIT_STOP_REASONS: string[] = ['unsubscribed', 'bounced', 'lead_deleted', 'lead_merged'];
/** How often a paused enrollment re-reads the campaign status, in case a resume signal was lost. */
const PAUSE_RECHECK = '6 hours';
/** Engagements kept in state: enough for any condition, small enough to carry across continue-as-new. */
const MAX_ENGAGEMENTS = 50;

/**
 * One lead going through one campaign (workflow ID `campaign/<campaignId>/lead/<leadId>`): walks the
 * pinned node/edge graph from the trigger. Sends and actions wait while the campaign is paused and
 * first check that the lead may still be contacted; waits are durable timers; conditions wait for
 * an engagement signal until their window closes.
 */
export async function campaignSequenceWorkflow(input: CampaignSequenceInput): Promise<CampaignSequenceResult> {
  const { graph } = input;
  const ref: EnrollmentRef = {
    tenantId: input.tenantId,
    environment: input.environment,
    campaignId: input.campaignId,
    leadId: input.leadId,
    enrollmentId: input.enrollmentId,
  };
  const trigger = triggerOf(graph);
  const state: SequenceState = input.state ?? {
    nextNodeId: nextNodeId(graph, trigger.nodeId),
    path: [trigger.nodeId],
    paused: input.startPaused ?? false,
    engagements: [],
    lastMessageId: null,
  };
  let stopReason: string | null = null;
  let currentNodeId: string | null = state.path[state.path.length - 1] ?? null;
  let nextWakeAt: string | null = null;
  /** What the enrollment waits for, in words (the progress query): "waiting for open of n2 until <time>". */
  let waitingFor: string | null = null;
  let result: CampaignSequenceResult | null = null;

  setHandler(engagementSignal, (e) => {
    state.engagements = [...state.engagements, e].slice(-MAX_ENGAGEMENTS);
  });
  setHandler(pauseSignal, () => void (state.paused = true));
  setHandler(resumeSignal, () => void (state.paused = false));
  setHandler(stopSignal, ({ reason }) => void (stopReason ??= reason));
  setHandler(progressQuery, () => ({
    currentNodeId,
    path: state.path,
    nextWakeAt,
    waitingFor,
    status: result?.status ?? (state.paused ? 'paused' : 'running'),
    exitReason: result?.exitReason ?? null,
  }));

  const finish = async (status: CampaignSequenceResult['status'], exitReason: string | null) => {
    result = { status, exitReason, path: state.path };
    nextWakeAt = waitingFor = null;
    await finishEnrollment({ ...ref, status: status === 'stopped' ? 'stopped' : status, reason: exitReason });
    return result;
  };
  /**
   * A stop ends the run where it is. An unsubscribe or bounce stops it too (signalled at once by the
   * API), and is recorded as an exit like the one the next step's check would have found.
   */
  const stopped = () => finish(EXIT_STOP_REASONS.includes(stopReason ?? '') ? 'exited' : 'stopped', stopReason);
  /** A durable timer that a stop signal cuts short. */
  const sleepUnlessStopped = async (ms: number, nodeId: string) => {
    nextWakeAt = new Date(Date.now() + ms).toISOString();
    waitingFor = `waiting (${nodeId}) until ${nextWakeAt}`;
    await condition(() => stopReason !== null, ms);
    nextWakeAt = waitingFor = null;
  };
  /** The email a condition is about: the last email node the path went through. */
  const lastEmailNodeId = () =>
    state.path
      .map((step) => step.split(':')[0])
      .reverse()
      .find((id) => graph.nodes.some((n) => n.nodeId === id && n.type === 'email')) ?? null;
  const matches = (type: EngagementSignal['type']) =>
    state.engagements.some((e) => e.type === type && (!e.messageId || !state.lastMessageId || e.messageId === state.lastMessageId));

  /** Waits while paused, then asks whether the lead may still be contacted (a paused campaign means: hold on). */
  async function holdThenCheck(): Promise<Eligibility> {
    for (;;) {
      while (state.paused && stopReason === null) {
        if (await condition(() => !state.paused || stopReason !== null, PAUSE_RECHECK)) break;
        // No resume for a while: ask the database, in case the resume signal was lost.
        const now = await checkLeadEligibility(ref);
        if (now.eligible || now.reason !== 'campaign_paused') state.paused = false;
      }
      if (stopReason) return { eligible: true };
      const eligibility = await checkLeadEligibility(ref);
      if (eligibility.eligible || eligibility.reason !== 'campaign_paused') return eligibility;
      state.paused = true;
    }
  }

  async function decide(node: Extract<WorkflowNode, { type: 'condition' }>): Promise<'true' | 'false'> {
    if (node.data.conditionField === 'lead_status')
      return (await leadHasStatus({ ...ref, status: node.data.value ?? '' })) ? 'true' : 'false';
    const type = ENGAGEMENT_OF[node.data.conditionField];
    const windowMs = node.data.window ? durationMs(node.data.window) : DEFAULT_CONDITION_WINDOW_MS;
    nextWakeAt = new Date(Date.now() + windowMs).toISOString();
    const email = lastEmailNodeId();
    const what = WAITED_FOR[node.data.conditionField];
    waitingFor = `waiting for ${what}${email && type !== 'form_submission' ? ` of ${email}` : ''} until ${nextWakeAt}`;
    // Engagements are signalled only to enrollments waiting on a condition; what came before is read.
    if (patched('engagement-window')) {
      const earlier = await awaitEngagement({ ...ref, type, until: nextWakeAt });
      state.engagements = [...state.engagements, ...earlier].slice(-MAX_ENGAGEMENTS);
    }
    await condition(() => matches(type) || stopReason !== null, windowMs);
    nextWakeAt = waitingFor = null;
    return matches(type) ? 'true' : 'false';
  }

  while (state.nextNodeId) {
    if (stopReason) return stopped();
    const info = workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength > (input.continueAsNewAfter ?? 5000)) {
      await continueAsNew<typeof campaignSequenceWorkflow>({ ...input, startPaused: undefined, state });
    }
    const node = nodeById(graph, state.nextNodeId);
    currentNodeId = node.nodeId;
    state.path.push(node.nodeId);
    let branch: 'true' | 'false' | undefined;
    switch (node.type) {
      case 'email':
      case 'sms':
      case 'action': {
        const eligibility = await holdThenCheck();
        if (stopReason) return stopped();
        if (!eligibility.eligible) {
          return eligibility.reason === 'campaign_completed' ? finish('stopped', eligibility.reason) : finish('exited', eligibility.reason);
        }
        if (node.type === 'action') {
          await runCampaignAction({ ...ref, nodeId: node.nodeId, action: node.data });
        } else {
          const prepared = await prepareCampaignMessage(
            node.type === 'email'
              ? { ...ref, nodeId: node.nodeId, channel: 'email', data: node.data }
              : { ...ref, nodeId: node.nodeId, channel: 'sms', data: node.data },
          );
          if (prepared.messageId) {
            state.lastMessageId = prepared.messageId;
            if (prepared.status === 'queued') await deliverOrFail(ref, prepared.messageId);
          }
        }
        break;
      }
      case 'wait':
        await sleepUnlessStopped(durationMs(node.data), node.nodeId);
        break;
      case 'condition':
        branch = await decide(node);
        if (stopReason) return stopped();
        state.path[state.path.length - 1] = `${node.nodeId}:${branch}`;
        break;
      case 'end':
        return finish('completed', null);
      case 'trigger':
        break;
    }
    state.nextNodeId = nextNodeId(graph, node.nodeId, branch);
  }
  return finish('completed', null);
}
