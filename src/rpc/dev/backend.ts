/**
 * What a dev chain's methods (anvil's and Hardhat's) act on, as narrow interfaces that node/ implements
 * over the embedded producer, its clock, the mempool and the dev accounts' keys. Only `chaind dev`
 * has them; every other node answers these methods with `devOnlyMethods`' refusal.
 */
import type { DevStateEdit } from '../../app/dev-state-patch.ts';
import type { UnsignedTx } from '../../execution/signing.ts';

import type { StateDump } from '../../app/dev-state-dump.ts';

export type { DevStateEdit } from '../../app/dev-state-patch.ts';
export type { StateDump } from '../../app/dev-state-dump.ts';

/** How blocks come (see the producer's MiningMode). */
export interface DevMiningMode {
  automine: boolean;
  intervalMs: number;
}

export interface DevMining {
  mode(): DevMiningMode;
  setMode(mode: DevMiningMode): void;
  /** `count` blocks now, each with what waits; later ones `intervalS` seconds apart when given. */
  mine(count: number, intervalS?: number): Promise<void>;
}

/** The producer's block clock (seconds). */
export interface DevClock {
  /** Adds `seconds` to the offset; returns the whole offset. */
  increase(seconds: number): number;
  setNext(seconds: number): void;
  setInterval(seconds: number | undefined): void;
  /** Seconds between blocks, when set. */
  interval(): number | undefined;
}

/** A key this node signs with. */
export interface DevSigner {
  signTransaction(tx: UnsignedTx): Uint8Array;
  /** EIP-191 personal message: r ‖ s ‖ v. */
  signMessage(message: Uint8Array): Uint8Array;
  /** EIP-712 typed data ({types, primaryType, domain, message}). */
  signTypedData(typed: unknown): Uint8Array;
}

export interface DevAccounts {
  /** The addresses this node signs for, in order (eth_accounts). */
  list(): Uint8Array[];
  signer(address: Uint8Array): DevSigner | undefined;
}

/** State edits (hardhat_setBalance, anvil_setCode, …). */
export interface DevState {
  /**
   * Commits the edits as a block of their own, at once and whatever the mining mode, so the very
   * next read at `latest` sees them and the heights before keep their history.
   */
  edit(edits: DevStateEdit[]): Promise<void>;
  /** Every EVM account of the latest state (anvil_dumpState). */
  dump(): Promise<StateDump>;
  /** Sets the dumped accounts, as one edit (anvil_loadState). */
  load(dump: StateDump): Promise<void>;
}

/** Sending as an account without its key (hardhat_impersonateAccount, anvil_autoImpersonateAccount). */
export interface DevImpersonation {
  start(address: Uint8Array): void;
  /** False if it was not impersonated. */
  stop(address: Uint8Array): boolean;
  /** Every address is impersonated while on. */
  setAuto(on: boolean): void;
  has(address: Uint8Array): boolean;
  /** Submits `tx` as sent by `from` (as eth_sendRawTransaction submits); its hash. */
  send(tx: UnsignedTx, from: Uint8Array): Promise<Uint8Array>;
}

/** A reset's `forking` parameters: the remote to fork again, and its block (absent: its latest). */
export interface DevForkRequest {
  url: string;
  blockNumber?: number;
}

/** Snapshots of the whole dev chain (evm_snapshot, evm_revert, hardhat_reset). */
export interface DevSnapshots {
  /** Records the chain as it is now (height, pool, clock, mining mode); returns its id: 1, 2, … */
  take(): number | Promise<number>;
  /**
   * Brings the chain back to snapshot `id` and deletes it and every later one; false when there is
   * no such snapshot (never taken, or deleted by a revert or reset).
   */
  revert(id: number): Promise<boolean>;
  /**
   * Brings the chain back to its genesis state at height 0, with no snapshots left; with `fork`, a
   * forked chain forks that remote block from then on (a chain not started as a fork refuses it).
   */
  reset(fork?: DevForkRequest): Promise<void>;
}

export interface DevNode {
  mining: DevMining;
  state: DevState;
  impersonation: DevImpersonation;
  snapshots: DevSnapshots;
  clock: DevClock;
  accounts: DevAccounts;
  /** Takes a tx out of the pool; false if it was not there. */
  dropTransaction(hash: Uint8Array): boolean;
  /** Set once per process: tells a test runner the node restarted (hardhat_metadata). */
  instanceId: Uint8Array;
  /** What `web3_clientVersion` says on this dev chain (tools detect a dev node by its prefix). */
  clientVersion: string;
}
