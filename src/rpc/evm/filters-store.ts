/**
 * Installed polling filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter) and
 * their lifecycle: a filter unused for `timeoutMs` expires, at most `maxFilters` exist at once.
 *
 * Block and log filters keep only a cursor (the latest height they have reported, and for a log filter
 * how far into the next block), so a poll answers every block committed since, whatever happened to event delivery. Pending-tx filters need the
 * mempool's admissions, which are not stored anywhere: the store keeps the latest
 * `maxPendingHashes` of them in one ring that every pending-tx filter reads through a cursor, so
 * memory does not grow with the number of filters (10,000 never-polled filters each buffering every
 * hash once took a gigabyte). A filter that falls behind the ring gets an error naming the loss.
 *
 * What filters hold is bounded: at most `maxFilters` at once, and their criteria together at most
 * `maxCriteria` addresses and topics.
 */
import { randomBytes } from 'node:crypto';
import type { LogFilter } from '../codecs/filter.ts';
import type { PendingTx } from '../codecs/views.ts';
import { ChainError } from '../../util/errors.ts';
import { LimitExceededError } from '../server/errors.ts';

/** The node's live events, as rpc/ sees them (node/ adapts Chain.onBlock and Mempool.onPending). */
export interface ChainEvents {
  /** After each committed block, with its height (the pipeline's last step). */
  onBlock(listener: (height: number) => void): () => void;
  /** When a tx becomes pending (executable) in the mempool. */
  onPendingTx(listener: (tx: PendingTx) => void): () => void;
  /** When the chain went back to a height (a dev chain's evm_revert); absent: it never does. */
  onRewind?(listener: (height: number) => void): () => void;
}

export interface FilterOptions {
  /** `[evm] filter_timeout`: a filter not polled for this long is removed. */
  timeoutMs: number;
  /** Most filters installed at once (over all clients; `[evm] max_filters`). */
  maxFilters: number;
  /**
   * Pending-tx hashes kept for the pending-tx filters, all of them together (`[evm]
   * max_pending_filter_hashes`); a filter not polled before more arrive loses the oldest.
   */
  maxPendingHashes?: number;
  /** Addresses and topics the log filters' criteria hold together (`[evm] max_log_criteria`). */
  maxCriteria?: number;
}

export const DEFAULT_MAX_FILTERS = 10_000;
export const DEFAULT_MAX_PENDING_HASHES = 10_000;
export const DEFAULT_MAX_CRITERIA = 100_000;

export type Filter =
  | { kind: 'block'; lastUsed: number; cursor: number }
  | {
      kind: 'logs';
      lastUsed: number;
      cursor: number;
      /** Logs of block cursor + 1 with a lower logIndex were reported already (a poll stopped inside it). */
      cursorLogIndex: number;
      criteria: LogFilter;
    }
  /** `next`: the sequence number of the next pending tx to report (set by `install`). */
  | { kind: 'pending'; lastUsed: number; next: number };

/** What a log filter's criteria hold: one unit per address and per topic alternative. */
export function criteriaSize(criteria: LogFilter): number {
  let n = criteria.addresses.length;
  for (const t of criteria.topics) n += t?.length ?? 0;
  return n;
}

/** Refuses criteria that would take the store's (or a hub's) criteria total past `max`. */
export function checkCriteria(size: number, inUse: number, max: number, what: string): void {
  if (inUse + size > max) {
    throw new LimitExceededError(
      `${what} criteria too large: ${size} addresses and topics, with ${inUse} of the ${max} that [evm] max_log_criteria allows in use`,
    );
  }
}

/** geth's answer for an unknown, expired or uninstalled filter id. */
export class FilterNotFoundError extends ChainError {
  constructor() {
    super('RPC_FILTER_NOT_FOUND', 'filter not found');
  }
}

export class TooManyFiltersError extends ChainError {
  constructor(max: number) {
    super(
      'RPC_TOO_MANY_FILTERS',
      `too many filters: ${max} are installed, the most this node keeps ([evm] max_filters); uninstall unused filters or let them expire`,
    );
  }
}

/** A pending-tx filter polled after more txs arrived than the store keeps. */
export class FilterLaggedError extends ChainError {
  constructor(lost: number, kept: number) {
    super(
      'RPC_FILTER_LAGGED',
      `filter lagged: ${lost} pending transactions arrived since the last poll beyond the ${kept} kept ([evm] max_pending_filter_hashes) and are not reported; the next poll continues from the oldest kept. Poll more often or use eth_subscribe("newPendingTransactions")`,
    );
  }
}

/**
 * A 16-byte random id as a hex quantity without leading zeros, like geth's rpc.NewID (so the
 * execution-apis schema, which types filter ids as `uint`, accepts it).
 */
export function newId(): string {
  const hex = randomBytes(16).toString('hex').replace(/^0+/, '');
  return '0x' + (hex === '' ? '0' : hex);
}

