import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request latency by route template and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  registers: [metricsRegistry],
});

/** Audit entries whose write failed after their change committed (logged in full instead): alert on any. */
export const auditEntriesLost = new Counter({
  name: 'audit_entries_lost_total',
  help: 'Audit entries that could not be stored after the change they record committed',
  registers: [metricsRegistry],
});

export const workflowStarts = new Counter({
  name: 'temporal_workflow_starts_total',
  help: 'Workflow starts requested by the API, by workflow type and outcome',
  labelNames: ['workflow', 'outcome'] as const,
  registers: [metricsRegistry],
});

/** How many single lead creates each statement wrote (domain/leads/grouped-creates.ts): 1 when idle, more under load. */
export const leadCreateGroupSize = new Histogram({
  name: 'lead_create_group_size',
  help: 'Concurrent POST /v1/leads creates written by one statement',
  buckets: [1, 2, 5, 10, 25, 50, 100],
  registers: [metricsRegistry],
});

/** How many API engagement events each statement wrote (domain/engagement/grouped-events.ts). */
export const engagementEventGroupSize = new Histogram({
  name: 'engagement_event_group_size',
  help: 'Concurrent POST /v1/analytics/events events written by one statement',
  buckets: [1, 2, 5, 10, 25, 50, 100],
  registers: [metricsRegistry],
});
