/**
 * The block pipeline and the chain's committed height. Per block:
 *   execute → block store (block, receipts, indexes: one durable write), and beside it the State
 *   Store change set → State Commit (app hash for the next header) → notify once all are written.
 * So after any crash: SS ≥ SC in height, and each is at most one block ahead of the block store. On
 * open, what is ahead of the block store is rolled back, every block the block store has but SC lacks
 * is re-executed from its stored transactions (deterministic), and each store takes only the
 * versions it is missing, so the three end at one height with unchanged app hashes. Each state is
 * checked against the app hash of the stored block above it before it is written (see replayTo), so a
 * mismatch stops the node without changing any store.
 *
 * Versions: the genesis state is State Commit / State Store version 1, and the state after block h
 * is version h + 1 (`stateVersion`). Block h's header carries the app hash of version h.
 */
import { AccountReader } from '../app/accounts.ts';
import type { Genesis } from '../app/genesis.ts';
import type { AccountReader as MempoolAccounts } from '../mempool/types.ts';
import { FEE_COLLECTOR_ADDRESS } from '../app/evm.ts';
import { initChainState } from '../app/init-chain.ts';
import type { Common } from '../execution/chain-config.ts';
import { createEthTxDecoder, type EthTxDecoder } from '../execution/transactions.ts';
import { unwrapEthTransaction } from '../execution/tx-wrap.ts';
import { equalBytes, toHex } from '../primitives/bytes.ts';
import { StateOverlay, type StateReader, type StoreChanges } from '../state/overlay.ts';
import type { BlockStore } from '../storage/blocks/store.ts';
import type { Block } from '../storage/blocks/types.ts';
import type { CommitStore } from '../storage/sc/commit-store.ts';
import type { ChangeSet } from '../storage/sc/types.ts';
import { LEGACY_EVM_SECTION, type SnapshotItem } from '../storage/sc/snapshot-items.ts';
import type { ImportEntry, StateStore, StoreChange } from '../storage/ss/types.ts';
import { ChainError, errorMessage } from '../util/errors.ts';
import { outOfDiskIn } from '../util/out-of-disk.ts';
import type { Logger } from '../util/logger.ts';
import { baseFeeParamsFrom, type BaseFeeParams } from './base-fee.ts';
import {
  type BlockContext,
  type BlockTx,
  devBlockParams,
  executeBlock,
  type ExecutedBlock,
  type ProposalOptions,
  type ReplayHooks,
} from './block-execution.ts';
import { KeptExecutions } from './kept-executions.ts';
import { consensusInfoOfBlock } from './consensus-info.ts';
import type { ConsensusInfo } from '../app/block-hooks.ts';
import { cosmosTxHash, decodeCosmosTx } from '../app/cosmos-tx.ts';
import { isDevRecord, unwrapDevRecord } from '../app/dev-records.ts';
import { decodeImpersonatedTransaction } from '../execution/transactions.ts';
import { type StateAt, stateVersion, VersionedState } from './state-at.ts';

export { stateVersion } from './state-at.ts';

export interface ChainOptions {
  genesis: Genesis;
  common: Common;
  sc: CommitStore;
  ss: StateStore;
  blocks: BlockStore;
  logger: Logger;
  /** A dev chain: its blocks may hold dev records (state patches, impersonated txs; app/dev-records.ts). */
  devRecords?: boolean;
}

export interface CommittedBlock {
  block: Block;
  executed: ExecutedBlock;
  appHash: Uint8Array;
  /** Seconds each commit step took (block store write, SS change set, SC commit), for metrics. */
  timings: { blockStore: number; stateStore: number; stateCommit: number };
}

export type BlockListener = (committed: CommittedBlock) => void;

/**
 * What a block's execution takes from its header: its height, its time, and its parent's app hash;
 * and the consensus info its beginBlock gets (consensus-info.ts).
 */
export type ExecutionHeader = Pick<Block['header'], 'height' | 'time' | 'appHash'> & {
  consensus: ConsensusInfo;
};

/** What a block to be proposed or decided is besides its txs (its parent is the latest block). */
export interface BlockSlot {
  height: number;
  time: Block['header']['time'];
  consensus: ConsensusInfo;
}

