/**
 * The mempool's synchronous data structure: transactions by hash, per sender by nonce, split into
 * *pending* (the contiguous nonce run starting at the sender's committed nonce: executable now) and
 * *queued* (behind a nonce gap). Every operation is O(log n) in the pool size or O(txs of one sender);
 * nothing scans the whole pool on insertion.
 *
 * Invariants per sender: `stateNonce <= pendingEnd`; nonces in [stateNonce, pendingEnd) are all present
 * and pending; every other tx of the sender is queued and sits in the `futures` eviction heap.
 * `byHash` iterates oldest first (a replacement is a new entry), which is what TTL expiry walks.
 */
import type { DecodedEthTx } from '../execution/transactions.ts';
import { Heap, IndexedHeap, type HeapSlot } from './heap.ts';

export interface PoolTx extends HeapSlot {
  readonly tx: DecodedEthTx;
  /** Hex of the tx hash. */
  readonly key: string;
  /** Hex of the sender address. */
  readonly senderKey: string;
  /** Arrival order: the tie-breaker wherever priorities are equal (first come, first served). */
  readonly seq: number;
  readonly addedAt: number;
  /** Last committed height when the tx was admitted (CometBFT's `memTx.height`). */
  readonly addedHeight: number;
  /** gasLimit × maxFeePerGas + value: the most the tx can take from the sender. */
  readonly cost: bigint;
  pending: boolean;
}

export interface SenderQueue {
  readonly key: string;
  readonly address: Uint8Array;
  /** Committed nonce as of the last block. */
  stateNonce: bigint;
  /** Committed balance as of the last block. */
  balance: bigint;
  readonly txs: Map<bigint, PoolTx>;
  /** First nonce after the pending run: the sender's next nonce counting pending txs. */
  pendingEnd: bigint;
}

/**
 * Eviction order of queued txs, lowest priority first: by fee cap, then tip, then newest first.
 * Static keys (not the effective tip, which moves with the base fee) keep the heap valid between blocks.
 */
export function lowerPriority(a: PoolTx, b: PoolTx): boolean {
  if (a.tx.maxFeePerGas !== b.tx.maxFeePerGas) return a.tx.maxFeePerGas < b.tx.maxFeePerGas;
  if (a.tx.maxPriorityFeePerGas !== b.tx.maxPriorityFeePerGas) {
    return a.tx.maxPriorityFeePerGas < b.tx.maxPriorityFeePerGas;
  }
  return a.seq > b.seq;
}

/** What the block producer earns per gas from `tx` at `baseFee` (EIP-1559 effective tip). */
export function effectiveTip(tx: DecodedEthTx, baseFee: bigint): bigint {
  const headroom = tx.maxFeePerGas - baseFee;
  return headroom < tx.maxPriorityFeePerGas ? headroom : tx.maxPriorityFeePerGas;
}

export type DropReason = 'stale' | 'unpayable';

export class TxSet {
  private readonly byHash = new Map<string, PoolTx>();
  private readonly bySender = new Map<string, SenderQueue>();
  private readonly futures = new IndexedHeap<PoolTx>(lowerPriority);
  private pendingCount = 0;
  private readonly onPending: (ptx: PoolTx) => void;

  constructor(onPending: (ptx: PoolTx) => void) {
    this.onPending = onPending;
  }

  get size(): number {
    return this.byHash.size;
  }

  get pending(): number {
    return this.pendingCount;
  }

  get queued(): number {
    return this.byHash.size - this.pendingCount;
  }

  get(key: string): PoolTx | undefined {
    return this.byHash.get(key);
  }

  sender(key: string): SenderQueue | undefined {
    return this.bySender.get(key);
  }

  senders(): IterableIterator<SenderQueue> {
    return this.bySender.values();
  }

  /** Oldest admission first. */
  oldestFirst(): IterableIterator<PoolTx> {
    return this.byHash.values();
  }

  /** The queued tx that a full pool gives up first. */
  lowestFuture(): PoolTx | undefined {
    return this.futures.peek();
  }

  addSender(key: string, address: Uint8Array, stateNonce: bigint, balance: bigint): SenderQueue {
    const s: SenderQueue = { key, address, stateNonce, balance, txs: new Map(), pendingEnd: stateNonce };
    this.bySender.set(key, s);
    return s;
  }

  /** Adds a tx at a free nonce ≥ the sender's state nonce; promotes the queued txs it connects. */
  insert(ptx: PoolTx, s: SenderQueue): void {
    const nonce = ptx.tx.nonce;
    s.txs.set(nonce, ptx);
    this.byHash.set(ptx.key, ptx);
    if (nonce !== s.pendingEnd) {
      ptx.pending = false;
      this.futures.push(ptx);
      return;
    }
    this.markPending(ptx);
    s.pendingEnd++;
    for (let next = s.txs.get(s.pendingEnd); next; next = s.txs.get(s.pendingEnd)) {
      this.futures.delete(next);
      this.markPending(next);
      s.pendingEnd++;
    }
  }

