/**
 * The embedded producer's health: its stall rule over the engine-neutral `SyncStatus`
 * (chain/sync-status.ts).
 */
import type { EngineHealth, SyncStatus } from '../chain/sync-status.ts';

/**
 * The stall bound of a producer committing every `timeoutCommitMs`: five block intervals, and never
 * under a second, so one slow or failed block is not a halt but a producer that keeps failing is
 * declared halted within seconds.
 */
export function stallBoundMs(timeoutCommitMs: number): number {
  return Math.max(1000, 5 * timeoutCommitMs);
}

/**
 * How long one attempt may run before it counts as stuck: an attempt still running is working, not
 * failing, and a large block (an on-demand block takes every waiting tx) on a loaded machine can take
 * longer than the stall bound of failures; a block that takes this long is a real stall.
 */
export const ATTEMPT_BOUND_MS = 10_000;

/**
 * The block producer's health. The producer reports each attempt, each commit and each failure; a
 * stall is declared when no block has been committed for `stallAfterMs` because the producer has been
 * failing all that time: every attempt since the first failed one failed, or one attempt has been
 * running for ATTEMPT_BOUND_MS (at least the bound). A producer that idles because it has nothing to do (no empty blocks, no
 * txs) or has been stopped is not failing, however long since its last block.
 */
export class ProducerHealth implements EngineHealth {
  readonly stallAfterMs: number;
  private readonly latestHeight: () => number;
  private readonly now: () => number;
  private lastCommitAt: number;
  /** The attempt in progress: the height it builds and since when. */
  private attempt: { height: number; since: number } | undefined;
  /** The failures since the last commit: since when (the first failed attempt's start), how many, the last one's height and error. */
  private failing: { since: number; count: number; height: number; error: string } | undefined;

  constructor(o: { stallAfterMs: number; latestHeight: () => number; now?: () => number }) {
    this.stallAfterMs = o.stallAfterMs;
    this.latestHeight = o.latestHeight;
    this.now = o.now ?? Date.now;
    this.lastCommitAt = this.now();
  }

  /** The producer (re)starts: the time it was stopped does not count towards a stall. */
  started(): void {
    this.lastCommitAt = this.now();
    this.attempt = undefined;
    this.failing = undefined;
  }

  attempting(height: number): void {
    this.attempt = { height, since: this.now() };
  }

  committed(): void {
    this.lastCommitAt = this.now();
    this.attempt = undefined;
    this.failing = undefined;
  }

  failed(height: number, error: string): void {
    const f = (this.failing ??= { since: this.attempt?.since ?? this.now(), count: 0, height, error });
    this.attempt = undefined;
    f.count++;
    f.height = height;
    f.error = error;
  }

  syncStatus(): SyncStatus {
    const latestHeight = this.latestHeight();
    const reason = this.stallReason();
    return {
      catchingUp: false,
      halted: reason !== undefined,
      reason,
      latestHeight,
      // one validator: nobody knows a higher block than the one it committed
      bestKnownHeight: latestHeight,
    };
  }

  private stallReason(): string | undefined {
    const now = this.now();
    const since = new Date(this.lastCommitAt).toISOString();
    const f = this.failing;
    if (f && now - f.since >= this.stallAfterMs)
      return `no block committed since ${since}: producing block ${f.height} failed ${f.count} time${f.count === 1 ? '' : 's'}, last: ${f.error}`;
    const a = this.attempt;
    if (a && now - a.since >= Math.max(this.stallAfterMs, ATTEMPT_BOUND_MS))
      return `no block committed since ${since}: producing block ${a.height} has not finished after ${Math.round((now - a.since) / 1000)} s`;
    return undefined;
  }
}
