import { defineQuery, defineSignal } from '@temporalio/workflow';

/** What a campaign enrollment hears from the outside. Exported so the API signals the same names. */
export type EngagementKind = 'email_open' | 'link_click' | 'email_reply' | 'email_bounce' | 'form_submission' | 'page_visit' | 'email_sent';

export interface EngagementSignal {
  type: EngagementKind;
  /** Database key of the message the event is about, when known. */
  messageId?: string;
  at: string;
}

export type SequenceStatus = 'running' | 'paused' | 'completed' | 'stopped' | 'exited';

export interface SequenceProgress {
  currentNodeId: string | null;
  /** Node IDs in the order they were entered (condition nodes as `<nodeId>:true|false` once decided). */
  path: string[];
  /** When a wait or condition window ends, if the enrollment is waiting on one. */
  nextWakeAt: string | null;
  /** In words, e.g. "waiting for open of n2 until <time>"; absent from runs started before it existed. */
  waitingFor?: string | null;
  status: SequenceStatus;
  exitReason: string | null;
}

export const engagementSignal = defineSignal<[EngagementSignal]>('engagement');
export const pauseSignal = defineSignal('pause');
export const resumeSignal = defineSignal('resume');
/** Ends the enrollment at once (timers and condition windows are cut short); `reason` is recorded (unenrolled, campaign_completed, unsubscribed, bounced, lead_deleted, lead_merged). */
export const stopSignal = defineSignal<[{ reason: string }]>('stop');
export const progressQuery = defineQuery<SequenceProgress>('progress');