  /** Puts `ptx` in the place of `old` (same sender and nonce), keeping its pending/queued status. */
  replace(old: PoolTx, ptx: PoolTx): void {
    const s = this.bySender.get(old.senderKey)!;
    this.byHash.delete(old.key);
    this.byHash.set(ptx.key, ptx);
    s.txs.set(ptx.tx.nonce, ptx);
    if (old.pending) {
      old.pending = false;
      ptx.pending = true;
      this.onPending(ptx);
    } else {
      this.futures.delete(old);
      ptx.pending = false;
      this.futures.push(ptx);
    }
  }

  /** Removes a tx; the sender's pending txs after it lose their contiguity and become queued. */
  remove(ptx: PoolTx): void {
    const s = this.bySender.get(ptx.senderKey)!;
    const nonce = ptx.tx.nonce;
    if (ptx.pending) {
      for (let m = nonce + 1n; m < s.pendingEnd; m++) {
        const later = s.txs.get(m)!;
        later.pending = false;
        this.pendingCount--;
        this.futures.push(later);
      }
      s.pendingEnd = nonce;
    }
    this.detach(ptx, s);
  }

  /**
   * Re-bases a sender on new committed state: drops txs whose nonce is used (`stale`) or that the
   * balance can no longer pay (`unpayable`), then recomputes which txs are pending.
   */
  resettle(
    s: SenderQueue,
    stateNonce: bigint,
    balance: bigint,
    dropped: (p: PoolTx, why: DropReason) => void,
  ): void {
    s.stateNonce = stateNonce;
    s.balance = balance;
    for (const [nonce, p] of s.txs) {
      const why: DropReason | undefined =
        nonce < stateNonce ? 'stale' : p.cost > balance ? 'unpayable' : undefined;
      if (why) {
        this.detach(p, s);
        dropped(p, why);
      }
    }
    let end = stateNonce;
    while (s.txs.has(end)) end++;
    for (const [nonce, p] of s.txs) {
      if (nonce >= end && p.pending) {
        p.pending = false;
        this.pendingCount--;
        this.futures.push(p);
      }
    }
    s.pendingEnd = end;
    for (let n = stateNonce; n < end; n++) {
      const p = s.txs.get(n)!;
      if (!p.pending) {
        this.futures.delete(p);
        this.markPending(p);
      }
    }
  }

  /**
   * Executable txs for a block: best effective tip first across senders, nonce order within a sender,
   * total gas limit ≤ maxGas. A sender whose next tx does not fit (or cannot pay `baseFee`) is skipped
   * entirely, since its later nonces cannot run without it. O(k log S) for k txs from S senders.
   */
  reap(maxGas: bigint, maxTxs: number, baseFee: bigint): DecodedEthTx[] {
    interface Cursor {
      s: SenderQueue;
      p: PoolTx;
      tip: bigint;
    }
    const cursor = (s: SenderQueue, p: PoolTx | undefined): Cursor | undefined =>
      p && p.pending && p.tx.maxFeePerGas >= baseFee ? { s, p, tip: effectiveTip(p.tx, baseFee) } : undefined;
    const heads: Cursor[] = [];
    for (const s of this.bySender.values()) {
      const c = cursor(s, s.txs.get(s.stateNonce));
      if (c) heads.push(c);
    }
    const heap = new Heap<Cursor>((a, b) => (a.tip !== b.tip ? a.tip > b.tip : a.p.seq < b.p.seq), heads);
    const out: DecodedEthTx[] = [];
    let gas = 0n;
    while (out.length < maxTxs) {
      const c = heap.pop();
      if (!c) break;
      if (gas + c.p.tx.gasLimit > maxGas) continue;
      out.push(c.p.tx);
      gas += c.p.tx.gasLimit;
      const next = cursor(c.s, c.s.txs.get(c.p.tx.nonce + 1n));
      if (next) heap.push(next);
    }
    return out;
  }

  private markPending(p: PoolTx): void {
    p.pending = true;
    this.pendingCount++;
    this.onPending(p);
  }

  private detach(p: PoolTx, s: SenderQueue): void {
    this.byHash.delete(p.key);
    s.txs.delete(p.tx.nonce);
    if (p.pending) {
      p.pending = false;
      this.pendingCount--;
    } else this.futures.delete(p);
    if (s.txs.size === 0) this.bySender.delete(s.key);
  }
}
