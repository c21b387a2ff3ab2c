/**
 * Pending Cosmos transactions. Admission decodes the TxRaw, verifies the signature against the
 * account number and the sequence the sender will be at once its earlier pending txs execute (as
 * the SDK's CheckTx state does), and checks the fee against `minimum-gas-prices`. Reaping is in
 * arrival order, each sender's txs in sequence order. The pool shares the `[mempool]` limits.
 */
import { AuthReader } from '../app/auth.ts';
import { type CosmosTxContext, checkCosmosTx, type MinGasPrice } from '../app/cosmos-deliver.ts';
import { CosmosTxError, SdkCode } from '../app/cosmos-errors.ts';
import { cosmosTxHash, type DecodedCosmosTx, decodeCosmosTx } from '../app/cosmos-tx.ts';
import { toHex } from '../primitives/bytes.ts';
import type { StateReader } from '../state/overlay.ts';
import type { MempoolOptions } from './types.ts';
import { SeenCache } from './seen-cache.ts';

interface Entry {
  tx: DecodedCosmosTx;
  seq: number;
  admittedAt: number;
  admittedHeight: number;
}

export interface CosmosPoolDeps {
  options: MempoolOptions;
  ctx: CosmosTxContext;
  minGasPrice: MinGasPrice;
  /** Latest committed state. */
  state: () => StateReader;
  maxTxBytes: number;
  height?: number;
  now?: () => number;
}

export class CosmosPool {
  private readonly d: CosmosPoolDeps;
  private readonly byHash = new Map<string, Entry>();
  /** per signer (hex), its pending txs in sequence order */
  private readonly bySigner = new Map<string, Entry[]>();
  /**
   * Pending association txs (chain_associate) by signer: they have no sequence, so they stay out of
   * the sequence queues; one per key, since a second could only fail once the first executes.
   */
  private readonly associations = new Map<string, Entry>();
  private readonly seen: SeenCache;
  private readonly listeners = new Set<(tx: DecodedCosmosTx) => void>();
  private readonly now: () => number;
  private height: number;
  private seq = 0;

  constructor(d: CosmosPoolDeps) {
    this.d = d;
    this.seen = new SeenCache(d.options.cacheSize);
    this.now = d.now ?? Date.now;
    this.height = d.height ?? 0;
  }

