/**
 * chaind as CometBFT's ABCI++ application. CometBFT decides blocks; this side keeps the state machine
 * and runs every decided block through the same pipeline as the embedded producer
 * (execute → block store → SS → SC → notify):
 *
 * - PrepareProposal builds the proposal from the application mempool (fee priority, per-sender nonce
 *   order, block gas and byte limits), executing it as the embedded producer does; candidates that
 *   cannot be included are left out.
 * - ProcessProposal executes the proposal and accepts it only if every tx executes (none would be
 *   left out): so a decided block never holds a tx this state machine refuses, and FinalizeBlock and
 *   a crash replay both run it in replay mode. The execution is kept, so FinalizeBlock of the block
 *   this node voted for does not run it again.
 * - FinalizeBlock executes the decided block (or takes the kept execution), applies it to State
 *   Commit's working version and returns per-tx results and the app hash; Commit persists it.
 *
 * Executions are keyed by what determines them: height, block time (seconds, the EVM's TIMESTAMP)
 * and the txs; the proposer does not enter execution (fees go to the fee collector).
 */
import {
  CheckTxType,
  type Event,
  type ExecTxResult,
  type RequestFinalizeBlock,
  type RequestQuery,
  type ResponseQuery,
  ResponseApplySnapshotChunk_Result,
  ResponseOfferSnapshot_Result,
  ResponseProcessProposal_ProposalStatus,
  ResponseVerifyVoteExtension_VerifyStatus,
} from 'cosmjs-types/tendermint/abci/types';
import type { Timestamp as PbTimestamp } from 'cosmjs-types/google/protobuf/timestamp';
import { cosmosTxHash } from '../app/cosmos-tx.ts';
import type { Genesis } from '../app/genesis.ts';
import { type BlockTx, executeBlock, type ExecutedBlock } from '../chain/block-execution.ts';
import { blockCandidates, dropRejected, settleCommitted } from '../chain/block-candidates.ts';
import type { Chain } from '../chain/chain.ts';
import {
  type BlockIdFlag,
  dataHash,
  GO_ZERO_TIME,
  type Commit,
  type Header,
  type Timestamp,
} from '../codec/index.ts';
import { sha256 } from '../crypto/hash.ts';
import { wrapEthTransaction } from '../execution/tx-wrap.ts';
import { type AdmissionPools, checkTxRaw, poolHolds } from '../mempool/check-tx.ts';
import { toHex } from '../primitives/bytes.ts';
import type { Block } from '../storage/blocks/types.ts';
import { ChainError, errorMessage } from '../util/errors.ts';
import type { Logger } from '../util/logger.ts';
import type { AbciApplication } from './abci/server.ts';

export interface AbciAppOptions {
  chain: Chain;
  pools: AdmissionPools;
  genesis: Genesis;
  /** chaind's version, reported by Info. */
  version: string;
  /** Answers the Cosmos gRPC query paths (the same code as the consensus RPC's abci_query). */
  query(req: RequestQuery): Promise<ResponseQuery>;
  logger: Logger;
}

/** CometBFT's block protocol version (headers carry it). */
const BLOCK_PROTOCOL = 11;
const EMPTY = new Uint8Array(0);
/** Executions kept for FinalizeBlock: a few rounds' proposals at one height. */
const MAX_KEPT_EXECUTIONS = 8;

export class ChaindAbciApp implements AbciApplication {
  private readonly o: AbciAppOptions;
  private readonly log: Logger;
  private readonly executions = new Map<string, ExecutedBlock>();

  constructor(o: AbciAppOptions) {
    this.o = o;
    this.log = o.logger.child({ module: 'abci' });
  }

  async info() {
    const { chain } = this.o;
    const h = chain.latestHeight;
    return {
      data: 'chaind',
      version: this.o.version,
      appVersion: 0n,
      lastBlockHeight: BigInt(h),
      // at height 0 CometBFT expects no app hash and calls InitChain
      lastBlockAppHash: h === 0 ? EMPTY : chain.appHash,
    };
  }

  async initChain(req: Parameters<AbciApplication['initChain']>[0]) {
    const { genesis, chain } = this.o;
    if (req.chainId !== genesis.chain_id)
      throw new ChainError(
        'GENESIS_MISMATCH',
        `CometBFT's genesis has chain id ${req.chainId}, config/genesis.json has ${genesis.chain_id}`,
      );
    if (req.initialHeight !== 1n)
      throw new ChainError(
        'GENESIS_MISMATCH',
        `initial_height ${req.initialHeight} is not supported (only 1)`,
      );
    // The genesis state was committed when the chain opened (the same state the embedded engine
    // starts from); its app hash is block 1's app_hash. CometBFT keeps its genesis validators.
    return { validators: [], appHash: chain.appHash };
  }

  async query(req: RequestQuery) {
    return this.o.query(req);
  }

