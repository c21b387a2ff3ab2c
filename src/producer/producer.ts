/**
 * Single-validator block production with instant finality: this node proposes every block, signs
 * its precommit (double-sign guarded), and a block is final once committed. Blocks come every
 * `timeout-commit`; with `create-empty-blocks = false` the producer waits for a pending transaction
 * (or for `create-empty-blocks-interval`, when set).
 */
import { type BlockID, EMPTY_BLOCK_ID, type Timestamp } from '../codec/cometbft.ts';
import { BlockIdFlag, type Commit, commitHash, precommitSignBytes } from '../codec/commit.ts';
import { dataHash, headerHash, type Header } from '../codec/block-header.ts';
import { EMPTY_MERKLE_ROOT, merkleRoot } from '../codec/merkle.ts';
import { type ValidatorInfo, validatorSetHash } from '../codec/validators.ts';
import type { Chain } from '../chain/chain.ts';
import { consensusInfoOfBlock } from '../chain/consensus-info.ts';
import { ed25519Address, type Ed25519Key, ed25519Sign } from '../crypto/node-keys.ts';
import type { Mempool } from '../mempool/mempool.ts';
import type { CosmosPool } from '../mempool/cosmos-pool.ts';
import type { BlockTx, ExecutedBlock } from '../chain/block-execution.ts';
import {
  blockCandidates,
  committedBlockFields,
  dropRejected,
  settleCommitted,
} from '../chain/block-candidates.ts';
import { cosmosTxHash } from '../app/cosmos-tx.ts';
import { toChecksumAddress } from '../crypto/accounts.ts';
import { unwrapEthTransaction } from '../execution/tx-wrap.ts';
import { equalBytes, toHex } from '../primitives/bytes.ts';
import { encodeBlock } from '../storage/blocks/block-codec.ts';
import type { Block, CosmosTxResult, Receipt } from '../storage/blocks/types.ts';
import { errorMessage } from '../util/errors.ts';
import type { Logger } from '../util/logger.ts';
import { consensusParamsHash, resultsHash, type TxResultSummary } from './hashes.ts';
import { BatchSize, PARTIAL_BATCH_WAIT_MS } from './batch-size.ts';
import { BlockClock } from './block-clock.ts';
import { ProducerHealth, stallBoundMs } from './health.ts';
import { type SignerState, STEP_PRECOMMIT } from './signer-state.ts';

export interface ProducerOptions {
  chain: Chain;
  mempool: Mempool;
  cosmosPool: CosmosPool;
  chainId: string;
  validatorKey: Ed25519Key;
  votingPower: bigint;
  signer: SignerState;
  timeoutCommitMs: number;
  createEmptyBlocks: boolean;
  createEmptyBlocksIntervalMs: number;
  logger: Logger;
  /**
   * A local dev chain's log: each included tx at INFO (hash, sender, status, gas used) and empty
   * blocks at DEBUG, so a user's own txs are what the log shows.
   */
  devLogs?: boolean;
  /**
   * Block 1 comes at start even without txs or empty blocks, as CometBFT always makes the initial
   * height's block: until then the consensus RPC has no latest block, and clients that read its
   * hash from /status (CosmJS's connect) refuse the node.
   */
  initialBlock?: boolean;
  /** The block times (default: the wall clock); a dev chain's is moved by its time methods. */
  clock?: BlockClock;
}

/**
 * How a dev chain mines, as Hardhat and anvil let a test set it: `automine` makes a block as soon as
 * transactions wait (on demand), `intervalMs` one every interval, empty or not; both off, blocks come
 * only when asked for (evm_mine, hardhat_mine).
 */
export interface MiningMode {
  automine: boolean;
  intervalMs: number;
}

/** CometBFT's block protocol version. */
const BLOCK_VERSION = { block: 11, app: 0 };

/**
 * A failure that repeats (the same error at every retry, one per timeout-commit) is logged again at
 * most this often, with the count of attempts since: the first line says what is wrong, the halt line
 * says the chain stopped, and the log does not drown in copies.
 */
const FAILURE_LOG_INTERVAL_MS = 60_000;