  /** Calls `listener` for every admitted tx; returns the unsubscribe function. */
  onAdmitted(listener: (tx: DecodedCosmosTx) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get size(): number {
    return this.byHash.size;
  }

  get(hash: Uint8Array): DecodedCosmosTx | undefined {
    return this.byHash.get(toHex(hash))?.tx;
  }

  /** CheckTx: admits the tx or throws CosmosTxError with the SDK code and message. */
  checkTx(raw: Uint8Array): DecodedCosmosTx {
    const hashHex = toHex(cosmosTxHash(raw));
    if (this.byHash.has(hashHex) || this.seen.has(hashHex)) {
      this.explainRepeatedAssociation(raw);
      throw new CosmosTxError(SdkCode.TxInMempoolCache, 'tx already exists in cache');
    }
    if (raw.length > this.d.maxTxBytes)
      throw new CosmosTxError(
        SdkCode.TxTooLarge,
        `tx size ${raw.length} exceeds the limit of ${this.d.maxTxBytes} bytes: tx too large`,
      );
    if (this.byHash.size >= this.d.options.size)
      throw new CosmosTxError(SdkCode.MempoolIsFull, `mempool is full: ${this.byHash.size} txs`);
    try {
      const tx = decodeCosmosTx(raw);
      const signer = toHex(tx.signer);
      if (tx.association) return this.admitAssociation(tx, signer, hashHex);
      const committed = new AuthReader(this.d.state()).account(tx.signer)?.sequence ?? 0n;
      // Entries below the committed sequence were executed by a block whose update() has not run yet.
      const queue: Entry[] = [];
      for (const e of this.bySigner.get(signer) ?? []) {
        if (e.tx.sequence >= committed) queue.push(e);
        else this.byHash.delete(toHex(e.tx.hash));
      }
      checkCosmosTx(tx, this.d.state(), this.d.ctx, this.d.minGasPrice, committed + BigInt(queue.length));
      const entry = { tx, seq: this.seq++, admittedAt: this.now(), admittedHeight: this.height };
      queue.push(entry);
      this.bySigner.set(signer, queue);
      this.byHash.set(hashHex, entry);
      this.seen.add(hashHex);
      for (const l of this.listeners) l(tx);
      return tx;
    } catch (err) {
      if (this.d.options.keepInvalidTxsInCache) this.seen.add(hashHex);
      throw err;
    }
  }

  /**
   * An association tx has no nonce, so the same signed request always makes the same tx: sent again
   * after its block, it is one the cache has seen. The state's answer (the key is already
   * associated) is the one that tells the client what happened; throws it when it applies.
   */
  private explainRepeatedAssociation(raw: Uint8Array): void {
    let tx: DecodedCosmosTx;
    try {
      tx = decodeCosmosTx(raw);
    } catch {
      return;
    }
    if (tx.association) checkCosmosTx(tx, this.d.state(), this.d.ctx, this.d.minGasPrice);
  }

  private admitAssociation(tx: DecodedCosmosTx, signer: string, hashHex: string): DecodedCosmosTx {
    // State first: once the key is associated that is the answer, even while the block that did it
    // has not yet removed its tx from this pool.
    checkCosmosTx(tx, this.d.state(), this.d.ctx, this.d.minGasPrice);
    if (this.associations.has(signer))
      throw new CosmosTxError(
        SdkCode.TxInMempoolCache,
        'an association of this key is already pending: tx already exists in cache',
      );
    const entry = { tx, seq: this.seq++, admittedAt: this.now(), admittedHeight: this.height };
    this.associations.set(signer, entry);
    this.byHash.set(hashHex, entry);
    this.seen.add(hashHex);
    for (const l of this.listeners) l(tx);
    return tx;
  }

  /**
   * Executable txs within the gas budget: association txs first (they unlock their key's balance for
   * what follows), then the rest in arrival order, each sender's in sequence order.
   */
  reap(maxGas: bigint): DecodedCosmosTx[] {
    const heads = [...this.bySigner.values()].map((q) => ({ q, i: 0 }));
    const out: DecodedCosmosTx[] = [];
    let gas = 0n;
    for (const e of this.associations.values()) {
      if (gas + e.tx.gasLimit > maxGas) return out;
      gas += e.tx.gasLimit;
      out.push(e.tx);
    }
    for (;;) {
      let best: { q: Entry[]; i: number } | undefined;
      for (const h of heads) if (h.i < h.q.length && (!best || h.q[h.i].seq < best.q[best.i].seq)) best = h;
      if (!best) return out;
      const tx = best.q[best.i].tx;
      if (gas + tx.gasLimit > maxGas) return out;
      gas += tx.gasLimit;
      out.push(tx);
      best.i++;
    }
  }

  /** After a block: drop committed txs and those whose sequence is now used, then apply the TTLs. */
  update(height: number, committed: Iterable<Uint8Array>): void {
    this.height = height;
    for (const h of committed) this.removeHex(toHex(h));
    const auth = new AuthReader(this.d.state());
    const { ttlDurationMs, ttlNumBlocks } = this.d.options;
    const now = this.now();
    for (const e of [...this.associations.values()]) {
      const expired =
        (ttlDurationMs > 0 && now - e.admittedAt > ttlDurationMs) ||
        (ttlNumBlocks > 0 && height - e.admittedHeight > ttlNumBlocks);
      let executable = !expired;
      try {
        if (executable) checkCosmosTx(e.tx, this.d.state(), this.d.ctx, this.d.minGasPrice);
      } catch {
        executable = false; // associated meanwhile (by another tx of the key), or its balance left
      }
      if (!executable) this.removeHex(toHex(e.tx.hash));
    }
    for (const [signer, queue] of this.bySigner) {
      const next = auth.account(queue[0].tx.signer)?.sequence ?? 0n;
      const keep: Entry[] = [];
      for (const e of queue) {
        const expired =
          (ttlDurationMs > 0 && now - e.admittedAt > ttlDurationMs) ||
          (ttlNumBlocks > 0 && height - e.admittedHeight > ttlNumBlocks);
        // A stale sequence can never execute; an expired tx breaks the sequence chain after it.
        if (
          e.tx.sequence < next ||
          expired ||
          (keep.length === 0 && e.tx.sequence !== next) ||
          (keep.length > 0 && e.tx.sequence !== keep[keep.length - 1].tx.sequence + 1n)
        ) {
          this.byHash.delete(toHex(e.tx.hash));
          continue;
        }
        keep.push(e);
      }
      if (keep.length > 0) this.bySigner.set(signer, keep);
      else this.bySigner.delete(signer);
    }
  }

  /**
   * Drops every tx and forgets every hash seen (a dev chain's evm_revert: the chain went back to
   * before some of them were mined, so each may be sent again).
   */
  clear(): void {
    this.byHash.clear();
    this.bySigner.clear();
    this.associations.clear();
    this.seen.clear();
  }

  /** Drops a tx (a block could not include it); unknown hashes are ignored. */
  remove(hash: Uint8Array): void {
    this.removeHex(toHex(hash));
  }

  private removeHex(hashHex: string): void {
    const e = this.byHash.get(hashHex);
    if (!e) return;
    this.byHash.delete(hashHex);
    const signer = toHex(e.tx.signer);
    if (e.tx.association) {
      this.associations.delete(signer);
      return;
    }
    const queue = (this.bySigner.get(signer) ?? []).filter((x) => x !== e);
    if (queue.length > 0) this.bySigner.set(signer, queue);
    else this.bySigner.delete(signer);
  }
}
