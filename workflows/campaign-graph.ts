import type { SequenceDefinition, WorkflowNode } from '../contracts/sequence-definition';

/** The pinned graph an enrollment runs: plain data passed in at start, never re-read. */
export type SequenceGraph = Pick<SequenceDefinition, 'nodes' | 'edges'>;

const UNIT_MS = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 } as const;

export const durationMs = (d: { duration: number; durationUnit: keyof typeof UNIT_MS }) => Math.round(d.duration * UNIT_MS[d.durationUnit]);

/** Conditions wait this long for their event unless their data says otherwise (documented in the OpenAPI description). */
export const DEFAULT_CONDITION_WINDOW = { duration: 48, durationUnit: 'hours' } as const;
export const DEFAULT_CONDITION_WINDOW_MS = durationMs(DEFAULT_CONDITION_WINDOW);

export function nodeById(graph: SequenceGraph, nodeId: string): WorkflowNode {
  const node = graph.nodes.find((n) => n.nodeId === nodeId);
  if (!node) throw new Error(`Node ${nodeId} is not in the definition`);
  return node;
}

export function triggerOf(graph: SequenceGraph): WorkflowNode {
  const trigger = graph.nodes.find((n) => n.type === 'trigger');
  if (!trigger) throw new Error('The definition has no trigger');
  return trigger;
}

/** The node after `nodeId` (following the `true`/`false` edge out of a condition); null at the end. */
export function nextNodeId(graph: SequenceGraph, nodeId: string, branch?: 'true' | 'false'): string | null {
  const edge = graph.edges.find((e) => e.source === nodeId && (branch === undefined || e.branch === branch));
  return edge?.target ?? null;
}