/** Timing that makes a block as soon as transactions wait and none otherwise (`chaind dev`'s default). */
export function isOnDemand(
  o: Pick<ProducerOptions, 'timeoutCommitMs' | 'createEmptyBlocks' | 'createEmptyBlocksIntervalMs'>,
): boolean {
  return o.timeoutCommitMs === 0 && !o.createEmptyBlocks && o.createEmptyBlocksIntervalMs === 0;
}

export class BlockProducer {
  private readonly o: ProducerOptions;
  /** When blocks come: the options' timing, changed at run time by a dev chain's mining methods. */
  private timing: Pick<
    ProducerOptions,
    'timeoutCommitMs' | 'createEmptyBlocks' | 'createEmptyBlocksIntervalMs'
  >;
  /** Blocks only when asked for (a dev chain with automine and interval mining off). */
  private manual = false;
  readonly clock: BlockClock;
  private readonly log: Logger;
  private readonly validators: ValidatorInfo[];
  private readonly proposer: Uint8Array;
  private readonly consensusHash: Uint8Array;
  private timer: { cancel(): void } | undefined;
  /** A block as soon as transactions wait (`chaind dev` by default). */
  private onDemand: boolean;
  private readonly batch = new BatchSize();
  private running = false;
  private inFlight: Promise<void> = Promise.resolve();
  private lastBlockAt = Date.now();
  private unsubscribe: (() => void)[] = [];
  /** last_results_hash for the next block, from the block just committed (recomputed after a restart). */
  private nextResultsHash: { height: number; hash: Uint8Array } | undefined;
  /** The last block this producer committed: the next block's parent time and last commit. */
  private last: { height: number; time: Timestamp; commit: Commit } | undefined;
  /** A tick (block production) is running. */
  private ticking = false;
  /** Whether the producer makes progress: what every health signal of the node reads. */
  readonly health: ProducerHealth;
  /** Failed attempts since the last block, the last failure written to the log (its rate limit), and whether the halt was logged. */
  private failedAttempts = 0;
  private logged: { error: string; at: number; failures: number } | undefined;
  private haltLogged = false;

  constructor(o: ProducerOptions) {
    this.o = o;
    this.timing = {
      timeoutCommitMs: o.timeoutCommitMs,
      createEmptyBlocks: o.createEmptyBlocks,
      createEmptyBlocksIntervalMs: o.createEmptyBlocksIntervalMs,
    };
    this.clock = o.clock ?? new BlockClock();
    this.log = o.logger.child({ module: 'consensus' });
    this.validators = [{ pubKey: o.validatorKey.publicKey, votingPower: o.votingPower }];
    this.proposer = ed25519Address(o.validatorKey.publicKey);
    const block = o.chain.genesis.consensus_params.block;
    this.consensusHash = consensusParamsHash(BigInt(block.max_bytes), BigInt(block.max_gas));
    this.onDemand = isOnDemand(o);
    this.health = new ProducerHealth({
      stallAfterMs: stallBoundMs(o.timeoutCommitMs),
      latestHeight: () => o.chain.latestHeight,
    });
  }

  start(): void {
    this.running = true;
    this.health.started();
    // Without empty blocks the producer idles; a new transaction of either kind wakes it.
    // A tick in progress schedules the next one itself when it ends. On demand, a whole batch
    // (batch-size.ts) starts its block at once, a partial one after PARTIAL_BATCH_WAIT_MS.
    const wake = () => {
      if (this.manual || this.timing.createEmptyBlocks || this.ticking || !this.running) return;
      if (this.batchWaiting()) this.schedule(0, true);
      else if (this.timer === undefined)
        this.schedule(this.onDemand ? PARTIAL_BATCH_WAIT_MS : this.remainingTimeout());
    };
    this.unsubscribe = [this.o.mempool.onPending(wake), this.o.cosmosPool.onAdmitted(wake)];
    this.schedule(0);
  }

  /** Stops producing; resolves once a block in progress is fully committed. */
  async stop(): Promise<void> {
    this.running = false;
    this.timer?.cancel();
    this.timer = undefined;
    for (const off of this.unsubscribe) off();
    await this.inFlight;
    await this.o.signer
      .flushed()
      .catch((err: unknown) =>
        this.log.error({ err: errorMessage(err) }, 'validator state not saved at stop'),
      );
  }

