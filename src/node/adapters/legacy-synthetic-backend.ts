/**
 * The synthetic legacy views' backend (rpc/legacy/synthetic SyntheticBackend) over the node's block
 * store, the Cosmos tx decoder, the stored tx results and historical state; plus the chain_ filter
 * table, which is a FilterStore of its own (eth_ filter ids are unknown to chain_ and the other way).
 *
 * What this chain gives the views:
 * - A block's txs are its TxRaws in block order; a TxRaw with a receipt is an EVM tx, every other one
 *   is Cosmos-originated and has a stored result (code, gas used).
 * - "Failed before execution" (included, nonce consumed, nothing executed): an EVM tx that could not
 *   pay when its turn in the block came (the block executor's chain rule; its receipt says so); a tx
 *   with a wrong nonce or over the block gas limit is never included. A Cosmos tx whose message
 *   failed is included with its fee and sequence consumed and its messages reverted: the views treat
 *   it as included-but-not-executed too.
 * - Synthetic logs: the only Cosmos messages this chain executes are bank MsgSends, which run no EVM
 *   code and which no contract stands for, so Cosmos-originated txs carry no synthetic logs; the
 *   chain2_ bank entries show those transfers instead.
 * - Addresses: a Cosmos address is shown as its associated EVM address in the state after the tx's
 *   block (association is permanent, so the latest state answers for a pruned height), else its cast.
 */
import { decodeCosmosTx, isSendMsg } from '../../app/cosmos-tx.ts';
import { EvmReader } from '../../app/evm.ts';
import type { Chain } from '../../chain/chain.ts';
import { blockEthTransaction } from '../../execution/transactions.ts';
import { WEI_PER_UCHAIN } from '../../primitives/identity.ts';
import {
  type ChainEvents,
  type ChainReader,
  DEFAULT_MAX_FILTERS,
  type EvmRpcOptions,
  type FilterOptions,
  FilterStore,
  type TxPool,
} from '../../rpc/evm/index.ts';
import {
  type BlockTracer,
  type BlockTxRef,
  type CosmosTxView,
  type SyntheticBackend,
  syntheticLegacyMethods,
} from '../../rpc/legacy/synthetic/index.ts';
import type { MethodTable } from '../../rpc/server/dispatcher.ts';
import type { BlockStore } from '../../storage/blocks/store.ts';
import type { CosmosTxResult } from '../../storage/blocks/types.ts';
import { ChainError, errorMessage } from '../../util/errors.ts';
import { Lru } from '../../util/lru.ts';

const EMPTY_BLOOM = new Uint8Array(256);

export interface SyntheticBackendDeps {
  chain: Chain;
  blocks: BlockStore;
  /** The eth_ reader (its block views and caches are shared with eth_). */
  reader: ChainReader;
  options: EvmRpcOptions;
  pool?: Pick<TxPool, 'get'>;
  tracer?: BlockTracer;
}

export class NodeSyntheticBackend implements SyntheticBackend {
  readonly chain: ChainReader;
  readonly options: EvmRpcOptions;
  readonly pool: Pick<TxPool, 'get'> | undefined;
  readonly tracer: BlockTracer | undefined;
  private readonly d: SyntheticBackendDeps;
  private readonly cache = new Lru<number, BlockTxRef[]>(256);

  constructor(d: SyntheticBackendDeps) {
    this.d = d;
    this.chain = d.reader;
    this.options = d.options;
    this.pool = d.pool;
    this.tracer = d.tracer;
    d.reader.onRewind?.((height) => this.cache.deleteWhere((h) => h > height));
  }

  async blockTxs(height: number): Promise<BlockTxRef[] | undefined> {
    if (height === 0) return [];
    const cached = this.cache.get(height);
    if (cached) return cached;
    const { blocks } = this.d;
    const block = blocks.blockByHeight(height);
    const receipts = blocks.receiptsOfBlock(height);
    const results = blocks.cosmosResultsOfBlock(height);
    if (!block || !receipts || !results) return undefined;
    const receiptAt = new Map(receipts.map((r) => [r.blockTxIndex, r]));
    const resultOf = new Map<number, CosmosTxResult>(results.map((r) => [r.index, r]));
    const evmAddressOf = this.addressMapper(height);
    const refs: BlockTxRef[] = [];
    for (const [i, raw] of block.txs.entries()) {
      const receipt = receiptAt.get(i);
      if (receipt !== undefined) {
        refs.push({
          kind: 'evm',
          evmIndex: receipt.txIndex,
          failedBeforeExecution: receipt.failedBeforeExecution === true,
        });
        continue;
      }
      const result = resultOf.get(i);
      if (!result) {
        throw new ChainError(
          'STORES_INCONSISTENT',
          `block ${height} tx ${i} has neither a receipt nor a Cosmos tx result`,
        );
      }
      refs.push({ kind: 'cosmos', tx: await this.cosmosView(height, i, raw, result, evmAddressOf) });
    }
    this.cache.set(height, refs);
    return refs;
  }