/** A block executed on other than the latest committed state, or watched while it runs. */
export interface ExecuteOver {
  /** The parent state (default: the latest committed state). */
  state?: StateReader;
  /** A traced replay's hooks (chain/trace-replay.ts). */
  hooks?: ReplayHooks;
  /** A proposal's execution budget (tests). */
  proposal?: ProposalOptions;
}

/** The gas limit every block header reports: the genesis's max_gas, -1 (no limit) as the largest int64. */
export function blockGasLimit(genesis: Genesis): bigint {
  const maxGas = BigInt(genesis.consensus_params.block.max_gas);
  return maxGas < 0n ? 2n ** 63n - 1n : maxGas;
}

export class Chain {
  readonly genesis: Genesis;
  readonly common: Common;
  readonly feeParams: BaseFeeParams;
  /** The genesis's block gas limit (max_gas). */
  readonly genesisGasLimit: bigint;
  readonly decode: EthTxDecoder;
  private readonly sc: CommitStore;
  private readonly ss: StateStore;
  readonly blocks: BlockStore;
  private readonly log: Logger;
  private readonly devRecords: boolean;
  private readonly listeners = new Set<BlockListener>();
  private readonly headListeners = new Set<(height: number) => void>();
  private readonly rewindListeners = new Set<(height: number) => void>();
  private height = 0;
  /** Network mode: the block FinalizeBlock executed, awaiting Commit. */
  private finalized: { block: Block; executed: ExecutedBlock } | undefined;
  /** Executions of the next block, taken by the FinalizeBlock (or commit) of the block they ran. */
  private readonly kept = new KeptExecutions();
  /** State at any retained height (state-at.ts): what every reader outside execution goes through. */
  readonly states: VersionedState;
  /** Why the chain commits nothing more: a block's write failed partway (see stopCommitting). */
  private stopped: string | undefined;
  /** The disk filled: the one line that said so (see outOfDisk). */
  private diskFullReason: string | undefined;

  constructor(o: ChainOptions) {
    this.genesis = o.genesis;
    this.common = o.common;
    this.sc = o.sc;
    this.ss = o.ss;
    this.blocks = o.blocks;
    this.log = o.logger.child({ module: 'chain' });
    this.devRecords = o.devRecords === true;
    this.feeParams = baseFeeParamsFrom(o.genesis.app_state.evm.params.base_fee);
    this.genesisGasLimit = blockGasLimit(o.genesis);
    this.decode = createEthTxDecoder(o.common);
    this.states = new VersionedState({ sc: o.sc, ss: o.ss });
  }

  /**
   * The gas limit of the next block: the genesis's, or on a dev chain what evm_setBlockGasLimit set
   * (in the latest state, where block execution reads it too).
   */
  get gasLimit(): bigint {
    if (!this.devRecords) return this.genesisGasLimit;
    return devBlockParams(this.state).gasLimit ?? this.genesisGasLimit;
  }

  /** The gas limit block `height` ran with (read in the state before it). */
  async gasLimitAt(height: number): Promise<bigint> {
    if (!this.devRecords || height < 1) return this.genesisGasLimit;
    const set = await this.stateAt(height - 1).read((s) => devBlockParams(s).gasLimit);
    return set ?? this.genesisGasLimit;
  }

  /** Height of the last committed block (0: only genesis). */
  get latestHeight(): number {
    return this.height;
  }

  /** App hash of the state after the latest block: the next header's app_hash. */
  get appHash(): Uint8Array {
    return this.sc.appHash();
  }

  /**
   * Latest committed state, for execution and admission. Stable for an overlay's life: SC changes
   * only in commit(), after the block's overlay is done with (a longer-lived reader such as an
   * eth_call keeps the version it started on, which is what it should see anyway).
   */
  get state(): StateReader {
    return { get: (store: string, key: Uint8Array) => this.sc.get(store, key), stable: true };
  }

  /** The state after block `height` (SC for the latest, SS for history; cached per version). */
  stateAt(height: number): StateAt {
    return this.states.at(height);
  }

