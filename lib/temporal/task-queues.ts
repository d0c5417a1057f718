import { config } from '../config';

/** One queue for now; split per side effect (email, webhooks) when they need separate scaling. */
export const TASK_QUEUE = config.TEMPORAL_TASK_QUEUE;
