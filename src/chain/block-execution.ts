/**
 * Runs a block's transactions on top of the last committed state and turns the outcomes into the
 * block's receipts and change sets. The proposer uses it to choose which candidates go in (a
 * candidate that cannot be included is left out); replay after a crash uses it on a stored block,
 * where every transaction must execute exactly as it did. An Ethereum tx that cannot pay when its
 * turn comes is not left out but included, failed before execution (BlockExecutor's chain rule), in
 * both modes alike, so a replay reproduces the proposed block.
 *
 * A proposal stops taking candidates once it has executed for `PROPOSAL_EXECUTION_BUDGET_MS`: gas
 * bounds a block's work only as well as gas prices it, and some work is priced far below what it
 * costs here (a point evaluation's 50,000 gas is ~30 ms of JS verification: a 120M-gas block of
 * them would run for over a minute on every node). The rest stay in the pool for the next block;
 * which txs a proposal holds was always the proposer's choice, and every node replays that choice.
 *
 * Every block, in every mode, passes through the block hooks (app/block-hooks.ts): `beginBlock` with
 * the context's consensus info before the first tx, `endBlock` after the last. Their writes go into
 * the block's overlay (so into its change set and app hash), their events are the block's events,
 * and endBlock's validator updates are the block's answer to the consensus engine. A traced replay
 * that stops before the block's last tx does not run endBlock: nothing after the traced tx is needed.
 */
import type { Common } from '../execution/chain-config.ts';
import { beginBlock, type ConsensusInfo, endBlock, type ValidatorUpdate } from '../app/block-hooks.ts';
import { readDecimal, decimal } from '../app/state-access.ts';
import { evmKeys, STORES } from '../app/store-keys.ts';
import type { BlockEngine } from '../execution/block-engine.ts';
import {
  BlockExecutor,
  isRejection,
  type EthTxOutcome,
  type EthTxRejection,
} from '../execution/block-executor.ts';
import type { DecodedEthTx } from '../execution/transactions.ts';
import { type CosmosTxContext, deliverCosmosTx } from '../app/cosmos-deliver.ts';
import { CosmosTxError } from '../app/cosmos-errors.ts';
import type { DecodedCosmosTx } from '../app/cosmos-tx.ts';
import { wrapEthTransaction } from '../execution/tx-wrap.ts';
import { wrapDevRecord } from '../app/dev-records.ts';
import { applyDevStatePatch, type DevStateEdit } from '../app/dev-state-patch.ts';
import { StateOverlay, type StateReader } from '../state/overlay.ts';
import { logsBloom } from '../storage/blocks/bloom.ts';
import type { CosmosTxResult, Log, Receipt, TxAppearances, TxEvent } from '../storage/blocks/types.ts';
import { ChainError } from '../util/errors.ts';
import { toHex } from '../primitives/bytes.ts';
import { type BaseFeeParams, nextBaseFee } from './base-fee.ts';

/** How long a proposal may execute before it takes no more candidates. */
export const PROPOSAL_EXECUTION_BUDGET_MS = 1_000;

export interface ProposalOptions {
  /** PROPOSAL_EXECUTION_BUDGET_MS unless given (tests). */
  budgetMs?: number;
  /** performance.now unless given (tests). */
  now?: () => number;
  /** The EVM that runs the block's untraced transactions: the process's (blockEngine()) unless given. */
  engine?: BlockEngine;
}

/** The base fee of the next block, kept in state so that replay and every node derive the same one. */
const BASE_FEE_KEY = Uint8Array.of(0x0c);

export function readBaseFee(state: StateReader, params: BaseFeeParams): bigint {
  const stored = state.get(STORES.evm, BASE_FEE_KEY);
  return stored ? readDecimal(stored) : params.initialBaseFee;
}

/**
 * What a dev chain set for the block executed on `state` (app/dev-state-patch.ts): its COINBASE and
 * PREVRANDAO, when set. Absent on every other chain: no block but a dev chain's patch writes them.
 */
export function devBlockParams(state: StateReader): {
  coinbase?: Uint8Array;
  prevRandao?: Uint8Array;
  gasLimit?: bigint;
} {
  const coinbase = state.get(STORES.evm, evmKeys.devCoinbase);
  const prevRandao = state.get(STORES.evm, evmKeys.devPrevRandao);
  const gasLimit = state.get(STORES.evm, evmKeys.devGasLimit);
  return {
    ...(coinbase && { coinbase }),
    ...(prevRandao && { prevRandao }),
    ...(gasLimit && { gasLimit: readDecimal(gasLimit) }),
  };
}

/** A dev chain's state patch as a block holds it (app/dev-records.ts). */
export interface DevPatchTx {
  /** The record's TxRaw bytes. */
  raw: Uint8Array;
  /** SHA-256 of `raw`: its Cosmos tx hash. */
  hash: Uint8Array;
  /** A patch uses no gas (CometBFT's gas_wanted of the record). */
  gasLimit: 0n;
  edits: DevStateEdit[];
}

/**
 * A transaction of a block: Ethereum (wrapped in a TxRaw; a dev chain's impersonated one in its dev
 * record), a signed Cosmos tx, or a dev chain's state patch.
 */
