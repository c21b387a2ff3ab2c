/**
 * The EVM mempool: admission (CheckTx) of raw Ethereum transactions, per-sender nonce queues, the
 * seen-hash cache, replacement, capacity, TTL, and reaping for block production.
 *
 * Admission order puts the cheap refusals first: duplicate/cache lookups by hash, then size, before
 * the decoder recovers the sender (the one expensive step, done once; the decoded tx is what the block
 * producer later executes). State checks use the committed nonce and balance: from the pool's own
 * sender record when the sender already has txs here (no I/O), otherwise from the account reader.
 *
 * Concurrency: admission awaits the account reader, so a block can be committed meanwhile. Each
 * `update` bumps an epoch; an admission whose read straddled one re-reads, and everything after the
 * read runs synchronously, so pool invariants never see a half-applied admission.
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import { EthTxError, type DecodedEthTx, type EthTxDecoder } from '../execution/transactions.ts';
import { MempoolError, rejectMessages as msg } from './errors.ts';
import { SeenCache } from './seen-cache.ts';
import { TxSet, lowerPriority, type PoolTx, type SenderQueue } from './tx-set.ts';
import {
  DEFAULT_MEMPOOL_OPTIONS,
  type AccountReader,
  type MempoolDeps,
  type MempoolOptions,
  type MempoolParams,
  type PendingListener,
} from './types.ts';

/** A replacement must raise both fee cap and tip by at least this percentage (geth's price bump). */
export const REPLACEMENT_BUMP_PERCENT = 10n;

