/**
 * eth_sendRawTransactionSync (EIP-7966): submit as eth_sendRawTransaction does, then answer the
 * receipt once the tx is in a committed block. Blocks are final when committed on this chain, so the
 * first committed block holding the tx is the answer (no confirmations to wait for).
 *
 * The wait follows geth 1.16: a default of 20 s, a requested timeout capped at 1 min, and on timeout
 * code 4 "The transaction was added to the transaction pool but wasn't processed in <duration>" with
 * the tx hash as data, so a client can keep polling for the receipt. The block listener is attached
 * before the submission (as geth subscribes first), so a block committed between the submission and
 * the wait is not missed; and a stopping node ends every wait at once rather than holding its
 * connections until their timeouts.
 */
import { hash32, parseSmallQuantity } from '../codecs/hex.ts';
import { CodecError } from '../codecs/errors.ts';
import type { ParamCodec } from '../codecs/params.ts';
import { p } from '../codecs/params.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import { RpcError } from '../server/errors.ts';
import type { TxPool } from './backend.ts';
import type { ChainEvents } from './filters-store.ts';

export const TX_SYNC_DEFAULT_TIMEOUT_MS = 20_000;
export const TX_SYNC_MAX_TIMEOUT_MS = 60_000;

/**
 * The timeout in milliseconds: a JSON number, as EIP-7966 specifies and later geth decodes it, or a
 * hex quantity, as geth 1.16 decoded it (hexutil.Uint64) and clients of that time (ethclient, viem)
 * send it; 0 or absent: the default.
 */
const timeoutMs: ParamCodec<number | undefined> = {
  optional: true,
  parse(v) {
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return parseSmallQuantity(v);
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
      throw new CodecError('timeout must be a non-negative integer number of milliseconds');
    return v;
  },
};

/** What geth's time.Duration prints for a whole number of milliseconds up to a minute. */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = `${(ms % 60_000) / 1000}s`;
  return minutes > 0 ? `${minutes}m${seconds}` : seconds;
}

export class TxSyncTimeoutError extends RpcError {
  constructor(hash: Uint8Array, ms: number) {
    super(
      'RPC_TX_SYNC_TIMEOUT',
      `The transaction was added to the transaction pool but wasn't processed in ${goDuration(ms)}`,
      hash32(hash),
    );
  }
}

/**
 * The waits of eth_sendRawTransactionSync, each ended by a committed block that holds its tx, its
 * timeout, or `close()` (the node stopping).
 */
export class InclusionWaits {
  private readonly events: Pick<ChainEvents, 'onBlock'>;
  private readonly stops = new Set<(err: Error) => void>();
  private closed = false;

  constructor(events: Pick<ChainEvents, 'onBlock'>) {
    this.events = events;
  }

  /**
   * Starts listening for blocks now; `until` then resolves with `find()`'s first defined value (tried
   * at once and after each block), or undefined once `ms` passed without one.
   */
  watch<T>(find: () => T | undefined): {
    until(ms: number): Promise<T | undefined>;
    stop(): void;
  } {
    if (this.closed) throw stopping();
    let wake: (() => void) | undefined;
    let blocksSeen = 0;
    const off = this.events.onBlock(() => {
      blocksSeen++;
      wake?.();
    });
    let fail: ((err: Error) => void) | undefined;
    const stop = (err: Error) => fail?.(err);
    this.stops.add(stop);
    const release = () => {
      off();
      this.stops.delete(stop);
    };
    return {
      stop: release,
      until: (ms) =>
        new Promise<T | undefined>((resolve, reject) => {
          // covers a block committed between the submission and this call
          const found = find();
          if (found !== undefined) return resolve(found);
          if (this.closed) return reject(stopping());
          const timer = setTimeout(() => {
            release();
            resolve(undefined);
          }, ms);
          const settle = (fn: () => void) => {
            clearTimeout(timer);
            release();
            fn();
          };
          fail = (err) => settle(() => reject(err));
          let seen = blocksSeen;
          wake = () => {
            if (blocksSeen === seen) return;
            seen = blocksSeen;
            // this runs inside the block pipeline's listener: a failed lookup answers this call only
            let value: T | undefined;
            try {
              value = find();
            } catch (err) {
              return settle(() => reject(err as Error));
            }
            if (value !== undefined) settle(() => resolve(value));
          };
        }),
    };
  }

  /** Ends every wait with an error saying the node is stopping; later calls are refused the same way. */
  close(): void {
    this.closed = true;
    for (const stop of [...this.stops]) stop(stopping());
    this.stops.clear();
  }
}

const stopping = () =>
  new RpcError(
    'RPC_STOPPING',
    'the node is stopping: the transaction may still be included; poll its receipt',
  );

export function sendSyncMethods(
  pool: TxPool,
  waits: InclusionWaits,
  receipt: (hash: Uint8Array) => unknown,
): MethodTable {
  return {
    eth_sendRawTransactionSync: method([p.data, timeoutMs], async (raw, requested) => {
      const ms =
        requested === undefined || requested === 0
          ? TX_SYNC_DEFAULT_TIMEOUT_MS
          : Math.min(requested, TX_SYNC_MAX_TIMEOUT_MS);
      let hash: Uint8Array | undefined;
      const w = waits.watch(() => (hash ? (receipt(hash) ?? undefined) : undefined));
      try {
        hash = await pool.submit(raw);
        const found = await w.until(ms);
        if (found === undefined) throw new TxSyncTimeoutError(hash, ms);
        return found;
      } finally {
        w.stop();
      }
    }),
  };
}
