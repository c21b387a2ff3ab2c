/**
 * chaind as CometBFT's ABCI++ application. CometBFT decides blocks; this side keeps the state machine
 * and runs every decided block through the same pipeline as the embedded producer
 * (execute → block store beside SS → SC → notify):
 *
 * - PrepareProposal builds the proposal from the application mempool (fee priority, per-sender nonce
 *   order, block gas and byte limits), executing it as the embedded producer does; candidates that
 *   cannot be included are left out.
 * - ProcessProposal executes the proposal and accepts it only if every tx executes (none would be
 *   left out): so a decided block never holds a tx this state machine refuses, and FinalizeBlock and
 *   a crash replay both run it in replay mode. The chain keeps the execution (chain/kept-executions.ts),
 *   so FinalizeBlock of the block this node proposed or voted for does not run it again.
 * - FinalizeBlock executes the decided block (or takes the kept execution), applies it to State
 *   Commit's working version and returns per-tx results, the block events and validator updates of
 *   the block hooks (app/block-hooks.ts), and the app hash; Commit persists it.
 * - Each of the three hands the block hooks the votes for the parent block and the misbehavior of its
 *   request (consensus-info.ts); the stored block keeps them, so a replay passes the same. An
 *   execution is kept per consensus info too: a FinalizeBlock whose votes differ runs again.
 * - InitChain answers no validators (CometBFT keeps genesis.json's): FinalizeBlock's validator
 *   updates are the only way the set changes.
 *
 * Which txs and when is this engine's to decide; how a block executes is the chain's.
 */
