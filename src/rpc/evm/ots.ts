/**
 * Otterscan's `ots_` namespace at API level 8 (Erigon's methods, as anvil serves them too), plus
 * `erigon_getHeaderByNumber`, which Otterscan asks for. Address history (ots_searchTransactions*,
 * ots_getContractCreator, ots_getTransactionBySenderAndNonce) reads the block store's address
 * appearance index, whose work is the page's size, not the chain's length; a question whose answer
 * needs heights the index does not hold (stored before it existed, pruned, below a state-sync
 * snapshot) is refused with the first indexed height rather than answered incompletely. Call trees
 * (ots_traceTransaction, ots_getInternalOperations, the creator of ots_getContractCreator) come from
 * the callTracer's frames under debug_trace*'s limits (`Tracing`): one call tree for every format.
 */
import type { BlockNumberRef, BlockRef } from '../codecs/block-ref.ts';
import { parseBlockNumber } from '../codecs/block-ref.ts';
import { formatBlock, formatHeader, formatMinedTx, formatReceipt } from '../codecs/format.ts';
import { data, hash32, jsonKind, parseSmallQuantity, quantity } from '../codecs/hex.ts';
import { CodecError } from '../codecs/errors.ts';
import { p, type ParamCodec } from '../codecs/params.ts';
import type { BlockContext, MinedTx } from '../codecs/views.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import { ChainError } from '../../util/errors.ts';
import type { AddressHistory, EvmBackend, EvmTxAt } from './backend.ts';
import type { Tracing } from './debug.ts';
import { AddressIndexIncompleteError, type Resolver } from './resolve.ts';
import { txBySenderAndNonce } from './tx-by-sender.ts';

export const OTS_API_LEVEL = 8;

/** The most txs one page of ots_searchTransactions* / ots_getBlockTransactions may ask for. */
export const MAX_OTS_PAGE_SIZE = 1_000;

/** Failed creations of one address looked at before giving up on finding its creator. */
const MAX_CREATION_ATTEMPTS = 16;

/** A callTracer frame, as debug_traceTransaction answers it. */
interface Frame {
  type: string;
  error?: string;
  from: string;
  to?: string;
  value?: string;
  input: string;
  output?: string;
  calls?: Frame[];
}