  private remainingTimeout(): number {
    return Math.max(0, this.timing.timeoutCommitMs - (Date.now() - this.lastBlockAt));
  }

  /** On demand: the pools hold a whole batch. */
  private batchWaiting(): boolean {
    return this.onDemand && this.batch.complete(this.o.mempool.pending() + this.o.cosmosPool.size);
  }

  /** `now`: at the end of this turn of the event loop (after the requests already read). */
  private schedule(delayMs: number, now = false): void {
    this.timer?.cancel();
    const run = () => {
      this.timer = undefined;
      // Never two blocks at once: both would execute the same height and one would be thrown away
      // when the block store refuses it (and the work of executing it wasted).
      if (this.ticking) return;
      this.ticking = true;
      this.inFlight = this.tick().finally(() => {
        this.ticking = false;
      });
    };
    if (now) {
      const immediate = setImmediate(run);
      this.timer = { cancel: () => clearImmediate(immediate) };
    } else {
      const timeout = setTimeout(run, delayMs);
      this.timer = { cancel: () => clearTimeout(timeout) };
    }
  }

  private async tick(): Promise<void> {
    if (!this.running) return;
    const { createEmptyBlocks, createEmptyBlocksIntervalMs, timeoutCommitMs } = this.timing;
    const idle = this.o.mempool.pending() === 0 && this.o.cosmosPool.size === 0;
    const emptyDue =
      createEmptyBlocksIntervalMs > 0 && Date.now() - this.lastBlockAt >= createEmptyBlocksIntervalMs;
    const initial = this.o.initialBlock === true && this.o.chain.latestHeight === 0;
    if (this.manual && !initial) return; // evm_mine and hardhat_mine make the blocks
    if (idle && !createEmptyBlocks && !emptyDue && !initial) {
      if (createEmptyBlocksIntervalMs > 0)
        this.schedule(createEmptyBlocksIntervalMs - (Date.now() - this.lastBlockAt));
      return; // the pending-tx hook reschedules
    }
    const height = this.o.chain.latestHeight + 1;
    try {
      const block = await this.produce();
      this.batch.record(block.txs.length);
      if (this.failedAttempts > 0) {
        this.log.info({ height, failed_attempts: this.failedAttempts }, 'block production resumed');
        this.failedAttempts = 0;
        this.logged = undefined;
        this.haltLogged = false;
      }
    } catch (err) {
      this.reportFailure(height, errorMessage(err));
    }
    if (this.running) this.scheduleNext();
  }

  private scheduleNext(): void {
    // a chain that commits no more blocks (its disk filled) is not retried: only a restart recovers it
    if (this.manual || this.o.chain.haltReason) return;
    this.schedule(this.onDemand ? PARTIAL_BATCH_WAIT_MS : this.timing.timeoutCommitMs, this.batchWaiting());
  }

  /** The mining mode now (see MiningMode). */
  get mining(): MiningMode {
    const t = this.timing;
    if (this.onDemand) return { automine: true, intervalMs: t.createEmptyBlocksIntervalMs };
    return { automine: false, intervalMs: t.createEmptyBlocks ? t.timeoutCommitMs : 0 };
  }

  /**
   * Changes when blocks come (evm_setAutomine, evm_setIntervalMining): on demand with `automine`,
   * and an empty block every `intervalMs` besides when it is set; without automine, a block every
   * `intervalMs` with what waits then, or none until asked for.
   */
  setMining(mode: MiningMode): void {
    if (!Number.isSafeInteger(mode.intervalMs) || mode.intervalMs < 0)
      throw new RangeError(`a mining interval must be a whole number of ms ≥ 0, not ${mode.intervalMs}`);
    this.onDemand = mode.automine;
    this.manual = !mode.automine && mode.intervalMs === 0;
    this.timing = mode.automine
      ? { timeoutCommitMs: 0, createEmptyBlocks: false, createEmptyBlocksIntervalMs: mode.intervalMs }
      : {
          timeoutCommitMs: mode.intervalMs,
          createEmptyBlocks: mode.intervalMs > 0,
          createEmptyBlocksIntervalMs: 0,
        };
    this.lastBlockAt = Date.now();
    this.timer?.cancel();
    this.timer = undefined;
    if (this.running && !this.ticking) this.scheduleNext();
  }