import {
  CheckTxType,
  type ExecTxResult,
  type RequestApplySnapshotChunk,
  type RequestFinalizeBlock,
  type RequestLoadSnapshotChunk,
  type RequestOfferSnapshot,
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
import type { BlockTx, ExecutedBlock } from '../chain/block-execution.ts';
import {
  blockCandidates,
  committedBlockFields,
  dropRejected,
  settleCommitted,
} from '../chain/block-candidates.ts';
import type { Chain } from '../chain/chain.ts';
import {
  type BlockIdFlag,
  dataHash,
  GO_ZERO_TIME,
  type Commit,
  type Header,
  type Timestamp,
} from '../codec/index.ts';
import { wrapEthTransaction } from '../execution/tx-wrap.ts';
import { type AdmissionPools, checkTxRaw, poolHolds } from '../mempool/check-tx.ts';
import { equalBytes, toHex } from '../primitives/bytes.ts';
import { evmTxEvents } from '../storage/blocks/tx-events.ts';
import { blockConsensusFields } from '../chain/consensus-info.ts';
import type { ConsensusInfo } from '../app/block-hooks.ts';
import { abciValidatorUpdates, consensusInfoFromAbci } from './consensus-info.ts';
import type { Block } from '../storage/blocks/types.ts';
import { blockWork } from '../util/block-first.ts';
import { ChainError, errorMessage } from '../util/errors.ts';
import type { Logger } from '../util/logger.ts';
import type { AbciApplication } from './abci/server.ts';
import {
  chunkMatches,
  decodeSnapshotMetadata,
  encodeSnapshotMetadata,
  readSnapshotItems,
  SNAPSHOT_FORMAT,
  snapshotHash,
  type SnapshotStore,
} from './snapshots.ts';
import type { RestoreProgress } from './restore-progress.ts';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface AbciAppOptions {
  chain: Chain;
  pools: AdmissionPools;
  genesis: Genesis;
  /** chaind's version, reported by Info. */
  version: string;
  /** Answers the Cosmos gRPC query paths (the same code as the consensus RPC's abci_query). */
  query(req: RequestQuery): Promise<ResponseQuery>;
  logger: Logger;
  /**
   * State-sync snapshots: one of the committed state every `interval` heights (0: none), written
   * into `store` beside block production and offered to peers; `restoreDir` holds the chunks of a
   * snapshot this node restores.
   */
  snapshots?: { store: SnapshotStore; interval: number; restoreDir: string; progress?: RestoreProgress };
  /**
   * The hash of block `height - 1` as CometBFT has it, asked while block `height` is finalized: only
   * for the first block after a state sync, whose parent this node never stored.
   */
  parentHash?(height: number): Promise<Uint8Array>;
}

/** The snapshot being restored: what OfferSnapshot accepted, and the chunks checked so far. */
interface Restore {
  height: number;
  appHash: Uint8Array;
  chunkHashes: Uint8Array[];
  received: boolean[];
}

/** CometBFT passes a peer the newest 10 snapshots of a ListSnapshots answer (statesync/reactor.go). */
const OFFERED_SNAPSHOTS = 10;
/** CometBFT's block protocol version (headers carry it). */
const BLOCK_PROTOCOL = 11;
const EMPTY = new Uint8Array(0);

export class ChaindAbciApp implements AbciApplication {
  private readonly o: AbciAppOptions;
  private readonly log: Logger;
  private snapshotting: Promise<void> | undefined;
  private restoring: Restore | undefined;
  /** Ends the hold on RPC work taken at FinalizeBlock (util/block-first.ts). */
  private blockWorkRelease: (() => void) | undefined;
  /** Snapshots a peer asked a chunk of after they were gone (warned once each). */
  private readonly missingAsked = new Set<number>();

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
    return blockWork.around(() => this.prepare(req));
  }

  private async prepare(req: Parameters<AbciApplication['prepareProposal']>[0]) {
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
    const consensus = consensusInfoFromAbci(req.localLastCommit, req.misbehavior);
    const executed = await chain.propose(
      { height: Number(req.height), time: fromPbTime(req.time), consensus },
      fitting,
    );
    dropRejected(pools, executed, (hash, reason) =>
      this.log.debug({ tx: toHex(hash), reason }, 'tx left out of proposal'),
    );
    return { txs: executed.txs };
  }

  async processProposal(req: Parameters<AbciApplication['processProposal']>[0]) {
    return blockWork.around(() => this.process(req));
  }

  private async process(req: Parameters<AbciApplication['processProposal']>[0]) {
    const height = Number(req.height);
    try {
      const consensus = consensusInfoFromAbci(req.proposedLastCommit, req.misbehavior);
      await this.o.chain.executeDecided({ height, time: fromPbTime(req.time), consensus }, req.txs);
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
    // RPC work yields from here until the block is committed (Commit releases it)
    this.releaseBlockWork();
    this.blockWorkRelease = blockWork.hold();
    const { chain } = this.o;
    const height = Number(req.height);
    const time = fromPbTime(req.time);
    const consensus = consensusInfoFromAbci(req.decidedLastCommit, req.misbehavior);
    const executed = await chain.executeDecided({ height, time, consensus }, req.txs);
    const block = this.decidedBlock(req, height, time, await this.parentHash(height), consensus);
    const appHash = await chain.finalize(block, executed).catch((err: unknown) => this.unlessDiskFull(err));
    return {
      events: executed.blockEvents.map((e) => ({ type: e.type, attributes: e.attributes })),
      txResults: txResults(block, executed),
      validatorUpdates: abciValidatorUpdates(executed.validatorUpdates),
      appHash,
    };
  }

  async commit() {
    try {
      return await this.commitBlock();
    } finally {
      this.releaseBlockWork();
    }
  }

  private releaseBlockWork(): void {
    this.blockWorkRelease?.();
    this.blockWorkRelease = undefined;
  }

  private async commitBlock() {
    const { chain, pools } = this.o;
    const committed = await chain.commitFinalized().catch((err: unknown) => this.unlessDiskFull(err));
    const { block, executed } = committed;
    const height = block.header.height;
    await settleCommitted(pools, height, executed, chain.latestAccounts);
    this.log.info(committedBlockFields(committed), 'committed block');
    this.maybeSnapshot(height, committed.appHash);
    // every block stays in chaind's block store, and CometBFT keeps its own for peers that sync
    return { retainHeight: 0n };
  }

  /**
   * Once the disk has filled the chain commits nothing more, and CometBFT's call is left unanswered:
   * an answered failure makes CometBFT exit, taking with it the RPC that tells clients this node is
   * halted; unanswered, its consensus waits here, writing nothing, until the node is stopped.
   * Any other failure is answered (and stops the node, as before).
   */
  private unlessDiskFull(err: unknown): Promise<never> {
    if (!this.o.chain.diskFull) throw err;
    return new Promise<never>(() => {});
  }

  async extendVote() {
    return { voteExtension: EMPTY };
  }

  async verifyVoteExtension() {
    return { status: ResponseVerifyVoteExtension_VerifyStatus.ACCEPT };
  }

  /**
   * The snapshots on disk. A snapshot that cannot be read is left out (and one chunk answered as
   * missing): an ABCI call that fails stops CometBFT, which a peer's request must never do.
   */
  async listSnapshots() {
    const store = this.o.snapshots?.store;
    try {
      const listed = store?.list() ?? [];
      // the peer will fetch one of these after its discovery time: keep them that long
      store?.noteOffered(listed.slice(0, OFFERED_SNAPSHOTS).map((m) => m.height));
      return {
        snapshots: listed.map((m) => ({
          height: BigInt(m.height),
          format: m.format,
          chunks: m.chunks,
          hash: snapshotHash(m.chunkHashes),
          metadata: encodeSnapshotMetadata(m.chunkHashes),
        })),
      };
    } catch (err) {
      this.log.warn({ err: errorMessage(err) }, 'cannot list state-sync snapshots');
      return { snapshots: [] };
    }
  }

  async loadSnapshotChunk(req: RequestLoadSnapshotChunk) {
    const height = Number(req.height);
    try {
      const store = this.o.snapshots?.store;
      const chunk = store?.chunk(height, req.format, req.chunk);
      if (chunk) store!.noteServed(height);
      else if (!this.missingAsked.has(height)) {
        this.missingAsked.add(height);
        this.log.warn(
          { height, chunk: req.chunk },
          'a peer asked for a chunk of a snapshot this node does not have (answered missing)',
        );
      }
      return { chunk: chunk ?? EMPTY };
    } catch (err) {
      this.log.warn(
        { height: Number(req.height), chunk: req.chunk, err: errorMessage(err) },
        'cannot read a state-sync snapshot chunk',
      );
      return { chunk: EMPTY };
    }
  }

  /**
   * A snapshot a peer offers: accepted when it is of our format and its metadata (the chunk hashes)
   * hashes to what it advertises; the app hash it comes with is the one CometBFT's light client
   * verified, and the restored state must match it.
   */
  async offerSnapshot(req: RequestOfferSnapshot) {
    const s = req.snapshot;
    const Result = ResponseOfferSnapshot_Result;
    if (!s || !this.o.snapshots) return { result: Result.REJECT };
    if (s.format !== SNAPSHOT_FORMAT) {
      this.log.info(
        { height: Number(s.height), format: s.format },
        'rejecting a snapshot of an unknown format',
      );
      return { result: Result.REJECT_FORMAT };
    }
    if (this.o.chain.latestHeight !== 0) {
      this.log.warn({ height: Number(s.height) }, 'rejecting a snapshot: this node already has blocks');
      return { result: Result.ABORT };
    }
    let chunkHashes: Uint8Array[];
    try {
      chunkHashes = decodeSnapshotMetadata(s.metadata, s.chunks);
    } catch (err) {
      this.log.warn({ height: Number(s.height), err: errorMessage(err) }, 'rejecting a snapshot');
      return { result: Result.REJECT };
    }
    if (s.chunks < 1 || !equalBytes(snapshotHash(chunkHashes), s.hash)) {
      this.log.warn({ height: Number(s.height) }, "rejecting a snapshot whose hash is not its chunks' hash");
      return { result: Result.REJECT };
    }
    const dir = this.o.snapshots.restoreDir;
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    this.restoring = {
      height: Number(s.height),
      appHash: req.appHash,
      chunkHashes,
      received: new Array<boolean>(s.chunks).fill(false),
    };
    this.o.snapshots.progress?.accepted(Number(s.height), s.chunks);
    this.log.info(
      { height: Number(s.height), chunks: s.chunks, app_hash: toHex(req.appHash).toUpperCase() },
      'accepted a state-sync snapshot',
    );
    return { result: Result.ACCEPT };
  }

  /**
   * One chunk of the accepted snapshot: checked against its hash (a mismatch is fetched again from
   * another peer and its sender rejected); with the last one the state is imported and checked.
   */
  async applySnapshotChunk(req: RequestApplySnapshotChunk) {
    const Result = ResponseApplySnapshotChunk_Result;
    const none = { refetchChunks: [] as number[], rejectSenders: [] as string[] };
    const r = this.restoring;
    const dir = this.o.snapshots?.restoreDir;
    if (!r || !dir) return { result: Result.ABORT, ...none };
    const { index } = req;
    if (!Number.isInteger(index) || index < 0 || index >= r.chunkHashes.length)
      return { result: Result.REJECT_SNAPSHOT, ...none };
    if (!chunkMatches(req.chunk, r.chunkHashes[index])) {
      this.log.warn(
        { height: r.height, chunk: index, sender: req.sender },
        'state-sync chunk does not match its hash; fetching it again',
      );
      this.o.snapshots?.progress?.chunkRefused();
      return {
        result: Result.RETRY,
        refetchChunks: [index],
        rejectSenders: req.sender ? [req.sender] : [],
      };
    }
    writeFileSync(join(dir, `chunk-${index}`), req.chunk);
    r.received[index] = true;
    const progress = this.o.snapshots?.progress;
    progress?.chunkReceived(index);
    if (!r.received.every(Boolean)) return { result: Result.ACCEPT, ...none };
    this.restoring = undefined;
    progress?.importing();
    const chunks = r.chunkHashes.length;
    const files = function* () {
      for (let i = 0; i < chunks; i++) yield readFileSync(join(dir, `chunk-${i}`));
    };
    try {
      await this.o.chain.restore(r.height, r.appHash, () => readSnapshotItems(files()));
    } catch (err) {
      this.log.error({ height: r.height, err: errorMessage(err) }, 'state-sync snapshot refused');
      progress?.rejected();
      return { result: Result.REJECT_SNAPSHOT, ...none };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    progress?.finished();
    return { result: Result.ACCEPT, ...none };
  }

  /** Waits for a snapshot being written (the stores close after this). */
  async close(): Promise<void> {
    await this.snapshotting;
  }

  /**
   * After committing a multiple of the interval, writes a snapshot of that state in the background:
   * the export reads State Commit's view of that version, so later commits do not wait for it.
   */
  private maybeSnapshot(height: number, appHash: Uint8Array): void {
    const s = this.o.snapshots;
    if (!s || s.interval <= 0 || height % s.interval !== 0) return;
    if (this.snapshotting) {
      this.log.warn({ height }, 'skipping a state-sync snapshot: the previous one is still being written');
      return;
    }
    const started = performance.now();
    this.snapshotting = s.store
      .write(height, appHash, this.o.chain.snapshotItems(height))
      .then(
        (m) => {
          const pinned = s.store.pinned();
          this.log.info(
            {
              height,
              chunks: m.chunks,
              items: m.items,
              bytes: m.bytes,
              size: m.size,
              ms: Math.round(performance.now() - started),
              // beyond keep-recent: snapshots peers were offered or are fetching (snapshots.ts)
              ...(pinned.length > 0 ? { kept_for_peers: pinned } : {}),
            },
            'state-sync snapshot taken',
          );
        },
        (err) => this.log.warn({ height, err: errorMessage(err) }, 'state-sync snapshot failed'),
      )
      .finally(() => {
        this.snapshotting = undefined;
      });
  }

  /**
   * The hash of block `height - 1`: from the block store, or for the first block after a state sync
   * (whose parent was never stored here) from CometBFT. Never zeros: a parent hash that cannot be
   * known fails the block.
   */
  private async parentHash(height: number): Promise<Uint8Array> {
    if (height <= 1) return EMPTY;
    const stored = this.o.chain.blocks.blockHashByHeight(height - 1);
    if (stored) return stored;
    if (!this.o.parentHash)
      throw new ChainError(
        'BAD_BLOCK',
        `the hash of block ${height - 1}, the parent of ${height}, is unknown`,
      );
    return this.o.parentHash(height);
  }

  /**
   * The block as chaind stores it: what FinalizeBlock says of it (see Block.hashFromEngine), with
   * the votes' powers and the misbehavior its execution got (`consensus`), for replay.
   */
  private decidedBlock(
    req: RequestFinalizeBlock,
    height: number,
    time: Timestamp,
    parentHash: Uint8Array,
    consensus: ConsensusInfo,
  ): Block {
    const { chain, genesis } = this.o;
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
    return {
      header,
      hash: req.hash,
      txs: req.txs,
      lastCommit,
      hashFromEngine: true,
      ...blockConsensusFields(consensus),
    };
  }
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
    out[r.blockTxIndex] = {
      code: r.status === 1 ? 0 : 1,
      data: EMPTY,
      log: r.status === 1 ? '' : (r.vmError ?? 'execution failed'),
      info: '',
      gasWanted: executed.gasLimits[r.blockTxIndex],
      gasUsed: r.gasUsed,
      events: evmTxEvents(r),
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
