export * from './lead-dedupe';
export * from './lead-dedupe-sweep';
export * from './webhook-delivery';
export * from './webhook-sweep';
export * from './ai-generation';
export * from './lead-conversion';
export * from './campaign-sequence';
export * from './send-message';