export type BlockTx =
  | { kind: 'eth'; tx: DecodedEthTx }
  | { kind: 'cosmos'; tx: DecodedCosmosTx }
  | { kind: 'devPatch'; tx: DevPatchTx };

export interface BlockContext {
  chainId: string;
  height: number;
  /** seconds since the epoch (the header time, truncated): the EVM's TIMESTAMP */
  timestamp: bigint;
  /** The header time, as the block hooks see it. */
  time: { seconds: number; nanos: number };
  /**
   * The votes for the parent and the evidence the block carries, for beginBlock: what the consensus
   * engine handed the block, or what its record kept when it is replayed; none for a pending block.
   */
  consensus: ConsensusInfo;
  gasLimit: bigint;
  coinbase: Uint8Array;
  parentAppHash: Uint8Array;
  blockHash(height: bigint): Uint8Array | undefined;
}

export interface ExecutedBlock {
  baseFee: bigint;
  /** TxRaw bytes in block order */
  txs: Uint8Array[];
  receipts: Receipt[];
  cosmosResults: CosmosTxResult[];
  /** gas limit of each included tx, in block order (CometBFT's gas_wanted) */
  gasLimits: bigint[];
  /** Candidates left out, with the reason. */
  rejected: { hash: Uint8Array; reason: string }[];
  gasUsed: bigint;
  overlay: StateOverlay;
  /** endBlock's changes of the validator set, for the consensus engine (FinalizeBlock). */
  validatorUpdates: ValidatorUpdate[];
  /** The events of beginBlock, then of endBlock (FinalizeBlock's block events). */
  blockEvents: TxEvent[];
  /**
   * Per EVM tx (by transactionIndex), what the address index needs beyond the receipt; present when
   * the block ran with `collectAddresses` (a block that will be stored).
   */
  appearances?: TxAppearances[];
}

/** What the executor's run of one tx may take (debug_trace* attaches a tracer). */
export type EthExecOptions = Parameters<BlockExecutor['execute']>[2];

/**
 * Hooks of a traced replay (chain/trace-replay.ts); a block executed without them runs exactly as
 * before, with nothing attached.
 */
export interface ReplayHooks {
  /** Options for the run of the tx at this index of the block (undefined: a plain run). */
  execOptions?(blockTxIndex: number): EthExecOptions | undefined;
  /** Called with each Ethereum tx's outcome, in block order. */
  onEthOutcome?(blockTxIndex: number, outcome: EthTxOutcome): void;
  /** Awaited before each tx; may throw to stop the replay (a deadline) or yield to the event loop. */
  beforeTx?(blockTxIndex: number): void | Promise<void>;
  /** The block's txs after this index are not run (a trace of one tx needs nothing after it). */
  lastTxIndex?: number;
}

/** The block hooks a block runs through: app/block-hooks.ts's, unless a unit test watches them. */
export interface BlockHooks {
  beginBlock: typeof beginBlock;
  endBlock: typeof endBlock;
}

const BLOCK_HOOKS: BlockHooks = { beginBlock, endBlock };

