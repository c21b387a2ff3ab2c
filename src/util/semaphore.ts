/**
 * At most `max` holders at once; later callers wait in order, at most `maxWaiting` of them (past
 * that, `acquire` answers undefined at once and the caller refuses the work).
 */
export class Semaphore {
  readonly max: number;
  readonly maxWaiting: number;
  private held = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(max: number, maxWaiting: number) {
    this.max = max;
    this.maxWaiting = maxWaiting;
  }

  get running(): number {
    return this.held;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** A release function once a place is free, or undefined when too many already wait. */
  acquire(): Promise<() => void> | undefined {
    if (this.held < this.max) {
      this.held++;
      return Promise.resolve(this.releaser());
    }
    if (this.waiting.length >= this.maxWaiting) return undefined;
    return new Promise((resolve) => this.waiting.push(() => resolve(this.releaser())));
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiting.shift();
      // the place passes straight to the next waiter
      if (next) next();
      else this.held--;
    };
  }
}
