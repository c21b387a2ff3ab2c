/**
 * State Commit (SC): the latest state that execution reads and writes, and the app hash.
 * The node uses only this module's public surface:
 *   openCommitStore(options) -> CommitStore   applyChangeSets / workingHash / commit / get / getWorking /
 *                                              getProof / lastCommitInfo / rollback / export / import / close
 */
export {
  CommitStore,
  openCommitStore,
  EVM_STORE,
  EVM_LATTICE_STORE,
  type CommitStoreOptions,
  type CommitResult,
  type KeyProof,
  type StateCommitment,
} from './commit-store.ts';
export { commitInfoHash, type CommitInfo, type StoreInfo } from './commit-info.ts';
export type { ProofOps, ProofOp } from './proof.ts';
export { encodeItems, decodeItems, LEGACY_EVM_SECTION, type SnapshotItem } from './snapshot-items.ts';
export type { ChangeSet, KVPair, StoreUpgrade } from './types.ts';
export {
  CommitStateError,
  ImportError,
  ProofUnsupportedError,
  RollbackRangeError,
  UnknownStoreError,
  VersionUnavailableError,
} from './errors.ts';
