/** Block and receipt store: blocks, tx indexes, receipts, logs index, bloom (docs/adr/0006-receipts-in-the-block-store.md). */
export * from './bloom.ts';
export * from './errors.ts';
export { compileLogFilter, logMatches, MAX_TOPICS } from './log-filter.ts';
export * from './store.ts';
export { APPEARANCE, type Appearance } from './address-index.ts';
export type * from './types.ts';
