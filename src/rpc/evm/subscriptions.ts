/**
 * eth_subscribe / eth_unsubscribe (WebSocket only), with geth's kinds:
 *   newHeads                 the header of each committed block (geth's header object)
 *   logs [filter]            each matching log of each committed block, in block and log order
 *   newPendingTransactions [full]   the hash (or, with `true`, the object) of each tx that becomes pending
 *
 * One hub serves every connection. It reports heights, not events: on each block event it walks
 * from the last height it reported to the latest, so a burst of commits is reported block by block,
 * in order, and none is skipped. Connections get their notifications through a `notify` callback and
 * answer them in geth's `eth_subscription` envelope (the transport's job).
 *
 * Every subscription costs work at each block (a log query for a `logs` one): a connection may hold
 * at most `maxPerConnection`, the node `maxSubscriptions`, and `logs` criteria together at most
 * `maxCriteria` addresses and topics. Past a limit eth_subscribe answers -32005 naming its key.
 */
import { parseFilter, type LogFilter } from '../codecs/filter.ts';
import { formatBlock, formatPendingTx } from '../codecs/format.ts';
import { hash32 } from '../codecs/hex.ts';
import { CodecError } from '../codecs/errors.ts';
import type { ParamCodec } from '../codecs/params.ts';
import type { PendingTx } from '../codecs/views.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import { InvalidParamsError, LimitExceededError, MethodNotFoundError } from '../server/errors.ts';
import { ChainError } from '../../util/errors.ts';
import type { EvmBackend } from './backend.ts';
import {
  type ChainEvents,
  checkCriteria,
  criteriaSize,
  DEFAULT_MAX_CRITERIA,
  newId,
} from './filters-store.ts';
import { checkRange, formatLogs, type LogCursor, logsAfter } from './filters.ts';

export type Notify = (subscription: string, result: unknown) => void;

type Sub =
  | { kind: 'newHeads'; notify: Notify }
  | { kind: 'logs'; notify: Notify; criteria: LogFilter }
  | { kind: 'newPendingTransactions'; notify: Notify; full: boolean };

export class SubscriptionNotFoundError extends ChainError {
  constructor() {
    super('RPC_SUBSCRIPTION_NOT_FOUND', 'subscription not found');
  }
}

/** geth's header object: the block object without size, transactions and uncles. */
export function formatHeader(block: Parameters<typeof formatBlock>[0]): Record<string, unknown> {
  const { size: _s, transactions: _t, uncles: _u, ...header } = formatBlock(block, false);
  return header;
}

export interface SubscriptionLimits {
  /** `[evm] max_subscriptions`: subscriptions of all connections together. */
  maxSubscriptions?: number;
  /** `[evm] max_subscriptions_per_connection` */
  maxPerConnection?: number;
  /** `[evm] max_log_criteria`: addresses and topics of all `logs` subscriptions together. */
  maxCriteria?: number;
}

export const DEFAULT_MAX_SUBSCRIPTIONS = 10_000;
export const DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION = 100;

export class SubscriptionHub {
  private readonly backend: EvmBackend;
  readonly limits: Required<SubscriptionLimits>;
  /** Criteria units held by the `logs` subscriptions. */
  private criteria = 0;
  private readonly subs = new Map<string, Sub>();
  private readonly offs: (() => void)[] = [];
  private readonly onError: (err: unknown) => void;
  private reported: number;
  private pumping = false;
  private again = false;
  /** Rewinds seen (a dev chain's evm_revert): a report that ran across one does not count. */
  private rewinds = 0;

  constructor(
    backend: EvmBackend,
    events: ChainEvents,
    onError: (err: unknown) => void = () => {},
    limits: SubscriptionLimits = {},
  ) {
    this.backend = backend;
    this.limits = {
      maxSubscriptions: DEFAULT_MAX_SUBSCRIPTIONS,
      maxPerConnection: DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION,
      maxCriteria: DEFAULT_MAX_CRITERIA,
      ...limits,
    };
    this.onError = onError;
    this.reported = backend.chain.latestHeight();
    this.offs.push(events.onBlock(() => void this.pump()));
    this.offs.push(events.onPendingTx((tx) => this.pending(tx)));
    // the heights committed again after a rewind are new blocks: each is reported as it comes
    const off = events.onRewind?.((height) => {
      this.rewinds++;
      if (this.reported > height) this.reported = height;
    });
    if (off) this.offs.push(off);
  }

  get size(): number {
    return this.subs.size;
  }

  subscribe(sub: Sub): string {
    const max = this.limits.maxSubscriptions;
    if (this.subs.size >= max) {
      throw new LimitExceededError(
        `too many subscriptions: the node serves at most ${max} at once ([evm] max_subscriptions)`,
      );
    }
    if (sub.kind === 'logs') {
      const size = criteriaSize(sub.criteria);
      checkCriteria(size, this.criteria, this.limits.maxCriteria, 'subscription');
      this.criteria += size;
    }
    let id = newId();
    while (this.subs.has(id)) id = newId();
    this.subs.set(id, sub);
    return id;
  }

