/**
 * Faithful re-execution of a stored block for debug_trace*: block h runs again on the State Store's
 * version h (the state after block h - 1; the genesis state is version 1) through `Chain.execute`, the
 * code that executed it when it was proposed and that crash recovery replays, in 'replay' mode (a tx
 * that no longer executes is an error, never silently skipped). Cosmos txs run too, since they change
 * state the following EVM txs read. A tracer is attached only to the runs the caller asks for.
 * Nothing reads State Commit, which holds only the latest state, and nothing is written: the block's
 * overlay is dropped.
 *
 * Reads are synchronous (the state code and ethereumjs's state manager are). Two sources, routed as
 * every SS read is (with `evm-ss-split`, the `evm` store from the EVM SS only):
 *
 * - engines that read synchronously (lmdb's memory map): the State Store's `syncReaderAt`;
 * - engines that cannot (rocksdb, whose reads complete on its own threads): the block runs over the
 *   values loaded so far (`LoadedReads`). A read of a key not loaded yet records it and answers
 *   "absent"; after the run the recorded keys are loaded with the State Store's async `get` and the
 *   block runs again, until a run records none. Only that run counts: every value it read is the
 *   store's, so it is exactly the run a synchronous reader would make (execution is deterministic).
 *   Every run before it is a discovery run, whose results and errors are thrown away. It ends: in
 *   each run the reads before the first miss are the true ones, so the execution up to it is the true
 *   execution and the missed key is one the true execution reads; each round adds one of those
 *   finitely many keys at least. Discovery runs go without tracers and in 'propose' mode, so a tx
 *   refused on a guessed value (a nonce or a balance not loaded yet) is skipped and the txs after it
 *   still run and reveal their keys; a handful of rounds load a block (the reads of each tx depend
 *   on few earlier ones). Then the traced run, in 'replay' mode, is repeated only if a tracer read a
 *   key the execution did not (prestateTracer reads code and balances of touched accounts).
 *   The trace's deadline bounds every round.
 */
import { ChainError } from '../util/errors.ts';
import { toHex } from '../primitives/bytes.ts';
import type { EthTxOutcome } from '../execution/block-executor.ts';
import { readId } from '../execution/version-reads.ts';
import type { StateReader } from '../state/overlay.ts';
import type { StateStore } from '../storage/ss/types.ts';
import type { EthExecOptions, ReplayHooks } from './block-execution.ts';
import { type Chain, stateVersion } from './chain.ts';
import { consensusInfoOfBlock } from './consensus-info.ts';

export class TraceError extends ChainError {}

/**
 * A tx the block includes but that failed before execution (it could not pay when its turn came):
 * nothing ran, so there is nothing to trace. The replay reproduced the inclusion rule to know it.
 */
export class NotExecutedTraceError extends TraceError {
  constructor(hash: Uint8Array, height: number, reason: string | undefined) {
    super(
      'TRACE_TX_NOT_EXECUTED',
      `transaction 0x${toHex(hash)} was included in block ${height} but failed before execution ` +
        `(nonce consumed, nothing executed), so it has no trace: ${reason ?? 'unknown reason'}`,
    );
  }
}

/** One Ethereum tx of the block as the replay ran it. */
export interface ReplayedTx {
  /** index among the block's Ethereum txs (the receipt's transactionIndex) */
  evmIndex: number;
  hash: Uint8Array;
  outcome: EthTxOutcome;
}

export interface ReplayOptions {
  /** Options of the run of the Ethereum tx with this EVM index (a tracer), or undefined. */
  execOptions?(evmIndex: number, hash: Uint8Array): EthExecOptions | undefined;
  /** Stop after the Ethereum tx with this EVM index. */
  lastEvmIndex?: number;
  /** Awaited before every tx of the block; throws to abandon the replay (a deadline). */
  check?(): void | Promise<void>;
}

export class TraceReplayer {
  private readonly chain: Chain;
  private readonly ss: StateStore;

  constructor(chain: Chain, ss: StateStore) {
    this.chain = chain;
    this.ss = ss;
  }

