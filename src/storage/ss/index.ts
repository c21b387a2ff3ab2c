/** The State Store's public surface: what `node/` wires and what readers of history depend on. */
export { openStateStore } from './open.ts';
export type { CompositeStateStore } from './state-store.ts';
export type { StateStore, StoreChange, ImportEntry, SyncStateRead } from './types.ts';
export { STATE_STORE_DEFAULTS, type StateStoreBackend, type StateStoreOptions } from './options.ts';
export { EVM_STORE, EVM_KEY_PREFIX, EVM_SS_DATABASES } from './evm-keys.ts';
export {
  SSBackendRefusedError,
  SSChangelogCorruptError,
  SSClosedError,
  SSIterationDisabledError,
  SSRollbackRangeError,
  SSStartupRefusedError,
  SSVersionOrderError,
  SSVersionPrunedError,
  SSVersionTooHighError,
  SSWriterFailedError,
} from './errors.ts';
export { openStateStoreReader, type StateStoreReader } from './reader.ts';
