/** Typed errors of the State Commit layer; each has a stable code for the RPC and CLI layers. */
import { ChainError } from '../../util/errors.ts';

/** A rollback target outside what snapshots and the changelog can reconstruct. */
export class RollbackRangeError extends ChainError {
  readonly target: number;
  readonly oldest: number;
  readonly latest: number;
  constructor(target: number, oldest: number, latest: number, what = 'state commit') {
    super(
      'SC_ROLLBACK_OUT_OF_RANGE',
      `cannot roll back ${what} to height ${target}: reachable heights are ${oldest}..${latest}`,
    );
    this.target = target;
    this.oldest = oldest;
    this.latest = latest;
  }
}

/** A read or proof at a version that is not (or no longer) available. */
export class VersionUnavailableError extends ChainError {
  constructor(version: number, oldest: number | undefined, latest: number) {
    super(
      'SC_VERSION_UNAVAILABLE',
      `state commit version ${version} is not available (available: ${oldest === undefined ? 'none' : `${oldest}..${latest}`})`,
    );
  }
}

export class UnknownStoreError extends ChainError {
  constructor(store: string) {
    super('SC_UNKNOWN_STORE', `state commit has no store named "${store}"`);
  }
}

/** flatkv keeps no Merkle tree, so nothing can be proved about its keys. */
export class ProofUnsupportedError extends ChainError {
  constructor(store: string) {
    super(
      'SC_PROOF_UNSUPPORTED',
      `proofs for store "${store}" need state_commitment = "iavl": this chain commits EVM state with flatkv (app_state.evm.params.state_commitment = "flatkv"), which has no membership proofs`,
    );
  }
}

/** A state-sync snapshot stream that does not describe a valid state. */
export class IterationUnsupportedError extends ChainError {
  constructor(store: string) {
    super(
      'SC_ITERATION_UNSUPPORTED',
      `store "${store}" cannot be iterated: this chain commits EVM state with flatkv, whose tables have no key order`,
    );
  }
}

export class ImportError extends ChainError {
  constructor(why: string) {
    super('SC_IMPORT_INVALID', `state commit import failed: ${why}`);
  }
}

/** API misuse: applying to a version other than the next, committing twice, using a closed store. */
export class CommitStateError extends ChainError {
  constructor(message: string) {
    super('SC_INVALID_STATE', message);
  }
}
