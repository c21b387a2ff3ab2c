/**
 * The synthetic views of the deprecated legacy surface (docs/legacy-synthetic-views.md): chain_ and chain2_ block,
 * transaction, receipt, log, filter and ExcludeTraceFail methods. rpc/legacy/index.ts merges this
 * table behind the allowlist gate.
 */
import { Resolver } from '../../evm/resolve.ts';
import type { MethodTable } from '../../server/dispatcher.ts';
import type { SyntheticBackend } from './backend.ts';
import { syntheticMethods, type SyntheticLive } from './methods.ts';

export type {
  BankTransfer,
  BlockTrace,
  BlockTracer,
  BlockTxRef,
  CosmosTxView,
  SyntheticBackend,
  SyntheticLog,
} from './backend.ts';
export type { SyntheticLive } from './methods.ts';
export { BlockNotFoundError, FailedBeforeExecutionError, TracerUnavailableError } from './methods.ts';
export { bankEntryHash, SYNTHETIC_TX_TYPE } from './views.ts';

/** `live.filters`: the chain_ filter table (a FilterStore separate from eth_'s); without it no chain_ filter methods. */
export function syntheticLegacyMethods(backend: SyntheticBackend, live: SyntheticLive = {}): MethodTable {
  return syntheticMethods(backend, new Resolver(backend.chain), live);
}
