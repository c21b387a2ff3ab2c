import { ChainError } from '../../util/errors.ts';

/** A read asked for a version the store has not reached yet. */
export class SSVersionTooHighError extends ChainError {
  readonly version: number;
  readonly latest: number;
  constructor(version: number, latest: number) {
    super(
      'SS_VERSION_TOO_HIGH',
      `state store has no version ${version} yet: its latest version is ${latest}`,
    );
    this.version = version;
    this.latest = latest;
  }
}

/** Change sets must arrive in strictly increasing version order. */
export class SSVersionOrderError extends ChainError {
  constructor(version: number, latest: number) {
    super(
      'SS_VERSION_NOT_INCREASING',
      `change set version ${version} is not above the state store's latest version ${latest}`,
    );
  }
}

/** The EVM SS answers point queries only (spec: "Iteration is disabled on it"). */
export class SSIterationDisabledError extends ChainError {
  constructor(store: string) {
    super(
      'SS_EVM_ITERATION_DISABLED',
      `iteration is disabled on the EVM state store (evm-ss-split = true): store "${store}" answers ` +
        'point queries (get/has) only; reads that need iteration must use the Cosmos state store',
    );
  }
}

export type StartupCheck = 'a' | 'b' | 'c';

/**
 * One of the split layout's startup refusals (docs/adr/0005-evm-ss-split-refusals.md), naming the
 * spec's two remedies: a state sync into the split layout (which fills both stores at the snapshot
 * height), or turning the split off.
 */
export class SSStartupRefusedError extends ChainError {
  readonly check: StartupCheck;
  readonly dir: string;
  constructor(check: StartupCheck, dir: string, problem: string) {
    super(
      'SS_STARTUP_REFUSED',
      `refusing to start with evm-ss-split = true: ${problem}. ` +
        'Complete a state sync into the split layout (wipe the data directory keeping ' +
        'priv_validator_state.json and start with [statesync] enable = true: ' +
        'docs/operators/evm-ss-split-migration.md), or set evm-ss-split = false in app.toml ' +
        '[state-store] and restart.',
    );
    this.check = check;
    this.dir = dir;
  }
}

/**
 * The configured `ss-backend`'s store lacks history State Commit has: the backend was changed on a
 * node with history, or its directory was lost. Serving from it would answer every older height
 * from an empty store (zeros, no code) as if that were the chain's state.
 */
export class SSBackendRefusedError extends ChainError {
  readonly dir: string;
  constructor(backend: string, dir: string, problem: string, remedy: string) {
    super('SS_BACKEND_REFUSED', `refusing to start with ss-backend = "${backend}": ${problem}. ${remedy}`);
    this.dir = dir;
  }
}

/** A changelog record other than the last one failed its checksum: the file is damaged, not torn. */
export class SSChangelogCorruptError extends ChainError {
  readonly file: string;
  constructor(file: string, offset: number, reason: string) {
    super(
      'SS_CHANGELOG_CORRUPT',
      `state store changelog ${file} is corrupt at byte ${offset} (${reason}); it is not a torn final ` +
        'record, so it was not dropped. Restore the data directory from a snapshot (state sync).',
    );
    this.file = file;
  }
}

/** The background writer failed; the store stops accepting writes rather than lose a block. */
export class SSWriterFailedError extends ChainError {
  constructor(cause: unknown) {
    super(
      'SS_WRITER_FAILED',
      `state store background writer failed: ${String((cause as Error)?.message ?? cause)}`,
      {
        cause,
      },
    );
  }
}

export class SSClosedError extends ChainError {
  constructor() {
    super('SS_CLOSED', 'state store is closed');
  }
}

/** A rollback target outside what the store can reach: below its earliest or above its latest version. */
export class SSRollbackRangeError extends ChainError {
  constructor(target: number, earliest: number, latest: number) {
    super(
      'SS_ROLLBACK_RANGE',
      `state store cannot roll back to version ${target}: it holds versions ${earliest} to ${latest}`,
    );
  }
}

/** A version pruning removed while a reader still needed it (a long replay of an old block). */
export class SSVersionPrunedError extends ChainError {
  readonly version: number;
  readonly earliest: number;
  constructor(version: number, earliest: number) {
    super(
      'SS_VERSION_PRUNED',
      `state store version ${version} was pruned while being read: the earliest version is now ${earliest}`,
    );
    this.version = version;
    this.earliest = earliest;
  }
}