  /**
   * Makes `count` blocks now, whatever the mining mode, each with the transactions waiting then
   * (evm_mine, hardhat_mine): the first at the clock's next time, each later one `intervalS` seconds
   * after the one before (the clock's own rule when not given). Waits for a block in progress first.
   */
  async mine(count: number, intervalS?: number): Promise<void> {
    await this.holding(async () => {
      for (let i = 0; i < count; i++) await this.produce(i === 0 ? undefined : intervalS);
    });
  }

  /**
   * Commits a block holding only `record` (a dev chain's state patch), at once, whatever the mining
   * mode: the edit is then the latest state every read sees, and history before it stays. The block
   * takes the least time after its parent and leaves the clock as it was (a time fixed for the next
   * block stays for the next block of transactions), so a state edit does not move `block.timestamp`.
   */
  commitRecord(record: BlockTx): Promise<Block> {
    return this.holding(() => this.produce(undefined, record));
  }

  /**
   * A dev chain's evm_revert and hardhat_reset: once no block is in progress, and with none started
   * until it ends, `rewind` moves the chain back to block `height` (and puts back whatever goes with
   * it: pool, clock, mining mode). The producer then builds on that block as on one it had just
   * committed: the commit and results it kept of later blocks are dropped, and the double-sign guard
   * goes back to `height` (as `chaind rollback` sets it), so the heights above are signed again; on a
   * dev chain nobody else holds a vote of them.
   */
  async rewind(height: number, rewind: () => Promise<void>): Promise<void> {
    await this.holding(async () => {
      const moved = this.o.chain.latestHeight !== height;
      await rewind();
      this.lastBlockAt = Date.now();
      // a revert to the head itself (no block in between) leaves the producer as it is
      if (!moved) return;
      this.last = undefined;
      this.nextResultsHash = undefined;
      await this.o.signer.reset({ height, round: 0, step: 0 });
    });
  }

  /**
   * Runs `work` as the one thing the producer does (a block in progress first ends, none starts
   * until `work` does), then schedules blocks again as the mining mode says; back at height 0 block 1
   * comes at once, as at start, whatever the mining mode.
   */
  private async holding<T>(work: () => Promise<T>): Promise<T> {
    if (!this.running) throw new Error('the block producer is stopped');
    this.timer?.cancel();
    this.timer = undefined;
    while (this.ticking) await this.inFlight;
    this.ticking = true;
    const run = work();
    this.inFlight = run.then(
      () => undefined,
      () => undefined,
    );
    try {
      return await run;
    } finally {
      this.ticking = false;
      if (this.running && this.o.initialBlock && this.o.chain.latestHeight === 0) this.schedule(0);
      else if (this.running) this.scheduleNext();
    }
  }

  /**
   * One ERROR line per distinct failure (again every FAILURE_LOG_INTERVAL_MS while it repeats), and
   * one when the failures add up to a halt: a retry every timeout-commit must not flood the log.
   */
  private reportFailure(height: number, error: string): void {
    const failures = ++this.failedAttempts;
    const now = Date.now();
    const last = this.logged;
    if (!last || last.error !== error || now - last.at >= FAILURE_LOG_INTERVAL_MS) {
      const repeated = last?.error === error ? { repeated: failures - last.failures } : {};
      this.log.error({ err: error, height, failures, ...repeated }, 'block production failed');
      this.logged = { error, at: now, failures };
    }
    const status = this.health.syncStatus();
    if (status.halted && !this.haltLogged) {
      this.haltLogged = true;
      this.log.error(
        { height: status.latestHeight, failures, reason: status.reason },
        'block production halted: the chain does not advance',
      );
    }
  }

  /** Builds, executes, commits and signs the next block; its outcome is reported to `health`. */
  async produce(intervalS?: number, record?: BlockTx): Promise<Block> {
    const height = this.o.chain.latestHeight + 1;
    this.health.attempting(height);
    try {
      const block = await this.produceAt(height, intervalS, record);
      this.health.committed();
      return block;
    } catch (err) {
      this.health.failed(height, errorMessage(err));
      throw err;
    }
  }

