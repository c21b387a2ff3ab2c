/**
 * Block work first. While a network node executes and commits a block the consensus engine decided
 * (from FinalizeBlock to Commit, and a proposal), RPC work yields to it: a long call that reaches one
 * of its yield points (a log query's page, a trace's or simulation's slice, a large answer's
 * serialisation) waits until the block is committed, and a heavy call (log query, simulation, trace)
 * does not start meanwhile. Cheap reads are not held: they cost less than the bookkeeping would. The
 * embedded producer takes no hold: it sets the chain's pace itself, so it has nobody to fall behind,
 * and holding every call for each of its blocks would only slow its clients.
 *
 * Why here and not only in the OS: the block pipeline and the RPC share the main thread's event loop,
 * so every slice of RPC work that runs between two steps of a block (its store writes are
 * asynchronous) delays the block by that slice; with a dozen heavy calls in flight a block waits for
 * a dozen slices at each step. Holding those slices while a block is in progress gives the block the
 * loop, at the price of the held calls' latency (a block takes milliseconds to tens of milliseconds).
 *
 * A hold never outlives `maxHoldMs`: a block whose Commit never comes (the consensus engine died)
 * must not leave RPC calls waiting forever. One gate per process: a process runs one node.
 */
export class BlockWorkGate {
  /** `[evm] rpc_yields_to_blocks`: false makes the gate a no-op (for comparison runs). */
  enabled = true;
  private readonly maxHoldMs: number;
  private holds = 0;
  private waiters: (() => void)[] = [];

  constructor(maxHoldMs = 2_000) {
    this.maxHoldMs = maxHoldMs;
  }

  /** Starts block work; the returned release (idempotent) ends it, as does `maxHoldMs` passing. */
  hold(): () => void {
    this.holds++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      clearTimeout(timer);
      if (--this.holds === 0) {
        const waiters = this.waiters;
        this.waiters = [];
        for (const w of waiters) w();
      }
    };
    const timer = setTimeout(release, this.maxHoldMs);
    timer.unref();
    return release;
  }

  /** Runs `work` as block work. */
  async around<T>(work: () => Promise<T>): Promise<T> {
    const release = this.hold();
    try {
      return await work();
    } finally {
      release();
    }
  }

  get held(): boolean {
    return this.enabled && this.holds > 0;
  }

  /** Undefined when no block work is in progress; else a promise resolved when it ends. */
  wait(): Promise<void> | undefined {
    if (!this.held) return undefined;
    return new Promise<void>((resolve) => this.waiters.push(resolve));
  }
}

export const blockWork = new BlockWorkGate();

/** A turn of the event loop, then (if a block is in progress) the end of the block's work. */
export async function yieldToBlocks(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  const wait = blockWork.wait();
  if (wait) await wait;
}