  private async cosmosView(
    height: number,
    index: number,
    raw: Uint8Array,
    result: CosmosTxResult,
    evmAddressOf: (cosmos: Uint8Array) => Promise<Uint8Array>,
  ): Promise<CosmosTxView> {
    let tx;
    try {
      tx = decodeCosmosTx(raw);
    } catch (err) {
      // Every stored Cosmos tx was decoded by the same decoder when it was admitted.
      throw new ChainError(
        'STORES_INCONSISTENT',
        `block ${height} tx ${index} does not decode as a Cosmos tx: ${errorMessage(err)}`,
      );
    }
    // Only bank sends move value a legacy view can show; other messages (staking) are not transfers.
    const sends = tx.msgs.filter(isSendMsg);
    const to = sends[0]?.to;
    return {
      hash: tx.hash,
      from: await evmAddressOf(tx.signer),
      to: to ? await evmAddressOf(to) : null,
      nonce: tx.sequence,
      gasLimit: tx.gasLimit,
      fee: tx.fee * WEI_PER_UCHAIN,
      code: result.code,
      gasUsed: result.gasUsed,
      logs: [],
      logsBloom: EMPTY_BLOOM,
      transfers: await Promise.all(
        sends.map(async (m) => ({
          from: await evmAddressOf(m.from),
          to: await evmAddressOf(m.to),
          amount: m.amount,
        })),
      ),
    };
  }

  /** Cosmos address → associated EVM address in the state after block `height`, else its cast. */
  private addressMapper(height: number): (cosmos: Uint8Array) => Promise<Uint8Array> {
    const retained = height >= this.chain.earliestStateHeight();
    const history = retained ? this.d.chain.stateAt(height) : undefined;
    const latest = new EvmReader(this.d.chain.state);
    return async (cosmos) => {
      const associated = history
        ? await history.read((state) => new EvmReader(state).evmAddressOf(cosmos))
        : latest.evmAddressOf(cosmos);
      return associated ?? cosmos;
    };
  }

  cosmosTxLocation(hash: Uint8Array): { height: number } | undefined {
    const loc = this.d.blocks.txLocationByCosmosHash(hash);
    if (!loc) return undefined;
    const raw = this.d.blocks.txAt(loc.height, loc.index);
    // A wrapped EVM tx is found by its keccak hash, not by the SHA-256 of its wrapper.
    if (!raw || blockEthTransaction(raw)) return undefined;
    return { height: loc.height };
  }

  syntheticLogHeights(): number[] {
    return []; // no Cosmos-originated tx of this chain carries synthetic logs (module comment)
  }
}

/** What this adapter needs of debug_trace*'s Tracing (rpc/evm/debug.ts): block traces with their limits. */
export interface BlockTracing<O> {
  traceBlock(
    height: number,
    options?: O,
  ): Promise<({ txHash: Uint8Array; result: unknown } | { txHash: Uint8Array; error: string })[]>;
}

/**
 * The trace variants' tracer over debug_trace*'s Tracing, so they share its limits (trace_timeout,
 * max_concurrent_trace_calls, max_trace_lookback_blocks) and its config decoding.
 */
export function blockTracer<O>(tracing: BlockTracing<O>, parseConfig: (v: unknown) => O): BlockTracer {
  const hex = (b: Uint8Array) => '0x' + Buffer.from(b).toString('hex');
  return {
    parseConfig,
    async traceBlock(height, config) {
      const entries = await tracing.traceBlock(height, config as O | undefined);
      return entries.map((e) =>
        'error' in e
          ? { txHash: hex(e.txHash), error: e.error }
          : { txHash: hex(e.txHash), result: e.result },
      );
    },
  };
}

export interface SyntheticLegacy {
  methods: MethodTable;
  /** Stops the chain_ filter store's sweeper and drops its filters. */
  close(): void;
}

/**
 * The synthetic chain_/chain2_ table with its own filter store (`filterTimeoutMs`: `[evm]
 * filter_timeout`; `filterLimits`: the `[evm]` filter caps, applied to this store on its own).
 */
export function createSyntheticLegacy(
  d: SyntheticBackendDeps & {
    events: ChainEvents;
    filterTimeoutMs: number;
    filterLimits?: Omit<FilterOptions, 'timeoutMs'>;
  },
): SyntheticLegacy {
  const filters = new FilterStore(d.events, {
    maxFilters: DEFAULT_MAX_FILTERS,
    ...d.filterLimits,
    timeoutMs: d.filterTimeoutMs,
  });
  return {
    methods: syntheticLegacyMethods(new NodeSyntheticBackend(d), { filters }),
    close: () => filters.close(),
  };
}