  /** `record`: the block holds only it (commitRecord), not the pools' txs. */
  private async produceAt(height: number, intervalS?: number, record?: BlockTx): Promise<Block> {
    const { chain, mempool } = this.o;
    // The block this producer just committed is the usual parent: its header and commit are kept,
    // so the parent (all its txs) is not read back, decoded and re-encoded for its block ID.
    const last = this.last;
    const cached =
      last &&
      last.height === height - 1 &&
      equalBytes(last.commit.blockId.hash, chain.blocks.blockHashByHeight(height - 1) ?? new Uint8Array(0))
        ? last
        : undefined;
    const prev = cached || height === 1 ? undefined : chain.blocks.blockByHeight(height - 1);
    const parentTime = cached ? cached.time : prev?.header.time;
    const time = record ? this.clock.justAfter(parentTime) : this.clock.take(parentTime, intervalS);
    const lastCommit: Commit = cached
      ? cached.commit
      : prev
        ? this.commitFor(prev)
        : { height: 0, round: 0, blockId: EMPTY_BLOCK_ID, signatures: [] };
    const lastBlockId = lastCommit.blockId;
    // The block is committed before its precommit is signed (a crash between the two re-signs the
    // same bytes at restart), so a height the double-sign guard will refuse must not be built at all:
    // it would be served as committed while its commit never comes.
    this.o.signer.assertCanSign({ height, round: 0, step: STEP_PRECOMMIT });

    const pools = { mempool, cosmosPool: this.o.cosmosPool };
    const candidates = record ? [record] : blockCandidates(pools, chain.gasLimit);
    const header: Header = {
      version: BLOCK_VERSION,
      chainId: this.o.chainId,
      height,
      time,
      lastBlockId,
      lastCommitHash: commitHash(lastCommit.signatures),
      dataHash: EMPTY_MERKLE_ROOT, // replaced once the txs are known
      validatorsHash: validatorSetHash(this.validators),
      nextValidatorsHash: validatorSetHash(this.validators),
      consensusHash: this.consensusHash,
      appHash: chain.appHash,
      lastResultsHash: height > 1 ? this.resultsHashOf(height - 1, prev) : EMPTY_MERKLE_ROOT,
      evidenceHash: EMPTY_MERKLE_ROOT,
      proposerAddress: this.proposer,
    };
    // The block hooks get this validator's own vote for the parent (its commit, with its power) and
    // no misbehavior; the block keeps the power, so a replay hands them the same. Its validator set
    // stays its own: validator updates are computed, not applied to who signs.
    const powers = lastCommit.signatures.length > 0 ? { lastCommitPowers: [this.o.votingPower] } : {};
    const consensus = consensusInfoOfBlock({ lastCommit, ...powers });
    // committed at once: nothing keeps the execution for a later FinalizeBlock
    const executed = await chain.execute({ ...header, consensus }, candidates, 'propose');
    header.dataHash = dataHash(executed.txs);
    const block: Block = { header, hash: headerHash(header)!, txs: executed.txs, lastCommit, ...powers };
    const committed = await chain.commit(block, executed);
    // The pools agree with the chain before the block's answers go out: a tx admitted after them sees
    // the block's nonces, not the mined txs still pooled.
    dropRejected(pools, executed, (hash, reason) =>
      this.log.debug({ tx: toHex(hash), reason }, 'tx left out of block'),
    );
    await settleCommitted(pools, height, executed, chain.latestAccounts);
    // The block released what waited for it (on demand, eth_sendRawTransaction answers once its tx
    // is mined): those answers go out before the rest of the bookkeeping, which then runs while their
    // senders turn around, instead of in front of them.
    await afterAnswersOfThisTurn();
    this.rememberResults(height, executed);
    // The previous block's signature was saved while this block was built and stored (the bytes
    // signed for a stored block cannot change: see signer-state.ts); at most one save is in flight.
    await this.o.signer.flushed();
    this.last = { height, time: header.time, commit: this.commitFor(block) };
    this.lastBlockAt = Date.now();
    if (this.o.devLogs) this.logDev(block, executed, committedBlockFields(committed));
    else this.log.info(committedBlockFields(committed), 'committed block');
    return block;
  }

