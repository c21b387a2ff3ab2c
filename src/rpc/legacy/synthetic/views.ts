/**
 * The synthetic block views. A view is the list of a block's entries in the order the block stores
 * its txs (the block's TxRaw order, which is also the order of execution):
 *
 *   eth_                      EVM txs only (rpc/evm serves it)
 *   chain_                    EVM txs and one synthetic entry per Cosmos-originated tx
 *   chain2_                   as chain_, each synthetic entry followed by one entry per bank MsgSend
 *                             of uchain in it (message order)
 *   chain_ ExcludeTraceFail   EVM txs that executed: no synthetic entries, no tx that was included but
 *                             failed before execution
 *   chain2_ ExcludeTraceFail  as chain_ ExcludeTraceFail plus the bank entries of Cosmos txs that
 *                             executed (result code 0)
 *
 * Every view numbers its own list: `transactionIndex` is the position in the list shown, logs are
 * numbered over the list in order, and `cumulativeGasUsed` sums the `gasUsed` of the entries shown, so
 * each view is consistent on its own (a client can rebuild indices from the list alone). The block's
 * `gasUsed` is the last entry's cumulative gas and `logsBloom` the OR of the entries' blooms; the other
 * header fields, `transactionsRoot` and `receiptsRoot` included, are the eth_ block's (they commit to
 * Ethereum encodings, which synthetic entries do not have).
 *
 * A synthetic entry shows a Cosmos tx in EVM shape (docs/legacy-synthetic-views.md): hash `0x` + SHA-256 of the TxRaw,
 * `from` the first signer's EVM address, `to` the first message's recipient, value 0, input `0x`,
 * `gas` the tx's gas limit, `gasPrice` the fee per gas in wei, `nonce` the signer's sequence, and a
 * shell receipt with `status` 1 exactly when the Cosmos result code is 0.
 *
 * A bank entry shows one MsgSend as a value transfer: `from`/`to` the EVM addresses of both ends,
 * `value` = amount × 10^12 wei, gas 0 (the tx's gas is on its synthetic entry), the tx's status.
 * Its hash is SHA-256(Cosmos tx hash ‖ message index as 4 bytes big-endian): a tx with two sends
 * needs two distinct hashes, and neither may equal the synthetic entry's.
 *
 * Both kinds have `type` 0xffffffff (SYNTHETIC_TX_TYPE): EIP-2718 reserves types ≥ 0x80 from ever
 * naming a typed Ethereum tx, so no real type can collide with it, and it is the value the reference
 * implementation of this legacy API uses for its shell receipts, which existing indexers recognise.
 */
import { createHash } from 'node:crypto';
import { formatBlock, formatMinedTx, formatReceipt } from '../../codecs/format.ts';
import { address, data, hash32, quantity } from '../../codecs/hex.ts';
import type { LogFilter } from '../../codecs/filter.ts';
import type { BlockContext, BlockView, LogView, MinedTx } from '../../codecs/views.ts';
import { WEI_PER_UCHAIN } from '../../../primitives/identity.ts';
import type { BankTransfer, CosmosTxView, SyntheticBackend } from './backend.ts';

/** The `type` of synthetic and bank entries (see the module comment). */
export const SYNTHETIC_TX_TYPE = 0xffffffff;

export interface ViewKind {
  /** One entry per Cosmos-originated tx. */
  synthetic: boolean;
  /** One entry per bank MsgSend of uchain. */
  bank: boolean;
  /** Leave out txs that were included but failed before execution. */
  excludeFailed: boolean;
}

export const VIEWS = {
  chain: { synthetic: true, bank: false, excludeFailed: false },
  chain2: { synthetic: true, bank: true, excludeFailed: false },
  chainExcludeTraceFail: { synthetic: false, bank: false, excludeFailed: true },
  chain2ExcludeTraceFail: { synthetic: false, bank: true, excludeFailed: true },
} as const satisfies Record<string, ViewKind>;

export type Entry =
  | { kind: 'evm'; tx: MinedTx }
  | { kind: 'cosmos'; tx: CosmosTxView }
  | { kind: 'bank'; tx: CosmosTxView; transfer: BankTransfer; hash: Uint8Array };

