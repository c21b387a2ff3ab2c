import { yieldToBlocks } from './block-first.ts';

/**
 * Long synchronous work (a wide log query, a large answer) broken into slices: `tick()` costs a
 * counter increment, and every `every` ticks looks at the clock and, when a slice of `sliceMs` has
 * passed since the last yield, waits a macrotask turn so timers, I/O and other requests run (and,
 * while the node is in the middle of a block, until the block is committed: util/block-first.ts).
 */
export class Pacer {
  private readonly sliceMs: number;
  private readonly every: number;
  private count = 0;
  private last = performance.now();

  constructor(sliceMs = 4, every = 64) {
    this.sliceMs = sliceMs;
    this.every = every;
  }

  /** Resolves at once, or after a turn of the event loop when the slice is used up. */
  tick(): Promise<void> | undefined {
    if (++this.count % this.every !== 0) return undefined;
    return this.yieldIfDue();
  }

  yieldIfDue(): Promise<void> | undefined {
    if (performance.now() - this.last < this.sliceMs) return undefined;
    return yieldToBlocks().then(() => {
      this.last = performance.now();
    });
  }
}
