import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowStartOptions } from '@temporalio/client';
import { WorkflowIdConflictPolicy } from '@temporalio/common';
import type { Workflow } from '@temporalio/common';
import { workflowStarts } from '../metrics';
import { searchAttributePairs, type SearchAttributeValues } from './search-attributes';
import { TASK_QUEUE } from './task-queues';
import { BackgroundStarts, type BackgroundStartsOptions } from './background-starts';
import { withCallContext } from './call-context';

const START_DEADLINE_MS = 5_000;
/** How long a stopping API waits for its queued background starts. */
export const SHUTDOWN_DRAIN_MS = 5_000;

export interface StartOptions<W extends Workflow> {
  workflowId: string;
  args: Parameters<W>;
  searchAttributes: SearchAttributeValues;
  memo?: Record<string, unknown>;
  /**
   * A start while a run with this ID is still open: `use_existing` attaches to it (the default),
   * `fail` reports started: false so the caller can tell that another request got there first.
   */
  onConflict?: 'use_existing' | 'fail';
}

/**
 * The API's one way to start workflows: readable IDs, search attributes and a metric on every
 * start. Starting an ID that is already running returns that run instead of failing, which makes
 * the start itself idempotent.
 */
export class WorkflowStarter {
  private readonly background: BackgroundStarts;

  constructor(
    readonly client: Client,
    private readonly taskQueue: string = TASK_QUEUE,
    background: BackgroundStartsOptions = {},
  ) {
    this.background = new BackgroundStarts(background);
  }

  /**
   * Starts after the caller has moved on (the request answers without waiting for Temporal). Only
   * for workflows that a sweep also starts from committed state; see BackgroundStarts.
   */
  startSoon<W extends Workflow>(workflow: W, opts: StartOptions<W>): void {
    this.runSoon(opts.workflowId, () => this.start(workflow, opts));
  }

  /**
   * Other starts made after the caller has moved on, in the same bounded queue (the webhook relay's
   * starts for committed events); likewise only for work a sweep also does from committed state.
   */
  runSoon(label: string, work: () => Promise<unknown>): void {
    this.background.enqueue(label, work);
  }

  /** Waits for the work queued by startSoon and runSoon, at most `maxWaitMs` (see BackgroundStarts.drain). */
  drain(maxWaitMs?: number): Promise<void> {
    return this.background.drain(maxWaitMs);
  }

  async start<W extends Workflow>(workflow: W, opts: StartOptions<W>): Promise<{ workflowId: string; started: boolean }> {
    try {
      // A start must not hang a request while Temporal is unreachable: fail within the deadline (503).
      await withCallContext(this.client, () =>
        this.client.withDeadline(Date.now() + START_DEADLINE_MS, () =>
          this.client.workflow.start(workflow, {
            taskQueue: this.taskQueue,
            workflowId: opts.workflowId,
            args: opts.args,
            typedSearchAttributes: searchAttributePairs(opts.searchAttributes),
            memo: opts.memo,
            workflowIdConflictPolicy: opts.onConflict === 'fail' ? WorkflowIdConflictPolicy.FAIL : WorkflowIdConflictPolicy.USE_EXISTING,
          } as unknown as WorkflowStartOptions<W>),
        ),
      );
      workflowStarts.inc({ workflow: workflow.name, outcome: 'started' });
      return { workflowId: opts.workflowId, started: true };
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) {
        workflowStarts.inc({ workflow: workflow.name, outcome: 'already_started' });
        return { workflowId: opts.workflowId, started: false };
      }
      workflowStarts.inc({ workflow: workflow.name, outcome: 'failed' });
      throw err;
    }
  }
}