  async checkTx(req: Parameters<AbciApplication['checkTx']>[0]) {
    if (req.type === CheckTxType.RECHECK) {
      // After a block CometBFT re-checks what it still holds; the application mempool already
      // dropped what the block committed, replaced or expired.
      const held = poolHolds(this.o.pools, req.tx);
      return checkTxResponse(
        held
          ? { code: 0, codespace: '', log: '', info: '', gasWanted: 0n }
          : {
              code: 1,
              codespace: 'chaind',
              log: 'no longer in the application mempool',
              info: '',
              gasWanted: 0n,
            },
      );
    }
    return checkTxResponse(await checkTxRaw(this.o.pools, req.tx));
  }

  async prepareProposal(req: Parameters<AbciApplication['prepareProposal']>[0]) {
    const { chain, pools } = this.o;
    const candidates = blockCandidates(pools, chain.gasLimit);
    // CometBFT's byte limit counts the txs as they will be in the block (Ethereum txs wrapped)
    let bytes = 0;
    const fitting: BlockTx[] = [];
    for (const c of candidates) {
      const size = c.kind === 'eth' ? wrapEthTransaction(c.tx.raw).length : c.tx.raw.length;
      if (bytes + size > Number(req.maxTxBytes)) break;
      bytes += size;
      fitting.push(c);
    }
    const height = Number(req.height);
    const time = fromPbTime(req.time);
    const executed = await executeBlock(
      chain.common,
      chain.state,
      this.context(height, time),
      chain.feeParams,
      fitting,
      'propose',
    );
    dropRejected(pools, executed, (hash, reason) =>
      this.log.debug({ tx: toHex(hash), reason }, 'tx left out of proposal'),
    );
    this.keep(height, time, executed.txs, executed);
    return { txs: executed.txs };
  }

  async processProposal(req: Parameters<AbciApplication['processProposal']>[0]) {
    const height = Number(req.height);
    try {
      await this.execution(height, fromPbTime(req.time), req.txs);
      return { status: ResponseProcessProposal_ProposalStatus.ACCEPT };
    } catch (err) {
      this.log.warn(
        { height, proposer: toHex(req.proposerAddress).toUpperCase(), err: errorMessage(err) },
        'rejecting proposal',
      );
      return { status: ResponseProcessProposal_ProposalStatus.REJECT };
    }
  }

  async finalizeBlock(req: RequestFinalizeBlock) {
    const { chain } = this.o;
    const height = Number(req.height);
    const time = fromPbTime(req.time);
    const executed = await this.execution(height, time, req.txs);
    const block = this.decidedBlock(req, height, time);
    const appHash = await chain.finalize(block, executed);
    return {
      events: [],
      txResults: txResults(block, executed),
      validatorUpdates: [],
      appHash,
    };
  }

  async commit() {
    const { chain, pools } = this.o;
    const committed = await chain.commitFinalized();
    this.executions.clear();
    const { block, executed } = committed;
    const height = block.header.height;
    await settleCommitted(pools, height, executed, chain.latestAccounts);
    this.log.info(
      {
        height,
        txs: block.txs.length,
        gas_used: executed.gasUsed.toString(),
        app_hash: toHex(committed.appHash).toUpperCase(),
        hash: toHex(block.hash).toUpperCase(),
      },
      'committed block',
    );
    // every block stays in chaind's block store, and CometBFT keeps its own for peers that sync
    return { retainHeight: 0n };
  }

  async extendVote() {
    return { voteExtension: EMPTY };
  }

  async verifyVoteExtension() {
    return { status: ResponseVerifyVoteExtension_VerifyStatus.ACCEPT };
  }

  async listSnapshots() {
    return { snapshots: [] };
  }

  async offerSnapshot() {
    return { result: ResponseOfferSnapshot_Result.REJECT };
  }

  async loadSnapshotChunk() {
    return { chunk: EMPTY };
  }

  async applySnapshotChunk() {
    return { result: ResponseApplySnapshotChunk_Result.ABORT, refetchChunks: [], rejectSenders: [] };
  }

  /**
   * The execution of `txs` at `height`, kept or run now in replay mode (throws if a tx would be left
   * out: such a block is not one this application proposes or accepts).
   */
  private async execution(height: number, time: Timestamp, txs: Uint8Array[]): Promise<ExecutedBlock> {
    const key = executionKey(height, time, txs);
    const kept = this.executions.get(key);
    if (kept) return kept;
    const { chain } = this.o;
    if (height !== chain.latestHeight + 1)
      throw new ChainError(
        'BAD_HEIGHT',
        `block ${height} does not follow the latest height ${chain.latestHeight}`,
      );
    const decoded = txs.map((raw, i) => {
      try {
        return chain.decodeBlockTx(raw);
      } catch (err) {
        throw new ChainError('BAD_BLOCK', `tx ${i} does not decode: ${errorMessage(err)}`);
      }
    });
    const executed = await executeBlock(
      chain.common,
      chain.state,
      this.context(height, time),
      chain.feeParams,
      decoded,
      'replay',
    );
    this.keep(height, time, txs, executed);
    return executed;
  }

