/**
 * Installed polling filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter) and
 * their lifecycle: a filter unused for `timeoutMs` expires, at most `maxFilters` exist at once.
 *
 * Block and log filters keep only a cursor (the latest height they have reported, and for a log filter
 * how far into the next block), so a poll answers every block committed since, whatever happened to
 * event delivery. Pending-tx filters need the
 * mempool's admissions, which are not stored anywhere: they buffer hashes as they arrive.
 */
import { randomBytes } from 'node:crypto';
import type { LogFilter } from '../codecs/filter.ts';
import type { PendingTx } from '../codecs/views.ts';
import { ChainError } from '../../util/errors.ts';

/** The node's live events, as rpc/ sees them (node/ adapts Chain.onBlock and Mempool.onPending). */
export interface ChainEvents {
  /** After each committed block, with its height (the pipeline's last step). */
  onBlock(listener: (height: number) => void): () => void;
  /** When a tx becomes pending (executable) in the mempool. */
  onPendingTx(listener: (tx: PendingTx) => void): () => void;
}

export interface FilterOptions {
  /** `[evm] filter_timeout`: a filter not polled for this long is removed. */
  timeoutMs: number;
  /** Most filters installed at once (over all clients). */
  maxFilters: number;
  /** Most hashes a pending-tx filter holds between polls; older ones are dropped first. */
  maxPendingHashes?: number;
}

export const DEFAULT_MAX_FILTERS = 10_000;
const DEFAULT_MAX_PENDING_HASHES = 10_000;

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
  | { kind: 'pending'; lastUsed: number; hashes: Uint8Array[] };

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
      `too many filters: ${max} are installed, the most this node keeps (max filters); uninstall unused filters or let them expire`,
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
  /** The pending-tx filters, which the mempool listener feeds (without walking every filter). */
  private readonly pendingFilters = new Set<Extract<Filter, { kind: 'pending' }>>();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(events: ChainEvents, options: FilterOptions, now: () => number = Date.now) {
    this.events = events;
    this.o = { maxPendingHashes: DEFAULT_MAX_PENDING_HASHES, ...options };
    this.now = now;
    // Expired filters are also dropped when touched; the sweep frees the memory of forgotten ones
    // (a pending-tx filter keeps buffering until removed).
    this.sweeper = setInterval(() => this.sweep(), Math.max(1_000, Math.min(this.o.timeoutMs, 60_000)));
    this.sweeper.unref();
  }

  get size(): number {
    return this.filters.size;
  }

  install(filter: Filter): string {
    // Expired filters do not count against the limit (the periodic sweep may not have run yet).
    if (this.filters.size >= this.o.maxFilters) this.sweep();
    if (this.filters.size >= this.o.maxFilters) throw new TooManyFiltersError(this.o.maxFilters);
    if (filter.kind === 'pending') {
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
    this.filters.clear();
    this.pendingFilters.clear();
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
    if (f?.kind === 'pending' && this.pendingFilters.delete(f) && this.pendingFilters.size === 0) {
      this.unsubscribePending?.();
      this.unsubscribePending = undefined;
    }
  }

  /** Listens to the mempool only while some pending-tx filter exists. */
  private listenPending(): void {
    if (this.unsubscribePending) return;
    this.unsubscribePending = this.events.onPendingTx((tx) => {
      for (const f of this.pendingFilters) {
        f.hashes.push(tx.hash);
        if (f.hashes.length > this.o.maxPendingHashes) f.hashes.shift();
      }
    });
  }
}
