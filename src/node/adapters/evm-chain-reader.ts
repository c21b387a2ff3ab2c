/**
 * rpc/evm's ChainReader over the node's modules: blocks, receipts, tx indexes and logs from the block
 * store, state at a height from the chain (chain/state-at.ts). The Ethereum view of a block: hash,
 * parentHash = last block id, stateRoot = app hash, miner = proposer, base fee from the schedule's
 * state; plus a genesis block 0 (see genesisBlockHash) that block 1 names as its parent.
 *
 * Blocks are immutable once stored, so their Ethereum views and base fees are cached by height; a
 * dev chain that goes back (evm_revert) drops the heights above its new head first.
 */
import { readFileSync } from 'node:fs';
import { FEE_COLLECTOR_ADDRESS } from '../../app/evm.ts';
import type { Genesis } from '../../app/genesis.ts';
import { readBaseFee } from '../../chain/block-execution.ts';
import type { Chain } from '../../chain/chain.ts';
import type { PendingBlocks } from '../../chain/pending-block.ts';
import { pendingStateAt, type PendingStateAt } from '../../chain/pending-state.ts';
import { blockEthTransaction } from '../../execution/transactions.ts';
import type { BlockContext, BlockView, MinedTx } from '../../rpc/codecs/views.ts';
import type {
  AddressHistory,
  ChainReader,
  LogMatch,
  LogSearch,
  StateAt as RpcStateAt,
  StatePoint,
} from '../../rpc/evm/index.ts';
import { encodeBlock } from '../../storage/blocks/block-codec.ts';
import type { BlockStore } from '../../storage/blocks/store.ts';
import { APPEARANCE } from '../../storage/blocks/address-index.ts';
import type { Block } from '../../storage/blocks/types.ts';
import type { StateStore } from '../../storage/ss/types.ts';
import { ChainError } from '../../util/errors.ts';
import { Lru } from '../../util/lru.ts';
import { sha256 } from '../../crypto/hash.ts';
import { equalBytes, toHex } from '../../primitives/bytes.ts';

const ZERO_HASH = new Uint8Array(32);
const ZERO_ADDRESS = new Uint8Array(20);
const EMPTY_BLOOM = new Uint8Array(256);

/** `chaind/v<version>/<platform>-<arch>/node<version>`, like geth's `Geth/v1.x/linux-amd64/go1.x`. */
export function clientVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return `chaind/v${pkg.version}/${process.platform}-${process.arch}/node${process.versions.node}`;
}

/**
 * The hash of the genesis block view. The chain's first block is 1 (its CometBFT header has an empty
 * last block id), so block 0 exists only in the Ethereum view, and its hash is derived: SHA-256 of the
 * UTF-8 text `chaind-genesis/<chain_id>/<genesis time in unix seconds>/<genesis app hash in lower-case
 * hex>`. Every node of a chain computes the same one; another chain id, start time or genesis state
 * gives another; no CometBFT block hash can collide with it by construction. The Ethereum view's
 * parentHash of block 1 is this hash (its header, and so its own hash, are unchanged).
 */
export function genesisBlockHash(chainId: string, genesisTime: number, appHash: Uint8Array): Uint8Array {
  return sha256(new TextEncoder().encode(`chaind-genesis/${chainId}/${genesisTime}/${toHex(appHash)}`));
}

/**
 * What the reader needs of the chain: the Chain itself on the main thread; in an RPC reader thread, a
 * view whose latest height is the one the main thread published and whose state is the State Store's.
 */
export type ChainView = Pick<
  Chain,
  'latestHeight' | 'gasLimit' | 'gasLimitAt' | 'feeParams' | 'appHash' | 'stateAt'
> &
  Partial<Pick<Chain, 'onRewind'>>;

export interface ChainReaderModules {
  chain: ChainView;
  blocks: BlockStore;
  /** How far back state is kept, and why not further (latest-state-store.ts). */
  ss: Pick<StateStore, 'earliestVersion' | 'unavailableReason'>;
  genesis: Genesis;
  /** The pending block (`pending` reads); absent: `pending` reads the latest state. */
  pending?: PendingBlocks;
}

/** About the memory of a block view: its txs and their receipts' logs, beside a fixed part. */
function viewBytes(v: BlockView): number {
  let n = 1024;
  for (const tx of v.txs) {
    n += tx.raw.length + 512;
    for (const l of tx.receipt.logs) n += l.data.length + 32 * l.topics.length + 160;
  }
  return n;
}

