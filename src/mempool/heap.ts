/**
 * Binary heaps for the mempool. `IndexedHeap` tracks each item's position so an arbitrary item can be
 * removed in O(log n) (a queued tx that gets promoted, replaced or expired leaves the eviction heap
 * immediately instead of lingering as a tombstone); `Heap` is the plain variant reap uses.
 */

/** `less(a, b)` true when a must come out before b. */
export type Less<T> = (a: T, b: T) => boolean;

export class Heap<T> {
  protected readonly items: T[];
  protected readonly less: Less<T>;

  constructor(less: Less<T>, initial: T[] = []) {
    this.less = less;
    this.items = initial;
    for (let i = (initial.length >> 1) - 1; i >= 0; i--) this.down(i);
  }

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    this.items.push(item);
    this.placed(item, this.items.length - 1);
    this.up(this.items.length - 1);
  }

  pop(): T | undefined {
    const top = this.items[0];
    if (top === undefined) return undefined;
    this.removeAt(0);
    return top;
  }

  protected removeAt(i: number): void {
    const last = this.items.pop()!;
    this.removed(this.items[i] ?? last);
    if (i < this.items.length) {
      this.items[i] = last;
      this.placed(last, i);
      this.down(i);
      this.up(i);
    }
  }

  /** Hooks for IndexedHeap. */
  protected placed(_item: T, _index: number): void {}
  protected removed(_item: T): void {}

  private up(i: number): void {
    const items = this.items;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(items[i], items[parent])) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const items = this.items;
    const n = items.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const child = r < n && this.less(items[r], items[l]) ? r : l;
      if (!this.less(items[child], items[i])) break;
      this.swap(i, child);
      i = child;
    }
  }

  private swap(i: number, j: number): void {
    const items = this.items;
    const t = items[i];
    items[i] = items[j];
    items[j] = t;
    this.placed(items[i], i);
    this.placed(items[j], j);
  }
}

/** An item that knows its own slot; -1 when it is in no heap. */
export interface HeapSlot {
  heapIndex: number;
}

export class IndexedHeap<T extends HeapSlot> extends Heap<T> {
  constructor(less: Less<T>) {
    super(less);
  }

  has(item: T): boolean {
    return item.heapIndex >= 0 && this.items[item.heapIndex] === item;
  }

  /** Removes `item` if present; O(log n). */
  delete(item: T): boolean {
    if (!this.has(item)) return false;
    this.removeAt(item.heapIndex);
    return true;
  }

  protected override placed(item: T, index: number): void {
    item.heapIndex = index;
  }

  protected override removed(item: T): void {
    item.heapIndex = -1;
  }
}
