/**
 * The time the embedded producer gives each block: the wall clock, strictly after the previous
 * block (clocks can step back; CometBFT block times must not), moved by what a developer asks of a
 * dev chain (evm_increaseTime, evm_setNextBlockTimestamp, anvil_setBlockTimestampInterval,
 * hardhat_mine's interval). Time is an offset added to the wall clock, never a rewrite of a stored
 * block, so a restart replays every block with the time it carries.
 *
 * The EVM's TIMESTAMP is the block time's whole seconds. After a block fixed ahead of the clock, the
 * offset follows it, so the next block does not fall back to the wall clock (Hardhat's and anvil's
 * rule).
 */
import { type Timestamp, timestampFromDate } from '../codec/cometbft.ts';

/** What a dev chain's evm_snapshot keeps of the clock, and evm_revert puts back. */
export interface BlockClockState {
  offsetMs: number;
  nextMs: number | undefined;
  intervalS: number | undefined;
}

export class BlockClock {
  private readonly now: () => number;
  private offsetMs = 0;
  /** The next block's time (ms), set by evm_setNextBlockTimestamp or evm_mine(timestamp). */
  private nextMs: number | undefined;
  /** Seconds between blocks' times instead of the clock (anvil_setBlockTimestampInterval). */
  private intervalS: number | undefined;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** Moves the clock by `seconds` (evm_increaseTime); returns the whole offset in seconds. */
  increase(seconds: number): number {
    this.offsetMs += seconds * 1000;
    return Math.trunc(this.offsetMs / 1000);
  }

  /** The whole offset in seconds. */
  get offsetSeconds(): number {
    return Math.trunc(this.offsetMs / 1000);
  }

  /** The next block's time is `seconds` (validated against the latest block by the caller). */
  setNext(seconds: number): void {
    this.nextMs = seconds * 1000;
  }

  /** The time fixed for the next block, if any (seconds). */
  get next(): number | undefined {
    return this.nextMs === undefined ? undefined : this.nextMs / 1000;
  }

  /** Seconds between blocks' times, when set. */
  get interval(): number | undefined {
    return this.intervalS;
  }

  /** Blocks `seconds` apart from now on (undefined: back to the clock). */
  setInterval(seconds: number | undefined): void {
    this.intervalS = seconds;
  }

  /** The offset, the fixed next time and the interval, as they are now. */
  state(): BlockClockState {
    return { offsetMs: this.offsetMs, nextMs: this.nextMs, intervalS: this.intervalS };
  }

  /**
   * Puts back a `state()`. The offset comes back as it was, so the next block's time is the wall
   * clock's now plus that offset (Hardhat's and anvil's revert): later than at the snapshot by the
   * time that passed since, and never before the block the chain went back to.
   */
  restore(s: BlockClockState): void {
    this.offsetMs = s.offsetMs;
    this.nextMs = s.nextMs;
    this.intervalS = s.intervalS;
  }

  /** What the clock reads now, offset included (ms): the pending block's time. */
  nowMs(): number {
    return this.now() + this.offsetMs;
  }

  /**
   * The least time after `prev` (1 ms later; now without a parent), leaving the clock as it is: for a
   * block that must not move time (a dev chain's state edit).
   */
  justAfter(prev: Timestamp | undefined): Timestamp {
    if (!prev) return timestampFromDate(new Date(this.nowMs()));
    return timestampFromDate(new Date(prev.seconds * 1000 + Math.floor(prev.nanos / 1e6) + 1));
  }

  /** The time of the block after `prev`, taking a fixed next time; `intervalS` overrides the interval once. */
  take(prev: Timestamp | undefined, intervalS?: number): Timestamp {
    const prevMs = prev ? prev.seconds * 1000 + Math.floor(prev.nanos / 1e6) : undefined;
    const interval = intervalS ?? this.intervalS;
    let ms: number;
    if (this.nextMs !== undefined) {
      ms = this.nextMs;
      this.nextMs = undefined;
    } else if (interval !== undefined && prev) ms = (prev.seconds + interval) * 1000;
    else ms = this.nowMs();
    if (prevMs !== undefined && ms <= prevMs) ms = prevMs + 1;
    // a block ahead of the clock moves the clock with it
    if (ms > this.nowMs()) this.offsetMs = ms - this.now();
    return timestampFromDate(new Date(ms));
  }
}
