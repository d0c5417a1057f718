import type { z } from 'zod';
import type { WorkflowNode } from './sequence-definition';

interface Node {
  nodeId: string;
  type: string;
}
interface Edge {
  edgeId: string;
  source: string;
  target: string;
  branch?: 'true' | 'false';
}

/**
 * The graph rules (docs/decisions.md, "Workflow definitions (`/v1/workflows`)"), as zod issues whose path names the offending node or edge
 * (`nodes.3`, `edges.2.target`), so a UI can highlight it.
 */
export function checkSequenceGraph({ nodes, edges }: { nodes: Node[]; edges: Edge[] }, ctx: z.RefinementCtx): void {
  const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });

  const index = new Map<string, number>();
  nodes.forEach((n, i) => {
    if (index.has(n.nodeId)) issue(['nodes', i, 'nodeId'], `Duplicate nodeId "${n.nodeId}"`);
    else index.set(n.nodeId, i);
  });
  const edgeIds = new Set<string>();
  edges.forEach((e, i) => {
    if (edgeIds.has(e.edgeId)) issue(['edges', i, 'edgeId'], `Duplicate edgeId "${e.edgeId}"`);
    edgeIds.add(e.edgeId);
  });

  const triggers = nodes.map((n, i) => [n, i] as const).filter(([n]) => n.type === 'trigger');
  if (triggers.length === 0) issue(['nodes'], 'Exactly one trigger node is required; there is none');
  triggers.slice(1).forEach(([n, i]) => issue(['nodes', i, 'type'], `Exactly one trigger node is allowed; "${n.nodeId}" is another`));

  const outgoing = new Map<string, Edge[]>();
  edges.forEach((e, i) => {
    const source = index.has(e.source) ? nodes[index.get(e.source)!] : undefined;
    const target = index.has(e.target) ? nodes[index.get(e.target)!] : undefined;
    if (!source) issue(['edges', i, 'source'], `Edge "${e.edgeId}" starts at unknown node "${e.source}"`);
    if (!target) issue(['edges', i, 'target'], `Edge "${e.edgeId}" ends at unknown node "${e.target}"`);
    if (!source || !target) return;
    if (target.type === 'trigger') issue(['edges', i, 'target'], `Edge "${e.edgeId}" points at the trigger; nothing may lead into it`);
    if (source.type === 'end') issue(['edges', i, 'source'], `Edge "${e.edgeId}" leaves end node "${e.source}"`);
    if (source.type === 'condition' && !e.branch) {
      issue(['edges', i, 'branch'], `Edge "${e.edgeId}" leaves condition "${e.source}" and needs branch "true" or "false"`);
    }
    if (source.type !== 'condition' && e.branch) {
      issue(['edges', i, 'branch'], `Edge "${e.edgeId}" has a branch but "${e.source}" is not a condition`);
    }
    const list = outgoing.get(e.source) ?? [];
    if (source.type !== 'condition' && list.length > 0) {
      issue(['edges', i, 'source'], `Node "${e.source}" already has an outgoing edge; only condition nodes branch`);
    }
    list.push(e);
    outgoing.set(e.source, list);
  });

  nodes.forEach((n, i) => {
    if (n.type !== 'condition') return;
    const out = outgoing.get(n.nodeId) ?? [];
    const t = out.filter((e) => e.branch === 'true').length;
    const f = out.filter((e) => e.branch === 'false').length;
    if (t !== 1 || f !== 1) {
      issue(['nodes', i], `Condition "${n.nodeId}" needs exactly one "true" and one "false" outgoing edge (has ${t} and ${f})`);
    }
  });

  checkCycles(nodes, edges, index, issue);
  if (triggers.length === 1) checkReachable(nodes, outgoing, triggers[0][0].nodeId, issue);
}

/** Depth-first search; the edge that closes a loop is reported (a sequence must always end). */
function checkCycles(nodes: Node[], edges: Edge[], index: Map<string, number>, issue: (p: (string | number)[], m: string) => void) {
  const adj = new Map<string, [string, number][]>();
  edges.forEach((e, i) => {
    if (index.has(e.source) && index.has(e.target)) adj.set(e.source, [...(adj.get(e.source) ?? []), [e.target, i]]);
  });
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (id: string) => {
    state.set(id, 'visiting');
    for (const [next, edgeIndex] of adj.get(id) ?? []) {
      const s = state.get(next);
      if (s === 'visiting') issue(['edges', edgeIndex, 'target'], `Edge "${edges[edgeIndex].edgeId}" closes a cycle back to "${next}"`);
      else if (!s) visit(next);
    }
    state.set(id, 'done');
  };
  for (const n of nodes) if (!state.has(n.nodeId)) visit(n.nodeId);
}

function checkReachable(nodes: Node[], outgoing: Map<string, Edge[]>, start: string, issue: (p: (string | number)[], m: string) => void) {
  const seen = new Set([start]);
  const queue = [start];
  while (queue.length) {
    for (const e of outgoing.get(queue.shift()!) ?? []) {
      if (!seen.has(e.target)) {
        seen.add(e.target);
        queue.push(e.target);
      }
    }
  }
  nodes.forEach((n, i) => {
    if (!seen.has(n.nodeId)) issue(['nodes', i], `Node "${n.nodeId}" cannot be reached from the trigger`);
  });
}

/**
 * Not errors, but worth saying: a condition right after a wait, without a window of its own, waits
 * the default window more after the wait has ended ("wait 1 minute, then opened?" waits 48 hours).
 */
export function conditionWindowWarnings(
  { nodes, edges }: { nodes: WorkflowNode[]; edges: Edge[] },
  defaultWindow: string,
): { field: string; message: string }[] {
  const typeOf = new Map(nodes.map((n) => [n.nodeId, n.type]));
  return nodes.flatMap((n, i) => {
    if (n.type !== 'condition' || n.data.window || n.data.conditionField === 'lead_status') return [];
    const wait = edges.find((e) => e.target === n.nodeId && typeOf.get(e.source) === 'wait');
    if (!wait) return [];
    return [
      {
        field: `nodes.${i}.data.window`,
        message: `Condition "${n.nodeId}" follows wait "${wait.source}" and has no window: once that wait ends it waits up to ${defaultWindow} more for its event (the default). Set data.window to how long it should wait`,
      },
    ];
  });
}
