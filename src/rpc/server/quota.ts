/**
 * Per-client token buckets (`[evm] client_quota` units per second, up to `client_quota_burst`), kept
 * in a SharedArrayBuffer so that every thread serving a port (the main thread and the RPC reader
 * threads) charges the same bucket: a client cannot multiply its quota by spreading connections.
 *
 * The table has a fixed number of slots (its memory is bounded, whatever the number of clients). A
 * client's slot is found by hashing its 128-bit address and probing a short window; a slot whose
 * bucket has refilled to full by now holds nothing worth keeping (a client seen again starts full
 * anyway), so it is reused by the next client that needs one; when the whole window is busy, the
 * client seen longest ago loses its slot (and later starts full again). One lock guards the table
 * (a charge is a few dozen instructions under it); a thread that finds it taken sleeps on it.
 *
 * A payload that costs more than the burst is let through when the bucket is full and leaves the
 * bucket in debt, so that it is paid for before the client's next request passes.
 */
import type { Address128 } from './client-address.ts';

/** Slots of the table; about this many clients are tracked at once (32 bytes each). */
export const QUOTA_SLOTS = 16384;
/** A lock held this long is taken over (see `acquire`). */
const LOCK_STALE_MS = 5_000;
/** Slots looked at per client. */
const WINDOW = 8;

/** The shared memory of a QuotaTable: create once, hand to every thread. */
export function quotaMemory(slots = QUOTA_SLOTS): SharedArrayBuffer {
  // lock (8 bytes, for alignment) | keys: 4 words per slot | tokens and last-seen ms: 2 doubles per slot
  return new SharedArrayBuffer(8 + slots * 16 + slots * 16);
}

export type Charge = { ok: true } | { ok: false; retryAfterMs: number };

export class QuotaTable {
  private readonly lock: Int32Array;
  private readonly keys: Uint32Array;
  /** [tokens, last seen (ms since the epoch; 0: empty slot)] per slot */
  private readonly vals: Float64Array;
  private readonly slots: number;
  readonly rate: number;
  readonly burst: number;
  private readonly now: () => number;

  /**
   * `rate`: units per second; `burst`: the bucket's size. `now`: the clock (ms since the epoch; the
   * same on every thread, which performance.now() is not).
   */
  constructor(memory: SharedArrayBuffer, rate: number, burst: number, now: () => number = Date.now) {
    this.slots = (memory.byteLength - 8) / 32;
    this.lock = new Int32Array(memory, 0, 1);
    this.keys = new Uint32Array(memory, 8, this.slots * 4);
    this.vals = new Float64Array(memory, 8 + this.slots * 16, this.slots * 2);
    this.rate = rate;
    this.burst = Math.max(1, burst);
    this.now = now;
  }

  /** Takes `cost` units from `client`'s bucket, or says how long until it holds enough. */
  charge(client: Address128, cost: number): Charge {
    const now = this.now();
    this.acquire();
    try {
      const slot = this.slotOf(client, now);
      const v = this.vals;
      const at = slot * 2;
      let tokens: number;
      if (v[at + 1] === 0) tokens = this.burst;
      else tokens = Math.min(this.burst, v[at] + (Math.max(0, now - v[at + 1]) * this.rate) / 1000);
      const need = Math.min(cost, this.burst);
      v[at + 1] = now;
      if (tokens >= need) {
        v[at] = tokens - cost;
        return { ok: true };
      }
      v[at] = tokens;
      return { ok: false, retryAfterMs: Math.ceil(((need - tokens) * 1000) / this.rate) };
    } finally {
      this.release();
    }
  }

  /**
   * Takes the table's lock (a futex-style mutex: 0 free, 1 held, 2 held with waiters). A waiter
   * sleeps rather than spins, since the holder may be a thread the OS has descheduled. A lock still
   * held after LOCK_STALE_MS was left by a thread terminated inside a charge, and is taken over
   * rather than waited on forever.
   */
  private acquire(): void {
    let c = Atomics.compareExchange(this.lock, 0, 0, 1);
    if (c === 0) return;
    const since = Date.now();
    if (c !== 2) c = Atomics.exchange(this.lock, 0, 2);
    while (c !== 0) {
      Atomics.wait(this.lock, 0, 2, 10);
      if (Date.now() - since > LOCK_STALE_MS) return;
      c = Atomics.exchange(this.lock, 0, 2);
    }
  }

  private release(): void {
    if (Atomics.exchange(this.lock, 0, 0) === 2) Atomics.notify(this.lock, 0, 1);
  }

  /** Clients with a slot whose bucket is not full (for tests and metrics). */
  tracked(): number {
    const now = this.now();
    let n = 0;
    for (let s = 0; s < this.slots; s++) if (!this.idle(s, now)) n++;
    return n;
  }

  /** Whether slot `s` is empty or its bucket has refilled to full by `now`. */
  private idle(s: number, now: number): boolean {
    const last = this.vals[s * 2 + 1];
    return last === 0 || this.vals[s * 2] + ((now - last) * this.rate) / 1000 >= this.burst;
  }

  /** The slot of `client`: its own, else a free one of its window, else the window's stalest. */
  private slotOf(c: Address128, now: number): number {
    let h = 2166136261;
    for (let i = 0; i < 4; i++) h = Math.imul(h ^ c[i], 16777619);
    h ^= h >>> 15;
    const start = (h >>> 0) % this.slots;
    const k = this.keys;
    let free = -1;
    let stalest = start;
    for (let i = 0; i < WINDOW; i++) {
      const s = (start + i) % this.slots;
      const last = this.vals[s * 2 + 1];
      if (
        last !== 0 &&
        k[s * 4] === c[0] &&
        k[s * 4 + 1] === c[1] &&
        k[s * 4 + 2] === c[2] &&
        k[s * 4 + 3] === c[3]
      )
        return s;
      if (free < 0 && this.idle(s, now)) free = s;
      if (last < this.vals[stalest * 2 + 1]) stalest = s;
    }
    const s = free >= 0 ? free : stalest;
    k.set(c, s * 4);
    this.vals[s * 2] = this.burst;
    this.vals[s * 2 + 1] = 0;
    return s;
  }
}
