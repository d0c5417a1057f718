/** A small valid sequence: trigger -> email -> wait -> condition (opened?) -> email | end. */
export function validSequence() {
  const pos = (i: number) => ({ x: 0, y: i * 120 });
  return {
    name: 'Welcome sequence',
    description: 'Two emails with a branch on opens',
    nodes: [
      { nodeId: 'start', type: 'trigger', position: pos(0), data: { label: 'Lead created', triggerType: 'lead_created' } },
      { nodeId: 'hello', type: 'email', position: pos(1), data: { subjectLine: 'Welcome, {{firstName}}', body: 'Hi {{firstName}}' } },
      { nodeId: 'pause', type: 'wait', position: pos(2), data: { duration: 2, durationUnit: 'days' } },
      { nodeId: 'opened', type: 'condition', position: pos(3), data: { conditionField: 'email_opened' } },
      { nodeId: 'follow', type: 'email', position: pos(4), data: { subjectLine: 'Still interested?', body: 'Just checking in' } },
      { nodeId: 'done', type: 'end', position: pos(5), data: {} },
    ],
    edges: [
      { edgeId: 'e1', source: 'start', target: 'hello' },
      { edgeId: 'e2', source: 'hello', target: 'pause' },
      { edgeId: 'e3', source: 'pause', target: 'opened' },
      { edgeId: 'e4', source: 'opened', target: 'done', branch: 'true' },
      { edgeId: 'e5', source: 'opened', target: 'follow', branch: 'false' },
      { edgeId: 'e6', source: 'follow', target: 'done' },
    ],
  };
}
