/**
 * Faithful re-execution of a stored block for debug_trace*: block h runs again on the State Store's
 * version h (the state after block h - 1; the genesis state is version 1) through `executeBlock`, the
 * code that executed it when it was proposed and that crash recovery replays, in 'replay' mode (a tx
 * that no longer executes is an error, never silently skipped). Cosmos txs run too, since they change
 * state the following EVM txs read. A tracer is attached only to the runs the caller asks for.
 *
 * Reads are synchronous (the state code and ethereumjs's state manager are), served by the State
 * Store's `syncReaderAt`: lmdb point reads from its memory map, routed as every SS read is (with
 * `evm-ss-split`, the `evm` store from the EVM SS only). Nothing reads State Commit, which holds only
 * the latest state, and nothing is written: the block's overlay is dropped.
 */
import { ChainError } from '../util/errors.ts';
import { toHex } from '../primitives/bytes.ts';
import type { EthTxOutcome } from '../execution/block-executor.ts';
import type { StateStore } from '../storage/ss/types.ts';
import { type EthExecOptions, executeBlock, type ReplayHooks } from './block-execution.ts';
import { type Chain, stateVersion } from './chain.ts';

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
    if (version < this.ss.earliestVersion()) {
      throw new TraceError(
        'TRACE_STATE_PRUNED',
        `required historical state unavailable: block ${height} needs the state after block ${height - 1}, ` +
          `and the state store keeps heights from ${this.ss.earliestVersion() - 1}` +
          (this.ss.unavailableReason ? ` (${this.ss.unavailableReason})` : ''),
      );
    }
    const read = await this.ss.syncReaderAt?.(version);
    if (!read) {
      throw new TraceError(
        'TRACE_UNSUPPORTED',
        'debug_trace* re-executes blocks with synchronous State Store reads, which the configured ' +
          'ss-backend does not offer; use the default ss-backend (lmdb)',
      );
    }
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
    const replayed: ReplayedTx[] = [];
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
    try {
      await executeBlock(
        this.chain.common,
        // a version never changes (pruning it makes reads throw), so the overlay may keep what it read
        { get: read, stable: true },
        this.chain.contextFor(block),
        this.chain.feeParams,
        txs,
        'replay',
        hooks,
      );
    } catch (err) {
      // a run aborted from inside (the deadline) surfaces as a tx that no longer executes
      await o.check?.();
      if (err instanceof ChainError && err.code === 'REPLAY_DIVERGED') {
        throw new TraceError(
          'TRACE_REPLAY_DIVERGED',
          `block ${height} (${toHex(block.hash)}) did not re-execute as stored: ${err.message}`,
        );
      }
      throw err;
    }
    return replayed;
  }
}