export function hexKey(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** geth's rule: new fee cap and tip each ≥ old × (100 + bump) / 100, and strictly above the old. */
export function isReplacementPriced(old: DecodedEthTx, tx: DecodedEthTx): boolean {
  const bumped = (v: bigint) => (v * (100n + REPLACEMENT_BUMP_PERCENT)) / 100n;
  return (
    tx.maxFeePerGas > old.maxFeePerGas &&
    tx.maxPriorityFeePerGas > old.maxPriorityFeePerGas &&
    tx.maxFeePerGas >= bumped(old.maxFeePerGas) &&
    tx.maxPriorityFeePerGas >= bumped(old.maxPriorityFeePerGas)
  );
}

export class Mempool {
  readonly options: Readonly<MempoolOptions>;
  private readonly params: MempoolParams;
  private readonly decode: EthTxDecoder;
  private readonly now: () => number;
  private accounts: AccountReader;
  private readonly set: TxSet;
  private readonly cache: SeenCache;
  private readonly listeners = new Set<PendingListener>();
  private height: number;
  private epoch = 0;
  private seq = 0;
  private updating: Promise<void> = Promise.resolve();

  constructor(deps: MempoolDeps) {
    const options = { ...DEFAULT_MEMPOOL_OPTIONS, ...deps.options };
    for (const k of ['size', 'cacheSize', 'ttlDurationMs', 'ttlNumBlocks'] as const) {
      if (!Number.isFinite(options[k]) || options[k] < 0) throw new RangeError(`mempool ${k} must be ≥ 0`);
    }
    this.options = Object.freeze(options);
    this.params = deps.params;
    this.decode = deps.decode;
    this.accounts = deps.accounts;
    this.now = deps.now ?? Date.now;
    this.height = deps.height ?? 0;
    this.cache = new SeenCache(options.cacheSize);
    this.set = new TxSet((ptx) => this.emitPending(ptx.tx));
  }

  /** Txs executable now (contiguous nonces from each sender's committed nonce). */
  pending(): number {
    return this.set.pending;
  }

  /** Txs waiting behind a nonce gap. */
  queued(): number {
    return this.set.queued;
  }

  get size(): number {
    return this.set.size;
  }

  get(hash: Uint8Array): DecodedEthTx | undefined {
    return this.set.get(hexKey(hash))?.tx;
  }

  /** The tx is here and executable now (not waiting behind a nonce gap). */
  isPending(hash: Uint8Array): boolean {
    return this.set.get(hexKey(hash))?.pending === true;
  }

  has(hash: Uint8Array): boolean {
    return this.set.get(hexKey(hash)) !== undefined;
  }

  /** Calls `listener` whenever a tx becomes pending (admitted executable, or promoted). */
  onPending(listener: PendingListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Every sender's txs, pending (executable in nonce order) and queued (waiting behind a nonce gap),
   * each list by nonce: what geth's txpool_content shows.
   */
  contents(): { address: Uint8Array; pending: DecodedEthTx[]; queued: DecodedEthTx[] }[] {
    const out = [];
    for (const s of this.set.senders()) {
      const txs = [...s.txs.values()].sort((a, b) => (a.tx.nonce < b.tx.nonce ? -1 : 1));
      out.push({
        address: s.address,
        pending: txs.filter((p) => p.pending).map((p) => p.tx),
        queued: txs.filter((p) => !p.pending).map((p) => p.tx),
      });
    }
    return out;
  }

  /** The next nonce of `address` counting its pending txs (`eth_getTransactionCount(…, "pending")`). */
  async pendingNonce(address: Uint8Array): Promise<bigint> {
    const s = this.set.sender(hexKey(address));
    return s ? s.pendingEnd : this.accounts.nonce(address);
  }

  /**
   * Why a tx whose hash this node has seen before, and that is not in the pool now, is refused. A
   * mined tx sent again gets geth's `nonce too low` (which ethers and viem classify as a used nonce,
   * where the cache's own words read as an unknown error); any other (refused earlier and cached
   * with keep-invalid-txs-in-cache, evicted, replaced) keeps the cache's answer. It costs a decode,
   * paid only by a repeated submission.
   */
  async seenRefusal(raw: Uint8Array, hash: Uint8Array = keccak_256(raw)): Promise<MempoolError> {
    const cached = new MempoolError('already_in_cache', msg.alreadyInCache());
    let tx: DecodedEthTx;
    try {
      tx = this.decode(raw, hash);
    } catch {
      return cached;
    }
    const s = this.set.sender(hexKey(tx.sender));
    const next = s ? s.stateNonce : await this.accounts.nonce(tx.sender);
    return tx.nonce < next ? new MempoolError('nonce_too_low', msg.nonceTooLow(next, tx.nonce)) : cached;
  }

  /** Admits a raw Ethereum transaction or throws MempoolError. Returns the decoded tx. */
  async checkTx(raw: Uint8Array): Promise<DecodedEthTx> {
    const hash = keccak_256(raw);
    const key = hexKey(hash);
    if (this.set.get(key)) throw new MempoolError('already_known', msg.alreadyKnown());
    if (this.cache.has(key)) throw await this.seenRefusal(raw, hash);
    if (raw.length > this.params.maxTxBytes) {
      this.refuse(key, 'oversized', msg.oversized(raw.length, this.params.maxTxBytes));
    }
    let tx: DecodedEthTx;
    try {
      tx = this.decode(raw, hash);
    } catch (err) {
      if (!(err instanceof EthTxError)) throw err;
      this.remember(key);
      throw MempoolError.fromEthTxError(err);
    }
    return this.admit(tx, key);
  }

  /**
   * Admits a tx decoded by its sender's node rather than from bytes a client sent: a dev chain's
   * impersonated tx, whose sender is not in its signature. The same rules as checkTx apply.
   */
  async checkDecoded(tx: DecodedEthTx): Promise<DecodedEthTx> {
    const key = hexKey(tx.hash);
    if (this.set.get(key)) throw new MempoolError('already_known', msg.alreadyKnown());
    if (this.cache.has(key)) throw new MempoolError('already_in_cache', msg.alreadyInCache());
    if (tx.size > this.params.maxTxBytes) {
      this.refuse(key, 'oversized', msg.oversized(tx.size, this.params.maxTxBytes));
    }
    return this.admit(tx, key);
  }

  private async admit(tx: DecodedEthTx, key: string): Promise<DecodedEthTx> {
    if (tx.chainId === undefined) this.refuse(key, 'not_replay_protected', msg.notReplayProtected());
    // The decoder already enforces its Common's chain id; this guards against a miswired decoder.
    if (tx.chainId !== this.params.chainId) {
      this.refuse(
        key,
        'invalid_chain_id',
        `invalid chain id: have ${tx.chainId} want ${this.params.chainId}`,
      );
    }
    if (tx.gasLimit > this.params.blockGasLimit)
      this.refuse(key, 'gas_limit_exceeded', msg.gasLimitExceeded());
    if (tx.gasLimit < tx.intrinsicGas) this.refuse(key, 'intrinsic_gas_too_low', msg.intrinsicGasTooLow());
    if (tx.maxFeePerGas < this.params.baseFee()) {
      this.refuse(key, 'fee_cap_below_base_fee', msg.feeCapBelowBaseFee());
    }

    const senderKey = hexKey(tx.sender);
    let state: { nonce: bigint; balance: bigint } | undefined;
    if (!this.set.sender(senderKey)) {
      for (;;) {
        const epoch = this.epoch;
        const reader = this.accounts;
        const [nonce, balance] = await Promise.all([reader.nonce(tx.sender), reader.balance(tx.sender)]);
        state = { nonce, balance };
        if (epoch === this.epoch) break;
      }
    }
    // From here on everything is synchronous: no other admission or update can interleave.
    if (this.set.get(key)) throw new MempoolError('already_known', msg.alreadyKnown());
    let s = this.set.sender(senderKey);
    const stateNonce = s ? s.stateNonce : state!.nonce;
    const balance = s ? s.balance : state!.balance;
    if (tx.nonce < stateNonce) this.refuse(key, 'nonce_too_low', msg.nonceTooLow(stateNonce, tx.nonce));
    const cost = tx.gasLimit * tx.maxFeePerGas + tx.value;
    if (cost > balance) this.refuse(key, 'insufficient_funds', msg.insufficientFunds(balance, cost));

    const ptx: PoolTx = {
      tx,
      key,
      senderKey,
      seq: this.seq++,
      addedAt: this.now(),
      addedHeight: this.height,
      cost,
      pending: false,
      heapIndex: -1,
    };
    const existing = s?.txs.get(tx.nonce);
    if (existing) {
      if (!isReplacementPriced(existing.tx, tx)) {
        this.refuse(key, 'replacement_underpriced', msg.replacementUnderpriced());
      }
      this.set.replace(existing, ptx);
    } else {
      if (this.set.size >= this.options.size) {
        this.makeRoom(ptx, tx.nonce === (s ? s.pendingEnd : stateNonce));
        s = this.set.sender(senderKey); // the evicted tx may have been the sender's only one
      }
      this.set.insert(ptx, s ?? this.set.addSender(senderKey, tx.sender, stateNonce, balance));
    }
    this.cache.add(key);
    return tx;
  }

  /**
   * Takes a tx out of the pool (e.g. one the block producer found unexecutable); the sender's later
   * pending txs become queued. With `invalid` and keep-invalid-txs-in-cache the hash stays cached;
   * otherwise it is forgotten so the tx can be submitted again. Returns false if it was not here.
   */
  remove(hash: Uint8Array, invalid = false): boolean {
    const p = this.set.get(hexKey(hash));
    if (!p) return false;
    this.set.remove(p);
    if (!(invalid && this.options.keepInvalidTxsInCache)) this.cache.delete(p.key);
    return true;
  }

  /** Every tx here, oldest admission first: what `restore` takes back (a dev chain's evm_snapshot). */
  txs(): DecodedEthTx[] {
    return [...this.set.oldestFirst()].map((p) => p.tx);
  }

  /**
   * Makes `txs` (from `txs()`) the pool's whole content on the chain's state `accounts` at `height`
   * (a dev chain's evm_revert, after the chain went back): each sender re-based on its nonce and
   * balance there, txs in their old admission order, the ones whose nonce is used dropped. Every
   * seen hash is forgotten: a tx mined in a block the revert removed may be sent again (one refused
   * again is refused by its checks, with the same words).
   */
  async restore(txs: readonly DecodedEthTx[], accounts: AccountReader, height: number): Promise<void> {
    this.epoch++;
    this.accounts = accounts;
    this.height = height;
    const senders = new Map<string, Uint8Array>();
    for (const tx of txs) senders.set(hexKey(tx.sender), tx.sender);
    const states = new Map<string, [bigint, bigint]>();
    await Promise.all(
      [...senders].map(async ([key, address]) => {
        states.set(key, await Promise.all([accounts.nonce(address), accounts.balance(address)]));
      }),
    );
    // from here on synchronous: no admission interleaves with the rebuild
    for (const p of [...this.set.oldestFirst()]) this.set.remove(p);
    this.cache.clear();
    for (const tx of txs) {
      const senderKey = hexKey(tx.sender);
      const [stateNonce, balance] = states.get(senderKey)!;
      if (tx.nonce < stateNonce) continue;
      const s = this.set.sender(senderKey) ?? this.set.addSender(senderKey, tx.sender, stateNonce, balance);
      if (s.txs.has(tx.nonce)) continue;
      const key = hexKey(tx.hash);
      this.set.insert(
        {
          tx,
          key,
          senderKey,
          seq: this.seq++,
          addedAt: this.now(),
          addedHeight: height,
          cost: tx.gasLimit * tx.maxFeePerGas + tx.value,
          pending: false,
          heapIndex: -1,
        },
        s,
      );
      this.cache.add(key);
    }
  }

  /**
   * Executable txs for the next block, best effective tip at `baseFee` first, nonce order per sender,
   * total gas limit ≤ `maxGas`, at most `maxTxs`. The txs stay in the pool until `update` sees them
   * committed.
   */
  reap(
    maxGas: bigint,
    maxTxs = Number.POSITIVE_INFINITY,
    baseFee: bigint = this.params.baseFee(),
  ): DecodedEthTx[] {
    return this.set.reap(maxGas, maxTxs, baseFee);
  }

  /**
   * After each committed block: forget committed txs (their hashes stay cached), re-base every sender
   * on the new nonce and balance (dropping used nonces and txs the balance no longer covers, promoting
   * what became executable), then expire by TTL. Calls are serialised.
   */
  update(height: number, committedTxHashes: Iterable<Uint8Array>, accounts: AccountReader): Promise<void> {
    const run = this.updating.then(() => this.applyBlock(height, committedTxHashes, accounts));
    this.updating = run.catch(() => undefined);
    return run;
  }

  private async applyBlock(
    height: number,
    committed: Iterable<Uint8Array>,
    accounts: AccountReader,
  ): Promise<void> {
    this.epoch++;
    this.accounts = accounts;
    this.height = height;
    const committedKeys = new Set<string>();
    for (const h of committed) {
      const key = hexKey(h);
      committedKeys.add(key);
      this.cache.add(key);
    }
    const senders: SenderQueue[] = [...this.set.senders()];
    const states = await Promise.all(
      senders.map((s) => Promise.all([accounts.nonce(s.address), accounts.balance(s.address)])),
    );
    // A tx that lost its nonce to another tx, or that the sender can no longer pay, is now invalid.
    const dropped = (p: PoolTx) => {
      if (!committedKeys.has(p.key) && !this.options.keepInvalidTxsInCache) this.cache.delete(p.key);
    };
    for (let i = 0; i < senders.length; i++) {
      const s = senders[i];
      if (this.set.sender(s.key) !== s) continue; // emptied while we were reading
      this.set.resettle(s, states[i][0], states[i][1], dropped);
    }
    // Only reachable if the reader lags the block: a committed tx must not be proposed twice.
    for (const key of committedKeys) {
      const p = this.set.get(key);
      if (p) this.set.remove(p);
    }
    this.expire(height);
  }

  /** CometBFT's TTL rule: expire when either limit is exceeded; 0 disables a limit. */
  private expire(height: number): void {
    const { ttlNumBlocks, ttlDurationMs } = this.options;
    if (ttlNumBlocks === 0 && ttlDurationMs === 0) return;
    const now = this.now();
    const expired: PoolTx[] = [];
    // Admission time and height only grow along byHash's order, so the walk stops at the first live tx.
    for (const p of this.set.oldestFirst()) {
      const tooManyBlocks = ttlNumBlocks > 0 && height - p.addedHeight > ttlNumBlocks;
      const tooOld = ttlDurationMs > 0 && now - p.addedAt > ttlDurationMs;
      if (!tooManyBlocks && !tooOld) break;
      expired.push(p);
    }
    for (const p of expired) {
      this.set.remove(p);
      // Expiry is not invalidity: let the tx be submitted again.
      this.cache.delete(p.key);
    }
  }

  /** Frees one slot for `ptx` by evicting the lowest-priority queued tx, or refuses. */
  private makeRoom(ptx: PoolTx, willBePending: boolean): void {
    const victim = this.set.lowestFuture();
    if (victim && (willBePending || lowerPriority(victim, ptx))) {
      this.set.remove(victim);
      this.cache.delete(victim.key);
      return;
    }
    // Not cached: the tx is fine, the pool is busy; it may be resubmitted later.
    throw new MempoolError('txpool_full', msg.txpoolFull());
  }

  private remember(key: string): void {
    if (this.options.keepInvalidTxsInCache) this.cache.add(key);
  }

  private refuse(key: string, reason: MempoolError['reason'], message: string): never {
    this.remember(key);
    throw new MempoolError(reason, message);
  }

  private emitPending(tx: DecodedEthTx): void {
    for (const listener of this.listeners) {
      try {
        listener(tx);
      } catch {
        // A subscriber's failure must not undo or block admission.
      }
    }
  }
}
