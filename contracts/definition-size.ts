import type { z } from 'zod';

/**
 * Every enrollment's workflow carries the pinned graph in its input (and again at each
 * continue-as-new), and Temporal refuses payloads over 2 MB: the graph is capped far below that.
 */
export const DEFINITION_MAX_BYTES = 256 * 1024;

export function checkDefinitionSize(def: { nodes: unknown[]; edges: unknown[] }, ctx: z.RefinementCtx): void {
  const bytes = Buffer.byteLength(JSON.stringify({ nodes: def.nodes, edges: def.edges }));
  if (bytes > DEFINITION_MAX_BYTES) {
    ctx.addIssue({
      code: 'custom',
      path: ['nodes'],
      message: `The nodes and edges take ${bytes} bytes; at most ${DEFINITION_MAX_BYTES} are allowed. Shorten the email bodies (or use templateId) or split the sequence`,
    });
  }
}