export async function executeBlock(
  common: Common,
  state: StateReader,
  ctx: BlockContext,
  feeParams: BaseFeeParams,
  candidates: BlockTx[],
  mode: 'propose' | 'replay',
  hooks?: ReplayHooks,
  proposal: ProposalOptions = {},
  collectAddresses = false,
  blockHooks: BlockHooks = BLOCK_HOOKS,
): Promise<ExecutedBlock> {
  const now = proposal.now ?? (() => performance.now());
  const budgetMs = proposal.budgetMs ?? PROPOSAL_EXECUTION_BUDGET_MS;
  const started = now();
  const overlay = new StateOverlay(state);
  const baseFee = readBaseFee(overlay, feeParams);
  const dev = devBlockParams(overlay);
  const gasLimit = dev.gasLimit ?? ctx.gasLimit;
  // a PREVRANDAO set for the next block is this block's only
  if (dev.prevRandao) overlay.set(STORES.evm, evmKeys.devPrevRandao, undefined);
  const hookBlock = { height: ctx.height, time: ctx.time };
  const blockEvents = [...blockHooks.beginBlock(overlay, hookBlock, ctx.consensus)];
  const executor = await BlockExecutor.create(
    common,
    {
      height: BigInt(ctx.height),
      timestamp: ctx.timestamp,
      gasLimit,
      baseFee,
      coinbase: dev.coinbase ?? ctx.coinbase,
      ...(dev.prevRandao && { prevRandao: dev.prevRandao }),
      parentAppHash: ctx.parentAppHash,
      blockHash: ctx.blockHash,
    },
    overlay,
    proposal.engine,
  );
  const cosmosCtx: CosmosTxContext = {
    chainId: ctx.chainId,
    maxBlockGas: gasLimit,
    block: { height: ctx.height, time: { seconds: Number(ctx.timestamp), nanos: 0 } },
  };
  const txs: Uint8Array[] = [];
  const gasLimits: bigint[] = [];
  const ethOutcomes: { outcome: EthTxOutcome; blockTxIndex: number }[] = [];
  const cosmosResults: CosmosTxResult[] = [];
  const rejected: ExecutedBlock['rejected'] = [];
  let cosmosGas = 0n;
  let baseFeeOverride: bigint | undefined;
  const reject = (hash: Uint8Array, reason: string) => {
    if (mode === 'replay') {
      throw new ChainError(
        'REPLAY_DIVERGED',
        `replaying block ${ctx.height}: tx ${toHex(hash)} no longer executes: ${reason}`,
      );
    }
    rejected.push({ hash, reason });
  };
  const last = hooks?.lastTxIndex ?? candidates.length - 1;
  try {
    for (let i = 0; i <= last; i++) {
      if (mode === 'propose' && txs.length > 0 && now() - started >= budgetMs) break;
      const c = candidates[i];
      if (hooks?.beforeTx) await hooks.beforeTx(i);
      if (c.kind === 'eth') {
        const traced = hooks?.execOptions?.(i);
        const r = await executor.execute(
          c.tx,
          cosmosGas,
          collectAddresses ? { ...traced, collectAddresses } : traced,
        );
        if (isRejection(r)) {
          reject(c.tx.hash, r.reason);
          continue;
        }
        hooks?.onEthOutcome?.(i, r);
        ethOutcomes.push({ outcome: r, blockTxIndex: txs.length });
        txs.push(
          c.tx.impersonated
            ? wrapDevRecord({ kind: 'impersonated', sender: c.tx.sender, raw: c.tx.raw })
            : wrapEthTransaction(c.tx.raw),
        );
        gasLimits.push(c.tx.gasLimit);
      } else if (c.kind === 'devPatch') {
        const applied = applyDevStatePatch(overlay, c.tx.edits);
        if (applied.nextBaseFee !== undefined) baseFeeOverride = applied.nextBaseFee;
        cosmosResults.push({
          index: txs.length,
          code: 0,
          codespace: '',
          log: '',
          gasWanted: 0n,
          gasUsed: 0n,
          events: [],
        });
        txs.push(c.tx.raw);
        gasLimits.push(0n);
      } else {
        if (executor.blockGasUsed + cosmosGas + c.tx.gasLimit > gasLimit) {
          reject(c.tx.hash, `block gas limit reached, tx gas limit ${c.tx.gasLimit}`);
          continue;
        }
        let result;
        try {
          result = deliverCosmosTx(c.tx, overlay, cosmosCtx);
        } catch (err) {
          if (!(err instanceof CosmosTxError)) throw err;
          reject(c.tx.hash, err.message);
          continue;
        }
        cosmosGas += c.tx.gasLimit;
        cosmosResults.push({ index: txs.length, ...result });
        txs.push(c.tx.raw);
        gasLimits.push(c.tx.gasLimit);
      }
    }
  } finally {
    executor.release();
  }
  let validatorUpdates: ValidatorUpdate[] = [];
  if (last === candidates.length - 1) {
    const ended = blockHooks.endBlock(overlay, hookBlock);
    validatorUpdates = ended.validatorUpdates;
    blockEvents.push(...ended.events);
  }
  const gasUsed = executor.blockGasUsed + cosmosResults.reduce((s, r) => s + r.gasUsed, 0n);
  overlay.set(
    STORES.evm,
    BASE_FEE_KEY,
    decimal(baseFeeOverride ?? nextBaseFee(feeParams, baseFee, executor.blockGasUsed, gasLimit)),
  );

  let logIndex = 0;
  const receipts = ethOutcomes.map(({ outcome: o, blockTxIndex }, txIndex): Receipt => {
    const logs: Log[] = o.logs.map((l) => ({ ...l, logIndex: logIndex++, txIndex, txHash: o.tx.hash }));
    return {
      txHash: o.tx.hash,
      txIndex,
      blockTxIndex,
      from: o.tx.sender,
      to: o.tx.to,
      contractAddress: o.contractAddress,
      status: o.status,
      gasUsed: o.gasUsed,
      cumulativeGasUsed: o.cumulativeGasUsed,
      effectiveGasPrice: o.effectiveGasPrice,
      type: o.tx.type,
      logs,
      logsBloom: logsBloom(logs),
      // chain_getVMError / chain_getTransactionErrorByHash read these back
      ...(o.status === 0
        ? {
            vmError: o.error ?? '',
            ...(o.returnData.length > 0 ? { revertData: o.returnData.slice() } : {}),
          }
        : {}),
      ...(o.failedBeforeExecution ? { failedBeforeExecution: true as const } : {}),
    };
  });
  const appearances = collectAddresses
    ? ethOutcomes.map(({ outcome: o }) => ({
        nonce: o.tx.nonce,
        created: o.addresses?.created ?? [],
        internal: o.addresses?.internal ?? [],
      }))
    : undefined;
  return {
    baseFee,
    txs,
    receipts,
    cosmosResults,
    gasLimits,
    rejected,
    gasUsed,
    overlay,
    validatorUpdates,
    blockEvents,
    ...(appearances && { appearances }),
  };
}
