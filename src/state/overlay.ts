/**
 * The write buffer of the block being built: reads fall through to the last committed state, writes
 * stay here until the block commits and become its change sets. Checkpoints are journaled, so a
 * checkpoint costs nothing and a revert costs the writes made since it (never a copy of the buffer).
 *
 * Over a base that declares itself `stable`, reads are kept too: a block reads the same few keys
 * (sender accounts, the contract's code, its hot slots) many times per tx, and each base read is a
 * State Commit lookup. Cached values are shared, so callers must not modify returned bytes (none do:
 * the keepers decode them, ethereumjs copies what it pads).
 */
import { compareBytes } from '../primitives/bytes.ts';

/** The committed state the block builds on (State Commit at its latest version). */
export interface StateReader {
  get(store: string, key: Uint8Array): Uint8Array | undefined;
  /**
   * True when a key reads the same for as long as an overlay over this reader is in use (a committed
   * version), so the overlay may remember what it read. Readers whose answers change under an
   * overlay (a simulation's source with overrides applied later) leave it unset.
   */
  readonly stable?: boolean;
}

export interface StoreWrite {
  key: Uint8Array;
  /** undefined deletes */
  value: Uint8Array | undefined;
}

export interface StoreChanges {
  store: string;
  writes: StoreWrite[];
}

interface Entry {
  store: string;
  key: Uint8Array;
  value: Uint8Array | undefined;
}

/**
 * Map key of (store, key): the key's bytes as latin1 chars (one char per byte, so byte order and
 * prefixes carry over; half the length of hex and no hex table); the store name cannot contain NUL,
 * so the join is unambiguous.
 */
const slotId = (store: string, key: Uint8Array) =>
  store +
  '\0' +
  (key.length <= 1024
    ? String.fromCharCode.apply(null, key as unknown as number[])
    : Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1'));

function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A cached base read of a key the base does not hold. */
const ABSENT = null;

export class StateOverlay implements StateReader {
  private readonly base: StateReader;
  private readonly entries = new Map<string, Entry>();
  /** Previous entry (or undefined = not buffered) of each slot written since each open checkpoint. */
  private readonly journal: { id: string; previous: Entry | undefined }[] = [];
  private readonly marks: number[] = [];
  private writes = 0;
  /** Base reads (ABSENT for a missing key), when the base is stable. */
  private readonly reads: Map<string, Uint8Array | typeof ABSENT> | undefined;

  constructor(base: StateReader) {
    this.base = base;
    this.reads = base.stable ? new Map() : undefined;
  }

  get(store: string, key: Uint8Array): Uint8Array | undefined {
    const id = slotId(store, key);
    const e = this.entries.get(id);
    if (e) return e.value;
    if (!this.reads) return this.base.get(store, key);
    const cached = this.reads.get(id);
    if (cached !== undefined) return cached ?? undefined;
    const v = this.base.get(store, key);
    this.reads.set(id, v ?? ABSENT);
    return v;
  }

  /** Whether this buffer holds a write (or delete) for the slot. */
  isWritten(store: string, key: Uint8Array): boolean {
    return this.entries.has(slotId(store, key));
  }

  /**
   * Goes up with every set and revert: a reader that caches what it derived from this buffer (the
   * state manager's accounts) knows by it whether anything may have changed underneath.
   */
  get writeCount(): number {
    return this.writes;
  }

  set(store: string, key: Uint8Array, value: Uint8Array | undefined): void {
    this.writes++;
    const id = slotId(store, key);
    if (this.marks.length > 0) this.journal.push({ id, previous: this.entries.get(id) });
    this.entries.set(id, { store, key, value });
  }

  delete(store: string, key: Uint8Array): void {
    this.set(store, key, undefined);
  }

  checkpoint(): void {
    this.marks.push(this.journal.length);
  }

  /** Keeps the writes since the last checkpoint (they stay revertible by any outer checkpoint). */
  commit(): void {
    if (this.marks.pop() === undefined) throw new Error('commit without a checkpoint');
    if (this.marks.length === 0) this.journal.length = 0;
  }

  /** Undoes the writes since the last checkpoint. */
  revert(): void {
    const mark = this.marks.pop();
    if (mark === undefined) throw new Error('revert without a checkpoint');
    this.writes++;
    for (let i = this.journal.length - 1; i >= mark; i--) {
      const { id, previous } = this.journal[i];
      if (previous) this.entries.set(id, previous);
      else this.entries.delete(id);
    }
    this.journal.length = mark;
  }

  get depth(): number {
    return this.marks.length;
  }

  /** Buffered writes whose key starts with `prefix` in `store` (for clearing a contract's storage). */
  bufferedKeys(store: string, prefix: Uint8Array): Uint8Array[] {
    const idPrefix = slotId(store, prefix);
    const out: Uint8Array[] = [];
    for (const [id, e] of this.entries) if (id.startsWith(idPrefix)) out.push(e.key);
    return out;
  }

  /**
   * The block's changes per store: the written keys whose value differs from the base's, sorted, the
   * order State Commit applies them in (the IAVL shape depends on write order, so every node must
   * apply the same order).
   */
  changes(): StoreChanges[] {
    const byStore = new Map<string, StoreWrite[]>();
    for (const [id, e] of this.entries) {
      // a key left as the committed state holds it is no change (the chain's rule: a write of the
      // same value would still give its IAVL leaf a new version, and so a new hash, and the two EVMs
      // differ in which unchanged keys they rewrite)
      if (sameBytes(e.value, this.baseValue(id, e.store, e.key))) continue;
      let list = byStore.get(e.store);
      if (!list) byStore.set(e.store, (list = []));
      list.push({ key: e.key, value: e.value });
    }
    return [...byStore.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([store, writes]) => ({ store, writes: writes.sort((a, b) => compareBytes(a.key, b.key)) }));
  }

  private baseValue(id: string, store: string, key: Uint8Array): Uint8Array | undefined {
    const cached = this.reads?.get(id);
    if (cached !== undefined) return cached ?? undefined;
    return this.base.get(store, key);
  }

  get size(): number {
    return this.entries.size;
  }
}