  unsubscribe(id: string): boolean {
    const sub = this.subs.get(id);
    if (sub?.kind === 'logs') this.criteria -= criteriaSize(sub.criteria);
    return this.subs.delete(id);
  }

  close(): void {
    for (const off of this.offs.splice(0)) off();
    this.subs.clear();
    this.criteria = 0;
  }

  private pending(tx: PendingTx): void {
    for (const [id, s] of this.subs) {
      if (s.kind === 'newPendingTransactions') s.notify(id, s.full ? formatPendingTx(tx) : hash32(tx.hash));
    }
  }

  /** Reports every height after the last reported one; one walk at a time, re-run if blocks came meanwhile. */
  private async pump(): Promise<void> {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.again = false;
        // read at each step: a rewind may lower it meanwhile
        while (this.reported < this.backend.chain.latestHeight()) {
          const h = this.reported + 1;
          const rewinds = this.rewinds;
          await this.report(h);
          if (rewinds === this.rewinds) this.reported = h;
        }
      } while (this.again);
    } catch (err) {
      this.onError(err);
    } finally {
      this.pumping = false;
    }
  }

  private async report(height: number): Promise<void> {
    const { chain, options } = this.backend;
    const subs = [...this.subs];
    if (subs.some(([, s]) => s.kind === 'newHeads')) {
      const view = await chain.block(height);
      if (!view) throw new ChainError('STORES_INCONSISTENT', `committed block ${height} is not readable`);
      const header = formatHeader(view);
      for (const [id, s] of subs) if (s.kind === 'newHeads' && this.subs.has(id)) s.notify(id, header);
    }
    for (const [id, s] of subs) {
      if (s.kind !== 'logs') continue;
      // every log of the block, in windows of at most max_log_no_block
      let at: LogCursor = { height: height - 1, logIndex: 0 };
      while (at.height < height && this.subs.has(id)) {
        const window = logsAfter(chain, options, s.criteria, at, height);
        for (const log of formatLogs(chain, window.logs)) if (this.subs.has(id)) s.notify(id, log);
        at = window.next;
      }
    }
  }
}

const anyParam: ParamCodec<unknown> = { optional: true, parse: (v) => v };
const text = (what: string): ParamCodec<string> => ({
  optional: false,
  parse(v) {
    if (typeof v !== 'string') throw new CodecError(`${what} must be a string`);
    return v;
  },
});
const kindParam = text('subscription kind');
const idParam = text('subscription id');

/**
 * eth_subscribe and eth_unsubscribe for one connection: `notify` writes to it. A connection may only
 * cancel its own subscriptions; `close` cancels them all when the connection goes away.
 */
export function subscriptionMethods(
  hub: SubscriptionHub,
  backend: EvmBackend,
  notify: Notify,
): { methods: MethodTable; close(): void } {
  const own = new Set<string>();
  const add = (sub: Sub) => {
    const max = hub.limits.maxPerConnection;
    if (own.size >= max) {
      throw new LimitExceededError(
        `too many subscriptions on this connection: ${own.size}, the most [evm] max_subscriptions_per_connection allows; eth_unsubscribe one first`,
      );
    }
    const id = hub.subscribe(sub);
    own.add(id);
    return id;
  };
  const methods: MethodTable = {
    eth_subscribe: method([kindParam, anyParam], (kind, arg) => {
      switch (kind) {
        case 'newHeads':
          if (arg !== undefined && arg !== null)
            throw new InvalidParamsError('too many arguments, want at most 1');
          return add({ kind, notify });
        case 'logs': {
          let criteria: LogFilter;
          try {
            criteria = parseFilter(arg ?? {});
          } catch (err) {
            if (err instanceof CodecError) throw new InvalidParamsError(`invalid argument 1: ${err.message}`);
            throw err;
          }
          checkRange(criteria, backend.options);
          return add({ kind, notify, criteria });
        }
        case 'newPendingTransactions':
          if (arg !== undefined && arg !== null && typeof arg !== 'boolean')
            throw new InvalidParamsError('invalid argument 1: want a boolean (full transactions)');
          return add({ kind, notify, full: arg === true });
        default:
          throw new MethodNotFoundError(`no ${JSON.stringify(kind)} subscription in eth namespace`);
      }
    }),
    eth_unsubscribe: method([idParam], (id) => {
      if (!own.has(id)) throw new SubscriptionNotFoundError();
      own.delete(id);
      return hub.unsubscribe(id);
    }),
  };
  return {
    methods,
    close() {
      for (const id of own) hub.unsubscribe(id);
      own.clear();
    },
  };
}