  /** Re-executes block `height` (≥ 1, stored, its parent state retained); see the file comment. */
  async replay(height: number, o: ReplayOptions = {}): Promise<ReplayedTx[]> {
    if (height === 0) throw new TraceError('TRACE_GENESIS', 'genesis is not traceable');
    const block = this.chain.blocks.blockByHeight(height);
    if (!block) throw new TraceError('TRACE_BLOCK_MISSING', `block ${height} not found`);
    const version = stateVersion(height - 1);
    if (version < this.ss.earliestVersion())
      throw prunedError(height, this.ss.earliestVersion(), this.ss.unavailableReason);
    const read = await this.ss.syncReaderAt?.(version);
    const txs = block.txs.map((raw) => this.chain.decodeBlockTx(raw));
    // block tx index → EVM index (the receipts' numbering counts Ethereum txs only)
    const evmIndexOf: number[] = [];
    let lastTxIndex = txs.length - 1;
    let n = 0;
    txs.forEach((t, i) => {
      evmIndexOf[i] = t.kind === 'eth' ? n++ : -1;
      if (t.kind === 'eth' && evmIndexOf[i] === o.lastEvmIndex) lastTxIndex = i;
    });
    if (o.lastEvmIndex !== undefined && o.lastEvmIndex >= n) {
      throw new TraceError(
        'TRACE_TX_MISSING',
        `block ${height} has ${n} Ethereum transactions, no index ${o.lastEvmIndex}`,
      );
    }
    let replayed: ReplayedTx[] = [];
    const hooks: ReplayHooks = {
      lastTxIndex,
      beforeTx: o.check && (() => o.check!()),
      execOptions:
        o.execOptions &&
        ((i) => {
          const t = txs[i];
          return t.kind === 'eth' ? o.execOptions!(evmIndexOf[i], t.tx.hash) : undefined;
        }),
      onEthOutcome: (i, outcome) =>
        replayed.push({ evmIndex: evmIndexOf[i], hash: outcome.tx.hash, outcome }),
    };
    // a version never changes (pruning it makes reads throw), so the overlay may keep what it read
    // the block's hooks get the votes and misbehavior its record kept, as its commit's run got them
    const header = { ...block.header, consensus: consensusInfoOfBlock(block) };
    const run = (get: StateReader['get'], mode: 'propose' | 'replay', runHooks: ReplayHooks) =>
      this.chain.execute(header, txs, mode, { state: { get, stable: true }, hooks: runHooks });
    const fail = async (err: unknown): Promise<never> => {
      // a run aborted from inside (the deadline) surfaces as a tx that no longer executes
      await o.check?.();
      if (err instanceof ChainError && err.code === 'REPLAY_DIVERGED') {
        throw new TraceError(
          'TRACE_REPLAY_DIVERGED',
          `block ${height} (${toHex(block.hash)}) did not re-execute as stored: ${err.message}`,
        );
      }
      throw err;
    };

    if (read) {
      await run(read, 'replay', hooks).catch(fail);
      return replayed;
    }

    // No synchronous reads: run until a run reads only loaded values (see the file comment).
    const reads = new LoadedReads();
    const get = reads.get;
    const discovery: ReplayHooks = { lastTxIndex, beforeTx: hooks.beforeTx };
    for (let traced = false; ;) {
      await o.check?.();
      replayed = [];
      try {
        await run(get, traced ? 'replay' : 'propose', traced ? hooks : discovery);
      } catch (err) {
        if (reads.missing === 0) return fail(err);
        await o.check?.(); // a run on guessed values failing is expected, unless the deadline ended it
      }
      if (reads.missing === 0) {
        if (traced) return replayed;
        traced = true;
        continue;
      }
      await reads.load(this.ss, version);
      // a prune that overtook the loads answered them from a partial history
      if (version < this.ss.earliestVersion())
        throw prunedError(height, this.ss.earliestVersion(), this.ss.unavailableReason);
    }
  }
}

function prunedError(height: number, earliestVersion: number, reason?: string): TraceError {
  return new TraceError(
    'TRACE_STATE_PRUNED',
    `required historical state unavailable: block ${height} needs the state after block ${height - 1}, ` +
      `and the state store keeps heights from ${earliestVersion - 1}` +
      (reason ? ` (${reason})` : ''),
  );
}

/**
 * Values of one State Store version loaded so far, read synchronously; a key not loaded yet reads as
 * absent and is recorded for the next `load` (see the file comment).
 */
class LoadedReads {
  private readonly values = new Map<string, Uint8Array | undefined>();
  private readonly missed = new Map<string, { store: string; key: Uint8Array }>();

  readonly get = (store: string, key: Uint8Array): Uint8Array | undefined => {
    const id = readId(store, key);
    const v = this.values.get(id);
    if (v !== undefined || this.values.has(id)) return v;
    if (!this.missed.has(id)) this.missed.set(id, { store, key: key.slice() });
    return undefined;
  };

  /** Keys read but not loaded since the last `load`. */
  get missing(): number {
    return this.missed.size;
  }

  async load(ss: StateStore, version: number): Promise<void> {
    const batch = [...this.missed];
    this.missed.clear();
    const values = await Promise.all(batch.map(([, k]) => ss.get(k.store, k.key, version)));
    batch.forEach(([id], i) => this.values.set(id, values[i]));
  }
}