export class NodeChainReader implements ChainReader {
  readonly chainId: bigint;
  readonly coinbase = FEE_COLLECTOR_ADDRESS;
  private readonly d: ChainReaderModules;
  private readonly genesisTime: number;
  /** Block views hold their txs and receipts: bounded by bytes too (a block may hold megabytes). */
  private readonly views = new Lru<number, BlockView>(256, 32 * 1024 * 1024, viewBytes);
  private readonly contexts = new Lru<number, BlockContext>(16_384);
  private readonly baseFees = new Lru<number, bigint>(4096);
  private genesisAppHash: Uint8Array | undefined;
  private genesisHashOnce: Uint8Array | undefined;
  private readonly pendingState: PendingStateAt;
  readonly addressHistory: AddressHistory;

  constructor(d: ChainReaderModules) {
    this.d = d;
    this.addressHistory = addressHistoryOf(d.blocks, Number(d.genesis.initial_height));
    this.pendingState = pendingStateAt(d.chain, d.pending);
    this.chainId = BigInt(d.genesis.app_state.evm.params.chain_id);
    this.genesisTime = Math.floor(Date.parse(d.genesis.genesis_time) / 1000);
    // registered before any rpc/ table's cache: those build on what this reader answers
    d.chain.onRewind?.((height) => {
      const above = (h: number) => h > height;
      this.views.deleteWhere(above);
      this.contexts.deleteWhere(above);
      this.baseFees.deleteWhere(above);
    });
  }

  onRewind(listener: (height: number) => void): () => void {
    return this.d.chain.onRewind?.(listener) ?? (() => {});
  }

  latestHeight(): number {
    return this.d.chain.latestHeight;
  }

  earliestBlockHeight(): number {
    const e = this.d.blocks.earliestHeight();
    // Block 1 carries the genesis app hash; while it is stored, the genesis view is too.
    return e === undefined || e <= 1 ? 0 : e;
  }

  earliestStateHeight(): number {
    return Math.max(0, this.d.ss.earliestVersion() - 1);
  }

  stateUnavailableReason(): string | undefined {
    if (this.d.ss.unavailableReason) return this.d.ss.unavailableReason;
    // a state-synced node holds no block at or below its snapshot, and state from the snapshot on
    // (until the State Store prunes past it)
    const blocksFrom = this.d.blocks.earliestHeight();
    const stateFrom = this.earliestStateHeight();
    if (blocksFrom !== undefined && blocksFrom > 1 && blocksFrom === stateFrom + 1)
      return `restored from a state-sync snapshot of height ${stateFrom}`;
    return undefined;
  }

  async block(height: number): Promise<BlockView | undefined> {
    const cached = this.views.get(height);
    if (cached) return cached;
    // Only a stored block is cached: a miss may be a height not written yet.
    const view = await this.buildView(height);
    // a build that a rewind overtook read a block that is gone
    if (view && height <= this.d.chain.latestHeight) this.views.set(height, view);
    return view;
  }

  private async buildView(height: number): Promise<BlockView | undefined> {
    if (height === 0) return this.genesisView();
    const block = this.d.blocks.blockByHeight(height);
    const receipts = this.d.blocks.receiptsOfBlock(height);
    if (!block || !receipts) return undefined;
    const h = block.header;
    // the base fee first: where the state before the block is gone, its error says why a block needs it
    const baseFeePerGas = await this.baseFeeOfBlock(height);
    return {
      height,
      hash: block.hash,
      timestamp: h.time.seconds,
      parentHash: height === 1 ? this.genesisHash()! : h.lastBlockId.hash,
      stateRoot: h.appHash,
      miner: h.proposerAddress,
      gasLimit: await this.d.chain.gasLimitAt(height),
      baseFeePerGas,
      logsBloom: this.d.blocks.blockBloom(height) ?? EMPTY_BLOOM,
      size: encodeBlock(block).length,
      txs: receipts.map((receipt) => ({
        raw: ethTxOf(block.txs[receipt.blockTxIndex], height, receipt.blockTxIndex),
        receipt,
      })),
    };
  }

  private genesisView(): BlockView {
    return {
      height: 0,
      hash: this.genesisHash()!,
      timestamp: this.genesisTime,
      parentHash: ZERO_HASH,
      stateRoot: this.appHashOfGenesis()!,
      miner: ZERO_ADDRESS,
      gasLimit: this.d.chain.gasLimit,
      baseFeePerGas: this.d.chain.feeParams.initialBaseFee,
      logsBloom: EMPTY_BLOOM,
      size: 0,
      txs: [],
    };
  }

  /**
   * The app hash of the genesis state: block 1's header carries it; before block 1, SC's. Unknown
   * once block 1 is no longer stored (the genesis view is not served then).
   */
  private appHashOfGenesis(): Uint8Array | undefined {
    if (this.genesisAppHash) return this.genesisAppHash;
    const h1 = this.d.blocks.headerByHeight(1);
    if (h1) return (this.genesisAppHash = h1.header.appHash);
    return this.d.chain.latestHeight === 0 ? this.d.chain.appHash : undefined;
  }