/** Heights, pages and sizes: Otterscan sends JSON numbers; hex quantities are taken too. */
const count: ParamCodec<number> = {
  optional: false,
  parse: (v) => {
    if (typeof v === 'number') {
      if (!Number.isSafeInteger(v) || v < 0)
        throw new CodecError(`invalid number ${v}: want a non-negative integer`);
      return v;
    }
    if (typeof v === 'string') return parseSmallQuantity(v);
    throw new CodecError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type uint64`);
  },
};

/** A nonce: a JSON number (what Otterscan sends) or a hex quantity. */
const nonceParam: ParamCodec<bigint> = {
  optional: false,
  parse: (v) => (typeof v === 'number' ? BigInt(count.parse(v)) : p.uint64.parse(v)),
};

/** A block reference as eth_ methods take it, or a JSON number (an Otterscan block tag may be one). */
const blockRef: ParamCodec<BlockRef> = {
  optional: false,
  parse: (v) => (typeof v === 'number' ? { kind: 'number', height: count.parse(v) } : p.blockRef.parse(v)),
};

/** A block number as a JSON number, hex quantity or tag. */
const blockNumber: ParamCodec<BlockNumberRef> = {
  optional: false,
  parse: (v) => (typeof v === 'number' ? { kind: 'number', height: count.parse(v) } : parseBlockNumber(v)),
};

/** A receipt as the ots_ methods answer it: with its block's time. */
function timedReceipt(tx: MinedTx, ctx: BlockContext): Record<string, unknown> {
  return { ...formatReceipt(tx.receipt, ctx), timestamp: quantity(ctx.timestamp) };
}

/** ots_getBlockTransactions's receipt (Erigon's): logs and bloom left out, Otterscan reads them elsewhere. */
function slimReceipt(tx: MinedTx, ctx: BlockContext): Record<string, unknown> {
  return { ...timedReceipt(tx, ctx), logs: null, logsBloom: null };
}

/** ots_getBlockTransactions's tx (Erigon's and anvil's): the input cut to its 4-byte selector. */
function slimTx(tx: Record<string, unknown>): Record<string, unknown> {
  const input = tx.input as string;
  return input.length > 10 ? { ...tx, input: input.slice(0, 10) } : tx;
}

/** The frames of a call tree in Otterscan's order (depth first, each frame before its calls). */
function* walk(frame: Frame, depth = 0): Generator<{ frame: Frame; depth: number }> {
  yield { frame, depth };
  for (const c of frame.calls ?? []) yield* walk(c, depth + 1);
}

const VALUELESS = new Set(['STATICCALL', 'DELEGATECALL']);
const INTERNAL_OP = { transfer: 0, selfDestruct: 1, create: 2, create2: 3 } as const;

export function otsMethods(backend: EvmBackend, resolve: Resolver, tracing?: Tracing): MethodTable {
  const { chain } = backend;
  const history = chain.addressHistory;

  const ctxOf = (height: number): BlockContext => {
    const ctx = chain.blockContext(height);
    if (!ctx) throw new ChainError('RPC_BLOCK_MISSING', `block ${height} is not stored`);
    return ctx;
  };
  const mined = (at: EvmTxAt): MinedTx => {
    const tx = chain.minedTx(at.height, at.evmIndex);
    if (!tx)
      throw new ChainError('RPC_BLOCK_MISSING', `tx ${at.evmIndex} of block ${at.height} is not stored`);
    return tx;
  };
  /** A mined tx under the watermark, by hash. */
  const located = (hash: Uint8Array): EvmTxAt | undefined => {
    const loc = chain.txLocation(hash);
    if (!loc || loc.height > chain.latestHeight()) return undefined;
    resolve.assertBlockRetained(loc.height);
    return loc;
  };
  const callTree = async (hash: Uint8Array): Promise<Frame | null> => {
    if (!located(hash)) return null;
    return (await tracing!.traceTransaction(hash, { tracer: 'callTracer' })) as Frame;
  };

  const blockDetails = async (height: number | undefined) => {
    const b = height === undefined ? undefined : await chain.block(height);
    if (!b) return null;
    const { transactions: _txs, ...block } = formatBlock(b, false);
    let totalFees = 0n;
    for (const t of b.txs) totalFees += t.receipt.gasUsed * t.receipt.effectiveGasPrice;
    return {
      block: { ...block, transactionCount: b.txs.length },
      // no block reward or uncles on this chain: nothing is issued
      issuance: { blockReward: '0x0', uncleReward: '0x0', issuance: '0x0' },
      totalFees: quantity(totalFees),
    };
  };

  const searchable = (what: string, h: AddressHistory | undefined): AddressHistory => {
    if (!h) throw new ChainError('RPC_ADDRESS_INDEX_INCOMPLETE', `${what} is not served: no address index`);
    return h;
  };
  /** The index holds every block of the chain, from its first one on. */
  const complete = (h: AddressHistory) => {
    const since = h.indexedSince();
    return since !== undefined && since <= h.chainStart;
  };

  const search = (address: Uint8Array, direction: 'before' | 'after', blockNum: number, pageSize: number) => {
    const what = `ots_searchTransactions${direction === 'before' ? 'Before' : 'After'}`;
    const h = searchable(what, history);
    if (pageSize < 1 || pageSize > MAX_OTS_PAGE_SIZE)
      throw new ChainError(
        'RPC_INVALID_PARAMS',
        `pageSize ${pageSize} must be between 1 and ${MAX_OTS_PAGE_SIZE}`,
      );
    const latest = chain.latestHeight();
    const since = h.indexedSince();
    // before: 0, or a number above the head (Otterscan's way to ask for the newest), is from the
    // newest block; after: 0 is from the first
    const bound =
      direction === 'before' ? (blockNum === 0 || blockNum > latest ? latest + 1 : blockNum) : blockNum;
    const page = h.page(address, direction, bound, pageSize);
    // a page cut by the index's start is not the end of the address's history
    if (direction === 'before' && page.reachedEnd && !complete(h))
      throw new AddressIndexIncompleteError(what, since);
    if (direction === 'after' && !complete(h) && (since === undefined || since > blockNum + 1))
      throw new AddressIndexIncompleteError(what, since);
    // the head may be ahead of the watermark: what is above it is not served yet
    const txs = page.txs.filter((t) => t.height <= latest);
    const reachedEnd = page.reachedEnd || (direction === 'after' && txs.length < page.txs.length);
    // answers are newest first both ways (Otterscan's order)
    if (direction === 'after') txs.reverse();
    const minedTxs = txs.map((t) => ({ tx: mined(t), ctx: ctxOf(t.height) }));
    return {
      txs: minedTxs.map(({ tx, ctx }) => formatMinedTx(tx, ctx)),
      receipts: minedTxs.map(({ tx, ctx }) => timedReceipt(tx, ctx)),
      // the newest page is the first one, the oldest the last
      firstPage: direction === 'before' ? blockNum === 0 || blockNum > latest : reachedEnd,
      lastPage: direction === 'before' ? reachedEnd : blockNum === 0,
    };
  };

  const table: MethodTable = {
    ots_getApiLevel: method([], () => OTS_API_LEVEL),
    ots_hasCode: method([p.address, blockRef], async (address, ref) => {
      const code = await chain.stateAt(resolve.state(ref)).code(address);
      return code.length > 0;
    }),
    ots_getTransactionError: method([p.hash], (hash) => {
      const loc = located(hash);
      if (!loc) return null;
      const r = chain.receipt(loc.height, loc.evmIndex);
      if (!r) return null;
      return data(r.status === 0 && r.revertData ? r.revertData : new Uint8Array(0));
    }),
    ots_getBlockDetails: method([blockNumber], (ref) => blockDetails(resolve.lookup(ref))),
    ots_getBlockDetailsByHash: method([p.hash], (hash) =>
      blockDetails(resolve.lookup({ kind: 'hash', hash, requireCanonical: false })),
    ),
    ots_getBlockTransactions: method([blockNumber, count, count], async (ref, page, pageSize) => {
      if (pageSize < 1 || pageSize > MAX_OTS_PAGE_SIZE)
        throw new ChainError(
          'RPC_INVALID_PARAMS',
          `pageSize ${pageSize} must be between 1 and ${MAX_OTS_PAGE_SIZE}`,
        );
      const height = resolve.lookup(ref);
      const b = height === undefined ? undefined : await chain.block(height);
      if (!b) return null;
      const txs = b.txs.slice(page * pageSize, (page + 1) * pageSize);
      const full = formatBlock({ ...b, txs }, true);
      // the block's own fields stay those of the whole block
      const whole = formatBlock(b, false);
      return {
        fullblock: {
          ...whole,
          transactions: (full.transactions as Record<string, unknown>[]).map(slimTx),
          transactionCount: b.txs.length,
        },
        receipts: txs.map((t) => slimReceipt(t, b)),
      };
    }),
    ots_searchTransactionsBefore: method([p.address, count, count], (address, blockNum, pageSize) =>
      search(address, 'before', blockNum, pageSize),
    ),
    ots_searchTransactionsAfter: method([p.address, count, count], (address, blockNum, pageSize) =>
      search(address, 'after', blockNum, pageSize),
    ),
    ots_getTransactionBySenderAndNonce: method([p.address, nonceParam], async (sender, nonce) => {
      const at = await txBySenderAndNonce(backend, sender, nonce);
      return at ? hash32(mined(at).receipt.txHash) : null;
    }),
    erigon_getHeaderByNumber: method([blockNumber], async (ref) => {
      const height = resolve.lookup(ref);
      const b = height === undefined ? undefined : await chain.block(height);
      return b ? formatHeader(b) : null;
    }),
  };
  if (!tracing) return table;
  return {
    ...table,
    ots_traceTransaction: method([p.hash], async (hash) => {
      const tree = await callTree(hash);
      if (!tree) return null;
      return [...walk(tree)].map(({ frame: f, depth }) => ({
        type: f.type,
        depth,
        from: f.from,
        to: f.to ?? null,
        value: VALUELESS.has(f.type) ? null : (f.value ?? '0x0'),
        input: f.type === 'SELFDESTRUCT' ? null : f.input,
        output: f.type === 'SELFDESTRUCT' ? null : (f.output ?? '0x'),
      }));
    }),
    ots_getInternalOperations: method([p.hash], async (hash) => {
      const tree = await callTree(hash);
      if (!tree) return null;
      const ops: { type: number; from: string; to: string; value: string }[] = [];
      for (const { frame: f, depth } of walk(tree)) {
        if (depth === 0) continue; // the tx itself is not an internal operation
        const value = f.value ?? '0x0';
        const to = f.to ?? '0x0000000000000000000000000000000000000000';
        if (f.type === 'CALL' && value !== '0x0')
          ops.push({ type: INTERNAL_OP.transfer, from: f.from, to, value });
        else if (f.type === 'CREATE') ops.push({ type: INTERNAL_OP.create, from: f.from, to, value });
        else if (f.type === 'CREATE2') ops.push({ type: INTERNAL_OP.create2, from: f.from, to, value });
        else if (f.type === 'SELFDESTRUCT')
          ops.push({ type: INTERNAL_OP.selfDestruct, from: f.from, to, value });
      }
      return ops;
    }),
    ots_getContractCreator: method([p.address], async (address) => {
      const h = searchable('ots_getContractCreator', history);
      const target = data(address);
      // a creation that failed (its constructor reverted) is indexed too: the first that succeeded
      // is the answer
      for (const at of h.creations(address, MAX_CREATION_ATTEMPTS)) {
        if (at.height > chain.latestHeight()) break;
        const txHash = mined(at).receipt.txHash;
        const tree = (await tracing.traceTransaction(txHash, { tracer: 'callTracer' })) as Frame;
        for (const { frame } of walk(tree)) {
          const created = (frame.type === 'CREATE' || frame.type === 'CREATE2') && !frame.error;
          if (created && frame.to === target) return { hash: hash32(txHash), creator: frame.from };
        }
      }
      if (complete(h)) return null;
      // created before the index began, or never: only state can tell which, and it can tell only
      // that code exists, not who put it there
      const code = await chain.stateAt(chain.latestHeight()).code(address);
      if (code.length === 0) return null;
      throw new AddressIndexIncompleteError('ots_getContractCreator', h.indexedSince());
    }),
  };
}
