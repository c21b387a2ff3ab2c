/**
 * The write buffer of the block being built: reads fall through to the last committed state, writes
 * stay here until the block commits and become its change sets. Checkpoints are journaled, so a
 * checkpoint costs nothing and a revert costs the writes made since it (never a copy of the buffer).
 */
import { compareBytes, toHex } from '../primitives/bytes.ts';

/** The committed state the block builds on (State Commit at its latest version). */
export interface StateReader {
  get(store: string, key: Uint8Array): Uint8Array | undefined;
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

/** Map key of (store, key): the store name cannot contain NUL, so the join is unambiguous. */
const slotId = (store: string, key: Uint8Array) => `${store}\0${toHex(key)}`;

export class StateOverlay implements StateReader {
  private readonly base: StateReader;
  private readonly entries = new Map<string, Entry>();
  /** Previous entry (or undefined = not buffered) of each slot written since each open checkpoint. */
  private readonly journal: { id: string; previous: Entry | undefined }[] = [];
  private readonly marks: number[] = [];

  constructor(base: StateReader) {
    this.base = base;
  }

  get(store: string, key: Uint8Array): Uint8Array | undefined {
    const e = this.entries.get(slotId(store, key));
    return e ? e.value : this.base.get(store, key);
  }

  /** Whether this buffer holds a write (or delete) for the slot. */
  isWritten(store: string, key: Uint8Array): boolean {
    return this.entries.has(slotId(store, key));
  }

  set(store: string, key: Uint8Array, value: Uint8Array | undefined): void {
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
   * The block's writes per store, keys sorted: the order State Commit applies them in (the IAVL shape
   * depends on write order, so every node must apply the same order).
   */
  changes(): StoreChanges[] {
    const byStore = new Map<string, StoreWrite[]>();
    for (const e of this.entries.values()) {
      let list = byStore.get(e.store);
      if (!list) byStore.set(e.store, (list = []));
      list.push({ key: e.key, value: e.value });
    }
    return [...byStore.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([store, writes]) => ({ store, writes: writes.sort((a, b) => compareBytes(a.key, b.key)) }));
  }

  get size(): number {
    return this.entries.size;
  }
}