  private keep(height: number, time: Timestamp, txs: Uint8Array[], executed: ExecutedBlock): void {
    if (this.executions.size >= MAX_KEPT_EXECUTIONS) {
      const oldest = this.executions.keys().next().value;
      if (oldest !== undefined) this.executions.delete(oldest);
    }
    this.executions.set(executionKey(height, time, txs), executed);
  }

  private context(height: number, time: Timestamp) {
    const { chain } = this.o;
    return chain.contextFor({ header: { height, time, appHash: chain.appHash } });
  }

  /** The block as chaind stores it: what FinalizeBlock says of it (see Block.hashFromEngine). */
  private decidedBlock(req: RequestFinalizeBlock, height: number, time: Timestamp): Block {
    const { chain, genesis } = this.o;
    const parentHash = height > 1 ? (chain.blocks.blockHashByHeight(height - 1) ?? EMPTY) : EMPTY;
    const header: Header = {
      version: { block: BLOCK_PROTOCOL, app: 0 },
      chainId: genesis.chain_id,
      height,
      time,
      lastBlockId: { hash: parentHash, partSetHeader: { total: 0, hash: EMPTY } },
      lastCommitHash: EMPTY,
      dataHash: dataHash(req.txs),
      validatorsHash: EMPTY,
      nextValidatorsHash: req.nextValidatorsHash,
      consensusHash: EMPTY,
      appHash: chain.appHash,
      lastResultsHash: EMPTY,
      evidenceHash: EMPTY,
      proposerAddress: req.proposerAddress,
    };
    const lastCommit: Commit = {
      height: height - 1,
      round: req.decidedLastCommit?.round ?? 0,
      blockId: { hash: parentHash, partSetHeader: { total: 0, hash: EMPTY } },
      signatures: (req.decidedLastCommit?.votes ?? []).map((v) => ({
        blockIdFlag: v.blockIdFlag as number as BlockIdFlag,
        validatorAddress: v.validator?.address ?? EMPTY,
        timestamp: GO_ZERO_TIME,
        signature: EMPTY,
      })),
    };
    return { header, hash: req.hash, txs: req.txs, lastCommit, hashFromEngine: true };
  }
}

function executionKey(height: number, time: Timestamp, txs: Uint8Array[]): string {
  const digest = sha256(concatAll(txs.map((tx) => sha256(tx))));
  return `${height}:${time.seconds}:${toHex(digest)}`;
}

function concatAll(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function fromPbTime(t: PbTimestamp | undefined): Timestamp {
  return { seconds: Number(t?.seconds ?? 0n), nanos: t?.nanos ?? 0 };
}

/**
 * A refusal carries the EVM mempool's reason in `data` too: CometBFT's broadcast answers pass data
 * but not info, and an RPC node that forwarded the tx answers with the same error as this node.
 */
function checkTxResponse(r: {
  code: number;
  codespace: string;
  log: string;
  info: string;
  gasWanted: bigint;
}) {
  return {
    code: r.code,
    data: r.code !== 0 && r.info ? new TextEncoder().encode(r.info) : EMPTY,
    log: r.log,
    info: r.info,
    gasWanted: r.gasWanted,
    gasUsed: 0n,
    events: [],
    codespace: r.codespace,
  };
}

/**
 * One result per tx of the block: an EVM tx is code 0 when it succeeded and 1 when it failed (as
 * Cosmos EVM chains report it), with its gas limit as gas_wanted; a Cosmos tx reports its own result.
 * Only code, data and the gas figures enter last_results_hash.
 */
function txResults(block: Block, executed: ExecutedBlock): ExecTxResult[] {
  const out: ExecTxResult[] = new Array(block.txs.length);
  for (const r of executed.receipts) {
    const events: Event[] = [
      {
        type: 'ethereum_tx',
        attributes: [
          { key: 'ethereumTxHash', value: toHex(r.txHash), index: true },
          { key: 'txIndex', value: String(r.txIndex), index: true },
          { key: 'txGasUsed', value: r.gasUsed.toString(), index: false },
        ],
      },
    ];
    out[r.blockTxIndex] = {
      code: r.status === 1 ? 0 : 1,
      data: EMPTY,
      log: r.status === 1 ? '' : (r.vmError ?? 'execution failed'),
      info: '',
      gasWanted: executed.gasLimits[r.blockTxIndex],
      gasUsed: r.gasUsed,
      events,
      codespace: r.status === 1 ? '' : 'evm',
    };
  }
  for (const r of executed.cosmosResults) {
    out[r.index] = {
      code: r.code,
      data: EMPTY,
      log: r.log,
      info: '',
      gasWanted: r.gasWanted,
      gasUsed: r.gasUsed,
      events: r.events.map((e) => ({ type: e.type, attributes: e.attributes })),
      codespace: r.codespace,
    };
  }
  return out;
}