  /** genesisBlockHash of this chain; undefined when the genesis app hash is unknown. */
  private genesisHash(): Uint8Array | undefined {
    if (this.genesisHashOnce) return this.genesisHashOnce;
    const appHash = this.appHashOfGenesis();
    if (!appHash) return undefined;
    const hash = genesisBlockHash(this.d.genesis.chain_id, this.genesisTime, appHash);
    // before block 1 the app hash came from State Commit: computed again until block 1 carries it
    if (this.genesisAppHash) this.genesisHashOnce = hash;
    return hash;
  }

  /** Block h executed with the base fee stored in the state after block h - 1. */
  private async baseFeeOfBlock(height: number): Promise<bigint> {
    const cached = this.baseFees.get(height);
    if (cached !== undefined) return cached;
    const reason = this.d.ss.unavailableReason;
    const earliest = this.earliestStateHeight();
    if (reason && height - 1 < earliest) {
      // a block query, not a state query: say why it needs state
      throw new ChainError(
        'SS_DISABLED',
        `block ${height}'s base fee is read from the state after block ${height - 1}, which is not available: ` +
          `${reason}; block objects and fee history are served from block ${earliest + 1} on`,
      );
    }
    const params = this.d.chain.feeParams;
    const fee = await this.d.chain.stateAt(height - 1).read((state) => readBaseFee(state, params));
    this.baseFees.set(height, fee);
    return fee;
  }

  nextBaseFee(): Promise<bigint> {
    return this.baseFeeOfBlock(this.d.chain.latestHeight + 1);
  }

  blockContext(height: number): BlockContext | undefined {
    if (height === 0) {
      const hash = this.genesisHash();
      return hash && { height: 0, hash, timestamp: this.genesisTime };
    }
    let c = this.contexts.get(height);
    if (!c) {
      const stored = this.d.blocks.headerByHeight(height);
      if (!stored) return undefined;
      c = { height, hash: stored.hash, timestamp: stored.header.time.seconds };
      this.contexts.set(height, c);
    }
    return c;
  }

  heightByHash(hash: Uint8Array): number | undefined {
    const genesis = this.genesisHash();
    if (genesis && equalBytes(hash, genesis)) return 0;
    return this.d.blocks.heightByHash(hash);
  }

  txLocation(hash: Uint8Array): { height: number; evmIndex: number } | undefined {
    return this.d.blocks.txLocationByEvmHash(hash);
  }

  receipt(height: number, evmIndex: number) {
    return this.d.blocks.receipt(height, evmIndex);
  }

  receipts(height: number) {
    return height === 0 ? [] : this.d.blocks.receiptsOfBlock(height);
  }

  minedTx(height: number, evmIndex: number): MinedTx | undefined {
    const receipt = this.d.blocks.receipt(height, evmIndex);
    // one tx of the stored block, without decoding the others
    const txRaw = receipt && this.d.blocks.txAt(height, receipt.blockTxIndex);
    return receipt && txRaw ? { raw: ethTxOf(txRaw, height, receipt.blockTxIndex), receipt } : undefined;
  }

  getLogs(search: LogSearch): { logs: LogMatch[]; limitExceeded: boolean } {
    return this.d.blocks.getLogs(search);
  }

  stateAt(point: StatePoint): RpcStateAt {
    return point === 'pending' ? this.pendingState : this.d.chain.stateAt(point);
  }
}

function ethTxOf(txRaw: Uint8Array, height: number, index: number): Uint8Array {
  const raw = blockEthTransaction(txRaw)?.raw;
  if (!raw) {
    throw new ChainError(
      'STORES_INCONSISTENT',
      `block ${height} tx ${index} has a receipt but is not an Ethereum transaction`,
    );
  }
  return raw;
}

/** rpc/'s AddressHistory over the block store's address index. */
function addressHistoryOf(blocks: BlockStore, chainStart: number): AddressHistory {
  const at = (a: { height: number; txIndex: number } | undefined) =>
    a && { height: a.height, evmIndex: a.txIndex };
  return {
    chainStart,
    indexedSince: () => blocks.addressesIndexedSince(),
    page: (address, direction, height, minTxs) => {
      const { txs, reachedEnd } = blocks.appearancesPage(address, direction, height, minTxs);
      return { txs: txs.map((t) => ({ height: t.height, evmIndex: t.txIndex })), reachedEnd };
    },
    creations: (address, max) =>
      blocks
        .appearancesWith(address, APPEARANCE.created, max)
        .map((a) => ({ height: a.height, evmIndex: a.txIndex })),
    bySenderAndNonce: (sender, nonce) => at(blocks.txBySenderAndNonce(sender, nonce)),
  };
}
