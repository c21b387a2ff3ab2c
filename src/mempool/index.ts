/** The mempool's public surface: node/ builds a Mempool; rpc/ and chain/ use its methods and errors. */
export { Mempool, REPLACEMENT_BUMP_PERCENT, isReplacementPriced } from './mempool.ts';
export { MempoolError, rejectMessages, type MempoolRejectReason } from './errors.ts';
export { effectiveTip } from './tx-set.ts';
export {
  DEFAULT_MEMPOOL_OPTIONS,
  type AccountReader,
  type MempoolDeps,
  type MempoolOptions,
  type MempoolParams,
  type PendingListener,
} from './types.ts';