  /**
   * The accounts of the latest committed state, as admission reads them: State Commit's, which is
   * what stateAt(latestHeight) reads too, here without the version cache (a sender's account is read
   * once per admission, and again only after the next block changed it).
   */
  readonly latestAccounts: MempoolAccounts = {
    nonce: async (address) => new AccountReader(this.state).nonce(address),
    balance: async (address) => new AccountReader(this.state).balance(address),
  };

  onBlock(listener: BlockListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Called with the latest height each time it moves, by a block (after the block's listeners) or
   * by a state-sync restore: for whatever must follow the height the node serves (RPC reader threads).
   */
  onHead(listener: (height: number) => void): () => void {
    this.headListeners.add(listener);
    return () => this.headListeners.delete(listener);
  }

  /**
   * Called with the new latest height once a dev chain's rewind (rewindTo) has rolled the stores
   * back: whatever keeps answers by height (caches, filter cursors) forgets or clamps what lay above
   * it, since the heights committed next under the same numbers are other blocks.
   */
  onRewind(listener: (height: number) => void): () => void {
    this.rewindListeners.add(listener);
    return () => this.rewindListeners.delete(listener);
  }

  private headMoved(): void {
    for (const l of this.headListeners) {
      try {
        l(this.height);
      } catch (err) {
        this.log.error({ err: (err as Error).message }, 'head listener failed');
      }
    }
  }

  async open(): Promise<void> {
    if (this.sc.version === 0) await this.commitGenesis();
    await this.recover();
    this.log.info({ height: this.height, app_hash: toHex(this.appHash).toUpperCase() }, 'chain opened');
  }

  private async commitGenesis(): Promise<void> {
    const overlay = new StateOverlay({ get: () => undefined });
    initChainState(this.genesis, overlay);
    const changes = overlay.changes();
    if (this.ss.latestVersion() < 1) await this.ss.applyChangeSet(1, toStoreChanges(changes));
    this.sc.applyChangeSets(1, toChangeSets(changes));
    const { appHash } = await this.sc.commit();
    this.log.info({ app_hash: toHex(appHash).toUpperCase() }, 'genesis state committed');
  }

  /**
   * For `chaind rollback`: opens without replaying, because the replay stops at an app-hash mismatch,
   * which is what a rollback is for; rollbackTo() checks the height it lands on instead.
   */
  async openForRollback(): Promise<void> {
    if (this.sc.version === 0) await this.commitGenesis();
    this.height = this.blocks.latestHeight() ?? 0;
  }

  /** Brings SS and SC up to the block store by replaying stored blocks (see the file comment). */
  private async recover(): Promise<void> {
    const blockHeight = this.blocks.latestHeight() ?? 0;
    const scHeight = this.sc.version - 1;
    const ssHeight = this.ss.latestVersion() - 1;
    if (this.blocks.latestHeight() === undefined && scHeight > 0) {
      // the pipeline never puts State Commit above an empty block store: only a state-sync restore
      // does, and it marks the block store last, so the restore was interrupted
      throw new ChainError(
        'STORES_INCONSISTENT',
        `the state commit is at height ${scHeight} but the block store is empty: a state-sync restore was interrupted; ` +
          'start the node with [statesync] enable = true to state sync again (a node without blocks removes ' +
          'the unfinished restore first)',
      );
    }
    if (scHeight > blockHeight) {
      this.log.warn(
        { sc: scHeight, blocks: blockHeight },
        'state commit is ahead of the block store; rolling it back',
      );
      await this.sc.rollback(stateVersion(blockHeight));
    }
    if (ssHeight === blockHeight + 1) {
      // the block store and SS take a block's writes side by side: a crash can land between them
      this.log.warn(
        { ss: ssHeight, blocks: blockHeight },
        'state store is one block ahead of the block store; rolling it back',
      );
      await this.ss.rollback(stateVersion(blockHeight));
    } else if (ssHeight > blockHeight) {
      throw new ChainError(
        'STORES_INCONSISTENT',
        `the state store is at height ${ssHeight} but the block store only at ${blockHeight}; restore from a snapshot`,
      );
    }
    await this.replayTo(blockHeight);
    this.height = blockHeight;
  }

  /**
   * Replays stored blocks from SC's version through block `height`. Each state is compared with the
   * app hash the stored block above it carries before anything is written: SC's own latest state
   * first, then each replayed block's working hash (computed, not committed), and only a state that
   * matches reaches SS and SC. So a mismatch leaves every store as it was, and every retry stops at
   * the same height with the same hashes. (The uncommitted working state is dropped with the store,
   * which the failed start or rollback closes.)
   */
  private async replayTo(height: number): Promise<void> {
    this.checkAppHash(this.sc.version, this.sc.appHash());
    for (let h = this.sc.version; h <= height; h++) {
      const block = this.blocks.blockByHeight(h);
      if (!block) throw new ChainError('STORES_INCONSISTENT', `block ${h} is missing from the block store`);
      const txs = block.txs.map((raw) => this.decodeBlockTx(raw));
      const executed = await this.execute(
        { ...block.header, consensus: consensusInfoOfBlock(block) },
        txs,
        'replay',
      );
      const changes = executed.overlay.changes();
      this.sc.applyChangeSets(stateVersion(h), toChangeSets(changes));
      this.checkAppHash(h + 1, await this.sc.workingHashAsync());
      if (this.ss.latestVersion() < stateVersion(h))
        await this.ss.applyChangeSet(stateVersion(h), toStoreChanges(changes));
      const { appHash } = await this.sc.commit();
      this.log.info({ height: h, app_hash: toHex(appHash).toUpperCase() }, 'replayed block');
    }
  }

  /**
   * Block `height` carries the app hash of state version `height`; a stored block that disagrees with
   * `appHash` stops the node (the spec's log line), with the remedy in the error.
   */
  private checkAppHash(height: number, appHash: Uint8Array): void {
    const block = this.blocks.blockByHeight(height);
    if (!block || equalBytes(block.header.appHash, appHash)) return;
    const expected = toHex(block.header.appHash).toUpperCase();
    const got = toHex(appHash).toUpperCase();
    const blockId = toHex(block.hash).toUpperCase();
    this.log.error(
      { block_id: blockId, height },
      `wrong Block.Header.AppHash. Expected ${expected}, got ${got}`,
    );
    // The state below block `height` is wrong, so block height - 1 may have been executed on a wrong
    // state too: the newest height that can agree with the stored blocks is height - 2.
    const latest = this.blocks.latestHeight() ?? 0;
    const remedy =
      height >= 2
        ? `stop the node and roll back to height ${height - 2} or lower (\`chaind rollback -n ${latest - height + 2}\`), or restore a snapshot`
        : 'the genesis state does not match block 1: check config/genesis.json or restore a snapshot';
    throw new ChainError(
      'APP_HASH_MISMATCH',
      `wrong Block.Header.AppHash. Expected ${expected}, got ${got} (height ${height}, block_id ${blockId}): ` +
        `the state commit does not match the stored blocks and nothing was changed; ${remedy}`,
    );
  }

  /**
   * A stored block's tx: an Ethereum tx wrapped in a TxRaw, or a signed Cosmos tx; on a dev chain
   * also a dev record. Anywhere else a dev record is no message any module handles, so the Cosmos
   * decoder refuses it and with it the block.
   */
  decodeBlockTx(raw: Uint8Array): BlockTx {
    const eth = unwrapEthTransaction(raw);
    if (eth) return { kind: 'eth', tx: this.decode(eth) };
    const dev = this.devRecords ? unwrapDevRecord(raw) : undefined;
    if (dev?.kind === 'impersonated')
      return { kind: 'eth', tx: decodeImpersonatedTransaction(dev.raw, dev.sender, this.common) };
    if (dev?.kind === 'statePatch')
      return { kind: 'devPatch', tx: { raw, hash: cosmosTxHash(raw), gasLimit: 0n, edits: dev.edits } };
    try {
      return { kind: 'cosmos', tx: decodeCosmosTx(raw) };
    } catch (err) {
      if (!this.devRecords && isDevRecord(raw))
        throw new ChainError(
          'BAD_BLOCK',
          'the block holds a dev chain record (a state edit or an impersonated tx): only `chaind dev` accepts one',
        );
      throw err;
    }
  }

  /**
   * Executes `txs` as the block `header` describes, on the latest committed state unless `over`
   * gives another: every block this node runs (proposed, decided, replayed after a crash, pending,
   * re-executed for a trace) runs here, so the EVM under block execution is chosen in one place.
   * `propose` leaves out a candidate that cannot be included; `replay` fails on one. A block run on
   * the latest committed state is one that may be stored (proposed, decided, replayed), so it collects
   * its txs' call-tree addresses for the address index; runs over another state (pending, traces)
   * are never stored and skip it.
   */
  execute(
    header: ExecutionHeader,
    txs: BlockTx[],
    mode: 'propose' | 'replay',
    over: ExecuteOver = {},
  ): Promise<ExecutedBlock> {
    return executeBlock(
      this.common,
      over.state ?? this.state,
      this.contextFor(header),
      this.feeParams,
      txs,
      mode,
      over.hooks,
      over.proposal,
      over.state === undefined,
    );
  }

  /**
   * The next block built from `candidates` (in their order, leaving out what cannot be included)
   * on the latest state. The execution is kept for the FinalizeBlock of the block it becomes.
   */
  async propose(slot: BlockSlot, candidates: BlockTx[]) {
    const executed = await this.execute({ ...slot, appHash: this.appHash }, candidates, 'propose');
    this.kept.keep({ ...slot, txs: executed.txs }, executed);
    return executed;
  }

  /**
   * The execution of a block another node may have built (network mode's ProcessProposal and
   * FinalizeBlock): the kept one, or run now in replay mode and kept. Throws a BAD_BLOCK or
   * REPLAY_DIVERGED ChainError for a block this state machine does not accept: a tx that does not
   * decode or would be left out, or a height that does not follow the latest.
   */
  async executeDecided(slot: BlockSlot, txs: Uint8Array[]): Promise<ExecutedBlock> {
    const key = { ...slot, txs };
    const kept = this.kept.get(key);
    if (kept) return kept;
    if (slot.height !== this.height + 1)
      throw new ChainError(
        'BAD_HEIGHT',
        `block ${slot.height} does not follow the latest height ${this.height}`,
      );
    const decoded = txs.map((raw, i) => {
      try {
        return this.decodeBlockTx(raw);
      } catch (err) {
        throw new ChainError('BAD_BLOCK', `tx ${i} does not decode: ${errorMessage(err)}`);
      }
    });
    const executed = await this.execute({ ...slot, appHash: this.appHash }, decoded, 'replay');
    this.kept.keep(key, executed);
    return executed;
  }

  /** The execution context of a block (the same when proposing and when replaying it). */
  contextFor(h: ExecutionHeader): BlockContext {
    return {
      chainId: this.genesis.chain_id,
      height: h.height,
      timestamp: BigInt(h.time.seconds),
      time: h.time,
      consensus: h.consensus,
      gasLimit: this.genesisGasLimit,
      coinbase: FEE_COLLECTOR_ADDRESS,
      parentAppHash: h.appHash,
      blockHash: (n) =>
        n >= 1n && n < BigInt(h.height) ? this.blocks.blockHashByHeight(Number(n)) : undefined,
    };
  }

  /** Persists an executed block in the pipeline order and makes it the latest. */
  async commit(block: Block, executed: ExecutedBlock): Promise<CommittedBlock> {
    this.assertNext(block.header.height);
    this.kept.clear();
    return this.persist(block, executed, false);
  }

  /**
   * Network mode, FinalizeBlock: applies a decided block's changes to State Commit's working version
   * and returns the app hash that `commitFinalized` will make durable. Nothing is written yet (a crash
   * now loses nothing CometBFT cannot replay), and reads keep seeing the last committed state.
   */
  async finalize(block: Block, executed: ExecutedBlock): Promise<Uint8Array> {
    this.assertNext(block.header.height);
    if (this.finalized)
      throw new ChainError(
        'BAD_HEIGHT',
        `block ${this.finalized.block.header.height} was finalized and not committed; cannot finalize block ${block.header.height}`,
      );
    this.sc.applyChangeSets(stateVersion(block.header.height), toChangeSets(executed.overlay.changes()));
    const appHash = await this.sc.workingHashAsync();
    this.finalized = { block, executed };
    return appHash;
  }

  /** Network mode, Commit: persists the block `finalize` took, in the pipeline order. */
  async commitFinalized(): Promise<CommittedBlock> {
    this.assertCommitting();
    const f = this.finalized;
    if (!f) throw new ChainError('BAD_HEIGHT', 'commit without a finalized block');
    this.finalized = undefined;
    this.kept.clear();
    return this.persist(f.block, f.executed, true);
  }

  /**
   * Why the chain commits no more blocks (the disk filled, or a block's write failed partway);
   * undefined while it commits. Every health signal reports it as a halt.
   */
  get haltReason(): string | undefined {
    return this.diskFullReason ?? this.stopped;
  }

  /**
   * The disk under `dir` is full, found by a store's write or by the consensus engine's own: the chain
   * commits nothing more, and this says so in one error line (the first report; later ones return
   * it). What was committed stays; the block being written when the disk filled, if any, is
   * completed or undone by the recovery at the next start.
   */
  outOfDisk(dir: string): string {
    if (this.diskFullReason === undefined) {
      this.diskFullReason = `no space left on device writing ${dir}: free space and restart; nothing committed after height ${this.height} is lost`;
      this.log.error({ dir, height: this.height }, this.diskFullReason);
    }
    return this.diskFullReason;
  }

  /** The out-of-disk line, once the disk has filled (see outOfDisk). */
  get diskFull(): string | undefined {
    return this.diskFullReason;
  }

  /**
   * A block's write failed: the stores may now hold it in part, and State Commit's working state in
   * memory has it, so no later block may be written on top. Only the recovery at the next start
   * (which completes or undoes the block from what each store holds) makes the stores agree again.
   * Returns the error to throw: the disk being full, if that is among the failures, else the first.
   */
  private stopCommitting(height: number, failures: unknown[]): unknown {
    const full = failures.map(outOfDiskIn).find((e) => e !== undefined);
    if (full) this.outOfDisk(full.dir);
    this.stopped ??= `writing block ${height} failed: ${errorMessage(full ?? failures[0])}; restart the node to recover its stores`;
    return full ?? failures[0];
  }

  private assertCommitting(): void {
    const reason = this.haltReason;
    if (reason) throw new ChainError('CHAIN_HALTED', `the chain commits no more blocks: ${reason}`);
  }

  private assertNext(h: number): void {
    this.assertCommitting();
    if (h !== this.height + 1)
      throw new ChainError('BAD_HEIGHT', `cannot commit block ${h} on top of ${this.height}`);
  }

  /**
   * Block store ∥ (SS → SC) → listeners; `scApplied`: finalize already gave SC the change sets. The
   * block store's write runs beside the State Store's and State Commit's, which stay in that order:
   * recovery can roll SC back to SS's version but cannot rebuild an SS version it lacks. Readers of
   * the latest state leave SC while it commits (state-at.ts), so it may commit before the block is
   * stored; recovery rolls back whatever got ahead of the block store.
   */
  private async persist(block: Block, executed: ExecutedBlock, scApplied: boolean): Promise<CommittedBlock> {
    const h = block.header.height;
    const changes = executed.overlay.changes();
    const t0 = performance.now();
    let t1 = t0;
    const stored = this.blocks
      .putBlock(block, executed.receipts, executed.cosmosResults, executed.appearances)
      .then(() => {
        t1 = performance.now();
      });
    let t2 = t0;
    let t3 = t0;
    const stateWritten = (async () => {
      await this.ss.applyChangeSet(stateVersion(h), toStoreChanges(changes));
      t2 = performance.now();
      if (!scApplied) this.sc.applyChangeSets(stateVersion(h), toChangeSets(changes));
      const result = await this.sc.commit();
      t3 = performance.now();
      return result;
    })();
    // both writes end before a failure is reported: nothing of this block is still being written then
    const [storedResult, committedResult] = await Promise.allSettled([stored, stateWritten]);
    if (storedResult.status === 'rejected' || committedResult.status === 'rejected')
      throw this.stopCommitting(
        h,
        [storedResult, committedResult].flatMap((r) => (r.status === 'rejected' ? [r.reason] : [])),
      );
    const { appHash } = committedResult.value;
    this.height = h;
    const timings = {
      blockStore: (t1 - t0) / 1000,
      stateStore: (t2 - t0) / 1000,
      stateCommit: (t3 - t2) / 1000,
    };
    const committed = { block, executed, appHash, timings };
    for (const l of this.listeners) {
      try {
        l(committed);
      } catch (err) {
        this.log.error({ err: (err as Error).message }, 'block listener failed');
      }
    }
    this.headMoved();
    return committed;
  }

  /**
   * State-sync export of the state after block `height` (SC version height + 1), for a snapshot.
   * Reads SC's immutable view of that version, so blocks committed meanwhile do not show; on flatkv
   * it must start before the next commit (flatkv keeps only its latest rows).
   */
  snapshotItems(height: number): AsyncGenerator<SnapshotItem> {
    return this.sc.export(stateVersion(height));
  }

  /**
   * State sync: makes the state of a snapshot of block `height` this node's state. `items` is
   * called twice (State Commit, then the State Store read the same stream). SC is imported and its
   * app hash checked against `appHash` (the one the snapshot was offered with, which CometBFT's
   * light client verified) before SS is touched; then the block store starts above `height`. Only
   * an empty node restores (nothing above genesis: that is all state sync is for).
   */
  async restore(
    height: number,
    appHash: Uint8Array,
    items: () => AsyncIterable<SnapshotItem>,
  ): Promise<void> {
    const stored = this.blocks.latestHeight() ?? 0;
    if (this.height !== 0 || stored !== 0 || this.finalized)
      throw new ChainError(
        'STATE_SYNC_RESTORE_FAILED',
        `state sync restores only into a node without blocks; this one is at height ${Math.max(this.height, stored)}`,
      );
    if (!Number.isSafeInteger(height) || height < 1)
      throw new ChainError('STATE_SYNC_RESTORE_FAILED', `cannot restore a snapshot of height ${height}`);
    const version = stateVersion(height);
    const { appHash: got } = await this.sc.import(version, items());
    if (!equalBytes(got, appHash))
      throw new ChainError(
        'STATE_SYNC_RESTORE_FAILED',
        `the snapshot of height ${height} imports to app hash ${toHex(got).toUpperCase()}, but ${toHex(appHash).toUpperCase()} was trusted`,
      );
    await this.ss.import(version, leavesOf(items()));
    await this.blocks.startAfter(height);
    this.height = height;
    this.headMoved();
    this.log.info(
      { height, app_hash: toHex(got).toUpperCase() },
      'state restored from a state-sync snapshot',
    );
  }

  /**
   * Rewinds SC, then SS, then the block store to `height` (see ChainNode.rollback). The state it lands
   * on is first checked against the app hash block `height + 1` carries, so a rollback never leaves a
   * node that would produce on a wrong state, and a refused one changes nothing: SC above that version
   * is checked at it before it is rolled back (a dry run from its snapshots); SC at or below it is
   * replayed up to it with the checks of a start.
   */
  async rollbackTo(height: number): Promise<Uint8Array> {
    this.assertStateStoreReaches(height);
    if (!Number.isInteger(height) || height < 0 || height > this.height) {
      throw new ChainError(
        'BAD_HEIGHT',
        `cannot roll back to height ${height}: the latest height is ${this.height}`,
      );
    }
    const version = stateVersion(height);
    if (this.sc.version > version) {
      const oldest = this.sc.oldestVersion();
      if (version < oldest) {
        throw new ChainError(
          'BAD_HEIGHT',
          `cannot roll back to height ${height}: the state commit reaches back to height ${oldest - 1} (its oldest snapshot); restore a snapshot instead`,
        );
      }
      const next = this.blocks.blockByHeight(height + 1);
      const appHash = await this.sc.appHashAt(version);
      if (next && !equalBytes(next.header.appHash, appHash)) {
        throw new ChainError(
          'APP_HASH_MISMATCH',
          `cannot roll back to height ${height}: the state commit's app hash there is ${toHex(appHash).toUpperCase()}, ` +
            `but block ${height + 1} carries ${toHex(next.header.appHash).toUpperCase()}; nothing was changed. ` +
            'Roll back further, or restore a snapshot',
        );
      }
      await this.sc.rollback(version);
    } else {
      await this.replayTo(height);
    }
    await this.ss.rollback(version);
    await this.blocks.truncateAbove(height);
    this.height = height;
    return this.appHash;
  }

  /**
   * A dev chain's evm_revert and hardhat_reset: State Commit, the State Store and the block store go
   * back to block `height` in process, in rollbackTo's order (SC, SS, blocks), so an interruption
   * leaves "block store ≥ SS ≥ SC" and the next start replays back up to the blocks still stored.
   * No dry run of the app hash: every version above `height` was committed by this process on the
   * very state it returns to. The latest height moves first, so nothing reads above it while the
   * stores move (history at or below it reads the same bytes before and after); the rewind listeners
   * run once the stores are there.
   */
  async rewindTo(height: number): Promise<void> {
    if (!Number.isInteger(height) || height < 0 || height > this.height)
      throw new ChainError(
        'BAD_HEIGHT',
        `cannot rewind to height ${height}: the latest height is ${this.height}`,
      );
    if (this.finalized)
      throw new ChainError(
        'BAD_HEIGHT',
        `cannot rewind while block ${this.finalized.block.header.height} is finalized`,
      );
    if (height === this.height) return;
    this.assertStateStoreReaches(height);
    const version = stateVersion(height);
    const oldest = this.sc.oldestVersion();
    if (version < oldest)
      throw new ChainError(
        'ROLLBACK_RANGE',
        `cannot rewind to height ${height}: the state commit reaches back to height ${oldest - 1}; nothing was changed`,
      );
    this.kept.clear();
    this.height = height;
    this.headMoved();
    await this.sc.rollback(version);
    await this.ss.rollback(version);
    await this.blocks.truncateAbove(height);
    this.states.reads.dropAbove(version);
    for (const l of this.rewindListeners) {
      try {
        l(height);
      } catch (err) {
        this.log.error({ err: errorMessage(err) }, 'rewind listener failed');
      }
    }
  }

  /**
   * A rollback the State Store cannot follow (its history pruned below the target) is refused before
   * State Commit moves: SC rolled back alone would leave the node on an older state than its blocks
   * (repaired by replay at the next start, but not what the operator asked for), and a refused
   * rollback must change nothing. (State Commit checks its own range before it changes anything.)
   */
  private assertStateStoreReaches(height: number): void {
    const earliest = this.ss.earliestVersion();
    if (Number.isInteger(height) && height >= 0 && stateVersion(height) < earliest) {
      throw new ChainError(
        'ROLLBACK_RANGE',
        `cannot roll back to height ${height}: the state store keeps heights from ${earliest - 1} ` +
          '(ss-keep-recent); nothing was changed',
      );
    }
  }
}

/** The State Store's entries of a snapshot stream: the leaves (height 0) of each store's section. */
async function* leavesOf(items: AsyncIterable<SnapshotItem>): AsyncGenerator<ImportEntry> {
  let store: string | undefined;
  for await (const item of items) {
    if (item.store) store = item.store.name === LEGACY_EVM_SECTION ? 'evm' : item.store.name;
    else if (item.iavl && item.iavl.height === 0 && store !== undefined)
      yield { store, key: item.iavl.key, value: item.iavl.value };
  }
}

function toChangeSets(changes: StoreChanges[]): ChangeSet[] {
  return changes.map((c) => ({
    store: c.store,
    pairs: c.writes.map((w) => ({ key: w.key, value: w.value })),
  }));
}

function toStoreChanges(changes: StoreChanges[]): StoreChange[] {
  const out: StoreChange[] = [];
  for (const c of changes)
    for (const w of c.writes) out.push({ store: c.store, key: w.key, value: w.value ?? null });
  return out;
}
