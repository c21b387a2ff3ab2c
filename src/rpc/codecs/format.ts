/**
 * Result objects with geth's field sets for a post-London chain (and its field order, so answers
 * diff cleanly against geth's): blocks, transactions, receipts, logs. Block-level fields are mapped
 * as docs/adr/0012-every-tx-is-a-cosmos-txraw.md says; proof-of-work fields are zero and uncles empty.
 */
import { concatBytes } from '../../primitives/bytes.ts';
import { EMPTY_TRIE_ROOT, orderedTrieRoot, rlpEncode } from './trie.ts';
import { address, data, hash32, quantity } from './hex.ts';
import { parseEthTx, type EthTxFields } from './eth-tx.ts';
import type { BlockContext, BlockView, LogView, MinedTx, PendingTx, ReceiptView } from './views.ts';

/** keccak-256 of RLP([]): the ommers hash of a block without uncles. */
export const EMPTY_UNCLES_HASH = '0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347';
const ZERO_HASH = hash32(new Uint8Array(32));

export function formatLog(log: LogView, block: BlockContext): Record<string, unknown> {
  return {
    address: address(log.address),
    topics: log.topics.map(hash32),
    data: data(log.data),
    blockNumber: quantity(block.height),
    transactionHash: hash32(log.txHash),
    transactionIndex: quantity(log.txIndex),
    blockHash: hash32(block.hash),
    blockTimestamp: quantity(block.timestamp),
    logIndex: quantity(log.logIndex),
    removed: false,
  };
}

export function formatReceipt(r: ReceiptView, block: BlockContext): Record<string, unknown> {
  return {
    blockHash: hash32(block.hash),
    blockNumber: quantity(block.height),
    contractAddress: r.contractAddress ? address(r.contractAddress) : null,
    cumulativeGasUsed: quantity(r.cumulativeGasUsed),
    effectiveGasPrice: quantity(r.effectiveGasPrice),
    from: address(r.from),
    gasUsed: quantity(r.gasUsed),
    logs: r.logs.map((l) => formatLog(l, block)),
    logsBloom: data(r.logsBloom),
    status: quantity(r.status),
    to: r.to ? address(r.to) : null,
    transactionHash: hash32(r.txHash),
    transactionIndex: quantity(r.txIndex),
    type: quantity(r.type),
  };
}

/** A mined transaction: block fields set, `gasPrice` the effective price paid. */
export function formatMinedTx(tx: MinedTx, block: BlockContext): Record<string, unknown> {
  const r = tx.receipt;
  return formatTx(parseEthTx(tx.raw), r.txHash, r.from, {
    blockHash: hash32(block.hash),
    blockNumber: quantity(block.height),
    blockTimestamp: quantity(block.timestamp),
    transactionIndex: quantity(r.txIndex),
    effectiveGasPrice: r.effectiveGasPrice,
  });
}

/** A mempool transaction: block fields null, `gasPrice` the fee cap (geth's choice). */
export function formatPendingTx(tx: PendingTx): Record<string, unknown> {
  return formatTx(parseEthTx(tx.raw), tx.hash, tx.sender, {
    blockHash: null,
    blockNumber: null,
    blockTimestamp: null,
    transactionIndex: null,
    effectiveGasPrice: undefined,
  });
}

interface TxContext {
  blockHash: string | null;
  blockNumber: string | null;
  blockTimestamp: string | null;
  transactionIndex: string | null;
  effectiveGasPrice: bigint | undefined;
}

function formatTx(f: EthTxFields, hash: Uint8Array, from: Uint8Array, c: TxContext): Record<string, unknown> {
  const dynamic = f.type === 2 || f.type === 4;
  const out: Record<string, unknown> = {
    blockHash: c.blockHash,
    blockNumber: c.blockNumber,
    blockTimestamp: c.blockTimestamp,
    from: address(from),
    gas: quantity(f.gas),
    gasPrice: quantity(dynamic ? (c.effectiveGasPrice ?? f.maxFeePerGas!) : f.gasPrice!),
  };
  if (dynamic) {
    out.maxFeePerGas = quantity(f.maxFeePerGas!);
    out.maxPriorityFeePerGas = quantity(f.maxPriorityFeePerGas!);
  }
  Object.assign(out, {
    hash: hash32(hash),
    input: data(f.input),
    nonce: quantity(f.nonce),
    to: f.to ? address(f.to) : null,
    transactionIndex: c.transactionIndex,
    value: quantity(f.value),
    type: quantity(f.type),
  });
  if (f.accessList) {
    out.accessList = f.accessList.map((e) => ({
      address: address(e.address),
      storageKeys: e.storageKeys.map(hash32),
    }));
  }
  if (f.chainId !== undefined) out.chainId = quantity(f.chainId);
  if (f.authorizationList) {
    out.authorizationList = f.authorizationList.map((a) => ({
      chainId: quantity(a.chainId),
      address: address(a.address),
      nonce: quantity(a.nonce),
      yParity: quantity(a.yParity),
      r: quantity(a.r),
      s: quantity(a.s),
    }));
  }
  out.v = quantity(f.v);
  out.r = quantity(f.r);
  out.s = quantity(f.s);
  if (f.type !== 0) out.yParity = quantity(f.v);
  return out;
}

/** The consensus encoding of a receipt (EIP-2718 typed, or legacy RLP), for the receipts root. */
export function encodeReceipt(r: ReceiptView): Uint8Array {
  const body = rlpEncode([
    r.status === 1 ? Uint8Array.of(1) : new Uint8Array(0),
    r.cumulativeGasUsed,
    r.logsBloom,
    r.logs.map((l) => [l.address, l.topics, l.data]),
  ]);
  return r.type === 0 ? body : concatBytes(Uint8Array.of(r.type), body);
}

/**
 * geth's header object (RPCMarshalHeader): the block object without its transactions, uncles and
 * size, keys in the order geth writes them (its maps are sorted when encoded).
 */
export function formatHeader(b: BlockView): Record<string, unknown> {
  const gasUsed = b.txs.length > 0 ? b.txs[b.txs.length - 1].receipt.cumulativeGasUsed : 0n;
  const empty = b.txs.length === 0;
  return {
    baseFeePerGas: quantity(b.baseFeePerGas),
    difficulty: '0x0',
    extraData: '0x',
    gasLimit: quantity(b.gasLimit),
    gasUsed: quantity(gasUsed),
    hash: hash32(b.hash),
    logsBloom: data(b.logsBloom),
    miner: address(b.miner),
    mixHash: ZERO_HASH,
    nonce: '0x0000000000000000',
    number: quantity(b.height),
    parentHash: hash32(b.parentHash),
    receiptsRoot: hash32(
      empty ? EMPTY_TRIE_ROOT : orderedTrieRoot(b.txs.map((t) => encodeReceipt(t.receipt))),
    ),
    sha3Uncles: EMPTY_UNCLES_HASH,
    stateRoot: hash32(b.stateRoot),
    timestamp: quantity(b.timestamp),
    transactionsRoot: hash32(empty ? EMPTY_TRIE_ROOT : orderedTrieRoot(b.txs.map((t) => t.raw))),
  };
}

export function formatBlock(b: BlockView, fullTxs: boolean): Record<string, unknown> {
  const block: Record<string, unknown> = {
    ...formatHeader(b),
    size: quantity(b.size),
    transactions: fullTxs
      ? b.txs.map((t) => formatMinedTx(t, b))
      : b.txs.map((t) => hash32(t.receipt.txHash)),
    uncles: [],
  };
  return Object.fromEntries(
    Object.keys(block)
      .sort()
      .map((k) => [k, block[k]]),
  );
}