export interface Placed {
  entry: Entry;
  /** Position in the view's list. */
  index: number;
  cumulativeGasUsed: bigint;
  /** The view's logs of this entry, numbered over the list. */
  logs: LogView[];
}

export interface SyntheticBlock {
  view: BlockView;
  entries: Placed[];
  /** Hashes (hex) of txs left out because they failed before execution. */
  failed: Set<string>;
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

export function bankEntryHash(cosmosTxHash: Uint8Array, msgIndex: number): Uint8Array {
  const index = Buffer.alloc(4);
  index.writeUInt32BE(msgIndex);
  return new Uint8Array(createHash('sha256').update(cosmosTxHash).update(index).digest());
}

export function entryHash(e: Entry): Uint8Array {
  if (e.kind === 'evm') return e.tx.receipt.txHash;
  return e.kind === 'cosmos' ? e.tx.hash : e.hash;
}

function entryGas(e: Entry): bigint {
  if (e.kind === 'evm') return e.tx.receipt.gasUsed;
  return e.kind === 'cosmos' ? e.tx.gasUsed : 0n;
}

function entryLogs(e: Entry): { address: Uint8Array; topics: Uint8Array[]; data: Uint8Array }[] {
  if (e.kind === 'evm') return e.tx.receipt.logs;
  return e.kind === 'cosmos' ? e.tx.logs : [];
}

/** A block's entries in `kind`'s view; undefined when the block is not stored. */
export async function assemble(
  backend: SyntheticBackend,
  height: number,
  kind: ViewKind,
): Promise<SyntheticBlock | undefined> {
  const [view, refs] = await Promise.all([backend.chain.block(height), backend.blockTxs(height)]);
  if (!view || !refs) return undefined;
  const chosen: Entry[] = [];
  const failed = new Set<string>();
  for (const ref of refs) {
    if (ref.kind === 'evm') {
      const tx = view.txs[ref.evmIndex];
      if (kind.excludeFailed && ref.failedBeforeExecution) failed.add(hex(tx.receipt.txHash));
      else chosen.push({ kind: 'evm', tx });
      continue;
    }
    const tx = ref.tx;
    // A Cosmos tx whose messages failed kept only its fee and sequence: nonce consumed, nothing executed.
    if (kind.excludeFailed && tx.code !== 0) failed.add(hex(tx.hash));
    if (kind.synthetic) chosen.push({ kind: 'cosmos', tx });
    if (kind.bank && !(kind.excludeFailed && tx.code !== 0)) {
      tx.transfers.forEach((transfer, i) =>
        chosen.push({ kind: 'bank', tx, transfer, hash: bankEntryHash(tx.hash, i) }),
      );
    }
  }
  let gas = 0n;
  let logIndex = 0;
  const entries = chosen.map((entry, index): Placed => {
    gas += entryGas(entry);
    const txHash = entryHash(entry);
    const logs = entryLogs(entry).map((l) => ({
      address: l.address,
      topics: l.topics,
      data: l.data,
      logIndex: logIndex++,
      txIndex: index,
      txHash,
    }));
    return { entry, index, cumulativeGasUsed: gas, logs };
  });
  return { view, entries, failed };
}

export function isFailed(b: SyntheticBlock, hash: Uint8Array): boolean {
  return b.failed.has(hex(hash));
}

export function findByHash(b: SyntheticBlock, hash: Uint8Array): Placed | undefined {
  return b.entries.find((p) => Buffer.compare(entryHash(p.entry), hash) === 0);
}

function gasPriceOf(tx: CosmosTxView): bigint {
  return tx.gasLimit > 0n ? tx.fee / tx.gasLimit : 0n;
}

export function formatEntryTx(p: Placed, ctx: BlockContext, chainId: bigint): Record<string, unknown> {
  const e = p.entry;
  if (e.kind === 'evm') return { ...formatMinedTx(e.tx, ctx), transactionIndex: quantity(p.index) };
  const bank = e.kind === 'bank';
  return {
    blockHash: hash32(ctx.hash),
    blockNumber: quantity(ctx.height),
    blockTimestamp: quantity(ctx.timestamp),
    from: address(bank ? e.transfer.from : e.tx.from),
    gas: quantity(bank ? 0n : e.tx.gasLimit),
    gasPrice: quantity(bank ? 0n : gasPriceOf(e.tx)),
    hash: hash32(entryHash(e)),
    input: '0x',
    nonce: quantity(e.tx.nonce),
    to: bank ? address(e.transfer.to) : e.tx.to ? address(e.tx.to) : null,
    transactionIndex: quantity(p.index),
    value: quantity(bank ? e.transfer.amount * WEI_PER_UCHAIN : 0n),
    type: quantity(SYNTHETIC_TX_TYPE),
    chainId: quantity(chainId),
    // No Ethereum signature exists: the Cosmos signature covers different bytes.
    v: '0x0',
    r: '0x0',
    s: '0x0',
  };
}

export function formatEntryReceipt(p: Placed, ctx: BlockContext): Record<string, unknown> {
  const e = p.entry;
  const logs = p.logs.map((l) => formatLogAt(l, ctx));
  if (e.kind === 'evm') {
    return {
      ...formatReceipt(e.tx.receipt, ctx),
      cumulativeGasUsed: quantity(p.cumulativeGasUsed),
      logs,
      transactionIndex: quantity(p.index),
    };
  }
  const bank = e.kind === 'bank';
  return {
    blockHash: hash32(ctx.hash),
    blockNumber: quantity(ctx.height),
    contractAddress: null,
    cumulativeGasUsed: quantity(p.cumulativeGasUsed),
    effectiveGasPrice: quantity(bank ? 0n : gasPriceOf(e.tx)),
    from: address(bank ? e.transfer.from : e.tx.from),
    gasUsed: quantity(entryGas(e)),
    logs,
    logsBloom: data(entryBloom(p)),
    status: quantity(e.tx.code === 0 ? 1 : 0),
    to: bank ? address(e.transfer.to) : e.tx.to ? address(e.tx.to) : null,
    transactionHash: hash32(entryHash(e)),
    transactionIndex: quantity(p.index),
    type: quantity(SYNTHETIC_TX_TYPE),
  };
}

const EMPTY_BLOOM = new Uint8Array(256);

export function entryBloom(p: Placed): Uint8Array {
  const e = p.entry;
  if (e.kind === 'evm') return e.tx.receipt.logsBloom;
  return e.kind === 'cosmos' ? e.tx.logsBloom : EMPTY_BLOOM;
}

export function formatLogAt(l: LogView, ctx: BlockContext): Record<string, unknown> {
  return {
    address: address(l.address),
    topics: l.topics.map(hash32),
    data: data(l.data),
    blockNumber: quantity(ctx.height),
    transactionHash: hash32(l.txHash),
    transactionIndex: quantity(l.txIndex),
    blockHash: hash32(ctx.hash),
    blockTimestamp: quantity(ctx.timestamp),
    logIndex: quantity(l.logIndex),
    removed: false,
  };
}

export function formatSyntheticBlock(
  b: SyntheticBlock,
  full: boolean,
  chainId: bigint,
): Record<string, unknown> {
  const bloom = new Uint8Array(256);
  for (const p of b.entries) {
    const eb = entryBloom(p);
    for (let i = 0; i < 256; i++) bloom[i] |= eb[i];
  }
  const last = b.entries[b.entries.length - 1];
  return {
    // The eth_ block's fields (its roots commit to the EVM txs' Ethereum encodings only).
    ...formatBlock(b.view, false),
    gasUsed: quantity(last ? last.cumulativeGasUsed : 0n),
    logsBloom: data(bloom),
    transactions: full
      ? b.entries.map((p) => formatEntryTx(p, b.view, chainId))
      : b.entries.map((p) => hash32(entryHash(p.entry))),
  };
}

/** geth's log filter semantics: any of the addresses; per position, any of the topics (null: any). */
export function logMatches(l: LogView, f: Pick<LogFilter, 'addresses' | 'topics'>): boolean {
  if (f.addresses.length > 0 && !f.addresses.some((a) => Buffer.compare(a, l.address) === 0)) return false;
  if (f.topics.length > l.topics.length) return false;
  return f.topics.every((alts, i) => alts === null || alts.some((t) => Buffer.compare(t, l.topics[i]) === 0));
}
