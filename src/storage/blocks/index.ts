/** Block and receipt store: blocks, tx indexes, receipts, logs index, bloom (DESIGN §4, §5). */
export * from './bloom.ts';
export * from './errors.ts';
export { compileLogFilter, logMatches, MAX_TOPICS } from './log-filter.ts';
export * from './store.ts';
export type * from './types.ts';