export class FilterStore {
  private readonly filters = new Map<string, Filter>();
  private readonly o: Required<FilterOptions>;
  private readonly events: ChainEvents;
  private readonly now: () => number;
  private unsubscribePending: (() => void) | undefined;
  private readonly unsubscribeRewind: (() => void) | undefined;
  /** The pending-tx filters; while there is one, the mempool's admissions go to the ring. */
  private readonly pendingFilters = new Set<Extract<Filter, { kind: 'pending' }>>();
  /** The latest pending-tx hashes: sequence number s is at ring[s % maxPendingHashes]. */
  private ring: (Uint8Array | undefined)[] = [];
  /** Sequence number of the next pending tx. */
  private head = 0;
  /** Criteria units held by the installed log filters. */
  private criteria = 0;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(events: ChainEvents, options: FilterOptions, now: () => number = Date.now) {
    this.events = events;
    this.o = { maxPendingHashes: DEFAULT_MAX_PENDING_HASHES, maxCriteria: DEFAULT_MAX_CRITERIA, ...options };
    this.now = now;
    // Expired filters are also dropped when touched; the sweep frees the memory of forgotten ones
    // (a pending-tx filter keeps buffering until removed).
    this.sweeper = setInterval(() => this.sweep(), Math.max(1_000, Math.min(this.o.timeoutMs, 60_000)));
    this.sweeper.unref();
    // A cursor above the new head would skip the heights committed again below it: block and log
    // filters report each of them once more, as the new blocks they are.
    this.unsubscribeRewind = events.onRewind?.((height) => {
      for (const f of this.filters.values()) {
        // a log index counts into block cursor + 1, which is above the new head from here on
        if (f.kind === 'pending' || f.cursor < height) continue;
        f.cursor = height;
        if (f.kind === 'logs') f.cursorLogIndex = 0;
      }
    });
  }

  get size(): number {
    return this.filters.size;
  }

  install(filter: Filter): string {
    // Expired filters do not count against the limit (the periodic sweep may not have run yet).
    if (this.filters.size >= this.o.maxFilters) this.sweep();
    if (this.filters.size >= this.o.maxFilters) throw new TooManyFiltersError(this.o.maxFilters);
    if (filter.kind === 'logs') {
      const size = criteriaSize(filter.criteria);
      if (this.criteria + size > this.o.maxCriteria) this.sweep();
      checkCriteria(size, this.criteria, this.o.maxCriteria, 'filter');
      this.criteria += size;
    }
    if (filter.kind === 'pending') {
      filter.next = this.head;
      this.pendingFilters.add(filter);
      this.listenPending();
    }
    filter.lastUsed = this.now();
    let id = newId();
    while (this.filters.has(id)) id = newId();
    this.filters.set(id, filter);
    return id;
  }

  /** The filter, marked used now; throws FilterNotFoundError when absent or expired. */
  use(id: string): Filter {
    const f = this.filters.get(id.toLowerCase());
    if (!f) throw new FilterNotFoundError();
    const now = this.now();
    if (this.expired(f, now)) {
      this.remove(id.toLowerCase());
      throw new FilterNotFoundError();
    }
    f.lastUsed = now;
    return f;
  }

  /**
   * The hashes of the txs that became pending since the filter's last poll, oldest first; the
   * filter's cursor moves past them. Throws FilterLaggedError (moving the cursor to the oldest
   * hash kept) when some were dropped before this poll.
   */
  takePending(f: Extract<Filter, { kind: 'pending' }>): Uint8Array[] {
    const kept = this.o.maxPendingHashes;
    const oldest = Math.max(0, this.head - kept);
    if (f.next < oldest) {
      const lost = oldest - f.next;
      f.next = oldest;
      throw new FilterLaggedError(lost, kept);
    }
    const out: Uint8Array[] = [];
    for (let s = f.next; s < this.head; s++) out.push(this.ring[s % kept]!);
    f.next = this.head;
    return out;
  }

  /** true if the filter existed (and had not expired). */
  uninstall(id: string): boolean {
    const key = id.toLowerCase();
    const f = this.filters.get(key);
    if (!f) return false;
    this.remove(key);
    return !this.expired(f, this.now());
  }

  close(): void {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    this.unsubscribePending?.();
    this.unsubscribePending = undefined;
    this.unsubscribeRewind?.();
    this.filters.clear();
    this.pendingFilters.clear();
    this.ring = [];
    this.criteria = 0;
  }

  private expired(f: Filter, now: number): boolean {
    return now - f.lastUsed > this.o.timeoutMs;
  }

  private sweep(): void {
    const now = this.now();
    for (const [id, f] of this.filters) if (this.expired(f, now)) this.remove(id);
  }

  private remove(id: string): void {
    const f = this.filters.get(id);
    this.filters.delete(id);
    if (f?.kind === 'logs') this.criteria -= criteriaSize(f.criteria);
    if (f?.kind === 'pending' && this.pendingFilters.delete(f) && this.pendingFilters.size === 0) {
      this.unsubscribePending?.();
      this.unsubscribePending = undefined;
      this.ring = [];
    }
  }

  /** Listens to the mempool only while some pending-tx filter exists. */
  private listenPending(): void {
    if (this.unsubscribePending) return;
    this.unsubscribePending = this.events.onPendingTx((tx) => {
      this.ring[this.head % this.o.maxPendingHashes] = tx.hash;
      this.head++;
    });
  }
}
