/** Sequence definitions for campaign tests (valid under POST /v1/workflows rules). */
const pos = (i: number) => ({ x: 0, y: i * 100 });
type Wait = { duration: number; durationUnit: 'minutes' | 'hours' | 'days' };

const email = (nodeId: string, i: number, subject: string) => ({
  nodeId,
  type: 'email',
  position: pos(i),
  data: { subjectLine: subject, body: `Hi {{firstName}},\n\nSee https://example.com/pricing?from=${nodeId} for details.\n\nThe team` },
});

/** trigger -> email -> end, the email node's data as given (subject, body, a senderId ...). */
export function oneEmail(data: Record<string, unknown>, name = 'One email') {
  return {
    name,
    nodes: [
      { nodeId: 'start', type: 'trigger', position: pos(0), data: { triggerType: 'manual' } },
      { nodeId: 'email-1', type: 'email', position: pos(1), data },
      { nodeId: 'done', type: 'end', position: pos(2), data: {} },
    ],
    edges: [
      { edgeId: 'e1', source: 'start', target: 'email-1' },
      { edgeId: 'e2', source: 'email-1', target: 'done' },
    ],
  };
}

/** trigger -> email -> wait -> email -> wait -> email -> end */
export function threeEmails(wait: Wait = { duration: 2, durationUnit: 'days' }, triggerType = 'manual') {
  return {
    name: 'Three emails',
    nodes: [
      { nodeId: 'start', type: 'trigger', position: pos(0), data: { triggerType } },
      email('email-1', 1, 'Welcome, {{firstName}}'),
      { nodeId: 'wait-1', type: 'wait', position: pos(2), data: wait },
      email('email-2', 3, 'Second note'),
      { nodeId: 'wait-2', type: 'wait', position: pos(4), data: wait },
      email('email-3', 5, 'Last note'),
      { nodeId: 'done', type: 'end', position: pos(6), data: {} },
    ],
    edges: [
      { edgeId: 'e1', source: 'start', target: 'email-1' },
      { edgeId: 'e2', source: 'email-1', target: 'wait-1' },
      { edgeId: 'e3', source: 'wait-1', target: 'email-2' },
      { edgeId: 'e4', source: 'email-2', target: 'wait-2' },
      { edgeId: 'e5', source: 'wait-2', target: 'email-3' },
      { edgeId: 'e6', source: 'email-3', target: 'done' },
    ],
  };
}

/** trigger -> email -> opened within the window? -> yes-email | no-email -> end */
export function branchOnOpen(window: Wait = { duration: 1, durationUnit: 'days' }) {
  return {
    name: 'Branch on open',
    nodes: [
      { nodeId: 'start', type: 'trigger', position: pos(0), data: { triggerType: 'manual' } },
      email('intro', 1, 'Hello'),
      { nodeId: 'opened', type: 'condition', position: pos(2), data: { conditionField: 'email_opened', window } },
      email('yes-email', 3, 'Glad you read it'),
      email('no-email', 3, 'Did you miss this?'),
      { nodeId: 'done', type: 'end', position: pos(4), data: {} },
    ],
    edges: [
      { edgeId: 'e1', source: 'start', target: 'intro' },
      { edgeId: 'e2', source: 'intro', target: 'opened' },
      { edgeId: 'e3', source: 'opened', target: 'yes-email', branch: 'true' },
      { edgeId: 'e4', source: 'opened', target: 'no-email', branch: 'false' },
      { edgeId: 'e5', source: 'yes-email', target: 'done' },
      { edgeId: 'e6', source: 'no-email', target: 'done' },
    ],
  };
}

/** branchOnOpen with a one-day wait between the email and the condition: opens arrive before it waits on them. */
export function branchOnOpenAfterWait() {
  const base = branchOnOpen();
  return {
    ...base,
    name: 'Branch on open after a wait',
    nodes: [...base.nodes, { nodeId: 'pause', type: 'wait', position: pos(1), data: { duration: 1, durationUnit: 'days' } }],
    edges: [
      ...base.edges.filter((e) => e.edgeId !== 'e2'),
      { edgeId: 'e2a', source: 'intro', target: 'pause' },
      { edgeId: 'e2b', source: 'pause', target: 'opened' },
    ],
  };
}

/** trigger -> action (create_task) -> action (update_lead_score) -> action (update_lead_status) -> end */
export function actionsOnly(triggerType = 'manual') {
  return {
    name: 'Actions only',
    nodes: [
      { nodeId: 'start', type: 'trigger', position: pos(0), data: { triggerType } },
      { nodeId: 'task', type: 'action', position: pos(1), data: { actionType: 'create_task', taskTitle: 'Call {{firstName}} back' } },
      { nodeId: 'score', type: 'action', position: pos(2), data: { actionType: 'update_lead_score', scoreDelta: 15 } },
      { nodeId: 'status', type: 'action', position: pos(3), data: { actionType: 'update_lead_status', status: 'contacted' } },
      { nodeId: 'done', type: 'end', position: pos(4), data: {} },
    ],
    edges: [
      { edgeId: 'e1', source: 'start', target: 'task' },
      { edgeId: 'e2', source: 'task', target: 'score' },
      { edgeId: 'e3', source: 'score', target: 'status' },
      { edgeId: 'e4', source: 'status', target: 'done' },
    ],
  };
}

/** trigger -> wait (30 days) -> end: an enrollment that only sleeps, the cheapest real one to run by the thousand. */
export function waitOnly() {
  return {
    name: 'Wait only',
    nodes: [
      { nodeId: 'start', type: 'trigger', position: pos(0), data: { triggerType: 'manual' } },
      { nodeId: 'wait', type: 'wait', position: pos(1), data: { duration: 30, durationUnit: 'days' } },
      { nodeId: 'done', type: 'end', position: pos(2), data: {} },
    ],
    edges: [
      { edgeId: 'e1', source: 'start', target: 'wait' },
      { edgeId: 'e2', source: 'wait', target: 'done' },
    ],
  };
}

/** Trigger -> a condition on `conditionField` for 30 days -> end either way. */
export function awaitEngagementOf(conditionField: 'email_replied' | 'link_clicked' | 'email_opened', name: string) {
  return {
    name,
    nodes: [
      { nodeId: 'start', type: 'trigger', position: pos(0), data: { triggerType: 'manual' } },
      {
        nodeId: 'waiting',
        type: 'condition',
        position: pos(1),
        data: { conditionField, window: { duration: 30, durationUnit: 'days' } },
      },
      { nodeId: 'done', type: 'end', position: pos(2), data: {} },
    ],
    edges: [
      { edgeId: 'e1', source: 'start', target: 'waiting' },
      { edgeId: 'e2', source: 'waiting', target: 'done', branch: 'true' },
      { edgeId: 'e3', source: 'waiting', target: 'done', branch: 'false' },
    ],
  };
}