  private logDev(block: Block, executed: ExecutedBlock, fields: Record<string, unknown>): void {
    const height = block.header.height;
    if (block.txs.length === 0) {
      this.log.debug(fields, 'committed block');
      return;
    }
    for (const r of executed.receipts) {
      this.log.info(
        {
          height,
          tx: '0x' + toHex(r.txHash),
          from: toChecksumAddress(r.from),
          ...(r.contractAddress
            ? { contract: toChecksumAddress(r.contractAddress) }
            : { to: r.to && toChecksumAddress(r.to) }),
          status: r.status === 1 ? 'success' : 'failed',
          gas_used: r.gasUsed.toString(),
          ...(r.vmError ? { error: r.vmError } : {}),
        },
        'transaction included',
      );
    }
    for (const r of executed.cosmosResults) {
      this.log.info(
        {
          height,
          tx: toHex(cosmosTxHash(block.txs[r.index])).toUpperCase(),
          kind: 'cosmos',
          status: r.code === 0 ? 'success' : 'failed',
          gas_used: r.gasUsed.toString(),
          ...(r.code !== 0 ? { code: r.code, log: r.log } : {}),
        },
        'transaction included',
      );
    }
    this.log.info(fields, 'committed block');
  }

  /** The (single-signature) commit of `block`: our precommit, signed once and re-derived identically after a restart. */
  private commitFor(block: Block): Commit {
    const blockId = blockIdOf(block);
    // The vote time is the block time, so re-signing after a crash yields identical bytes.
    const timestamp = block.header.time;
    const signBytes = precommitSignBytes(this.o.chainId, block.header.height, 0, blockId, timestamp);
    const signature = this.o.signer.sign(
      { height: block.header.height, round: 0, step: STEP_PRECOMMIT },
      signBytes,
      (b) => ed25519Sign(this.o.validatorKey, b),
    );
    return {
      height: block.header.height,
      round: 0,
      blockId,
      signatures: [
        { blockIdFlag: BlockIdFlag.Commit, validatorAddress: this.proposer, timestamp, signature },
      ],
    };
  }

  private resultsHashOf(height: number, stored: Block | undefined): Uint8Array {
    const cached = this.nextResultsHash;
    if (cached && cached.height === height) return cached.hash;
    // After a restart: gas wanted is each tx's gas limit, so the stored txs are decoded once.
    const blocks = this.o.chain.blocks;
    const block = stored ?? blocks.blockByHeight(height);
    if (!block) return EMPTY_MERKLE_ROOT; // as for a parent that is not stored (pruned below it)
    const gasLimits = block.txs.map((raw) => this.o.chain.decodeBlockTx(raw).tx.gasLimit);
    const receipts = blocks.receiptsOfBlock(block.header.height) ?? [];
    const cosmos = blocks.cosmosResultsOfBlock(block.header.height) ?? [];
    return resultsHash(summaries(block.txs.length, receipts, cosmos, gasLimits));
  }

  private rememberResults(height: number, executed: ExecutedBlock): void {
    const hash = resultsHash(
      summaries(executed.txs.length, executed.receipts, executed.cosmosResults, executed.gasLimits),
    );
    this.nextResultsHash = { height, hash };
  }
}

/** The block's ID: its hash and a one-part part-set header over our block encoding. */
export function blockIdOf(block: Block): BlockID {
  return { hash: block.hash, partSetHeader: { total: 1, hash: merkleRoot([encodeBlock(block)]) } };
}

/**
 * Resolves in the turn of the event loop after the next: the answers made in this turn are on their
 * sockets by then (the RPC fast path writes them in a setImmediate, which may be queued after a
 * first one of ours), and requests that arrived meanwhile may have been read.
 */
function afterAnswersOfThisTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/** Each tx's result in block order; a failed EVM execution is a failed result (code 1), as Cosmos EVM chains report it. */
function summaries(
  count: number,
  receipts: Receipt[],
  cosmos: CosmosTxResult[],
  gasLimits: bigint[],
): TxResultSummary[] {
  const out: TxResultSummary[] = new Array(count);
  for (const r of receipts)
    out[r.blockTxIndex] = {
      code: r.status === 1 ? 0 : 1,
      gasWanted: gasLimits[r.blockTxIndex],
      gasUsed: r.gasUsed,
    };
  for (const r of cosmos) out[r.index] = { code: r.code, gasWanted: r.gasWanted, gasUsed: r.gasUsed };
  return out;
}
