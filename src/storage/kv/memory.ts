import { compareBytes } from '../../primitives/bytes.ts';
import { assertValidOps } from './ops.ts';
import type { KVEntry, KVOp, KVRange, KVSnapshot, KVStore } from './types.ts';

/**
 * A sorted-array engine for unit tests. It is a real implementation of the interface (the
 * conformance suite runs against it) but keeps nothing on disk.
 */
export class MemoryKVStore implements KVStore {
  readonly engine = 'memory';
  private keys: Uint8Array[] = [];
  private values: Uint8Array[] = [];
  private closed = false;

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return this.getSync(key);
  }

  getSync(key: Uint8Array): Uint8Array | undefined {
    this.assertOpen();
    const i = this.search(key);
    return i >= 0 ? this.values[i] : undefined;
  }

  async has(key: Uint8Array): Promise<boolean> {
    return this.getSync(key) !== undefined;
  }

  async write(ops: KVOp[]): Promise<void> {
    this.assertOpen();
    assertValidOps(ops);
    for (const op of ops) {
      const i = this.search(op.key);
      if (op.type === 'put') {
        const value = op.value.slice();
        if (i >= 0) this.values[i] = value;
        else {
          const at = -i - 1;
          this.keys.splice(at, 0, op.key.slice());
          this.values.splice(at, 0, value);
        }
      } else if (i >= 0) {
        this.keys.splice(i, 1);
        this.values.splice(i, 1);
      }
    }
  }

  iterate(range: KVRange = {}): AsyncIterable<KVEntry> {
    return toAsync(this.iterateSync(range));
  }

  iterateSync(range: KVRange = {}): Iterable<KVEntry> {
    this.assertOpen();
    return rangeOf(this.keys.slice(), this.values.slice(), range);
  }

  snapshot(): KVSnapshot {
    this.assertOpen();
    const frozen = new MemoryKVStore();
    frozen.keys = this.keys.slice();
    frozen.values = this.values.slice();
    return {
      get: (k) => frozen.get(k),
      getSync: (k) => frozen.getSync(k),
      has: (k) => frozen.has(k),
      iterate: (r) => frozen.iterate(r),
      iterateSync: (r) => frozen.iterateSync(r),
      release: () => {
        frozen.closed = true;
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /** Index of key, or -(insertion point) - 1. */
  private search(key: Uint8Array): number {
    let lo = 0;
    let hi = this.keys.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const c = compareBytes(this.keys[mid], key);
      if (c < 0) lo = mid + 1;
      else if (c > 0) hi = mid - 1;
      else return mid;
    }
    return -lo - 1;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('memory store is closed');
  }
}

function* rangeOf(keys: Uint8Array[], values: Uint8Array[], range: KVRange): Generator<KVEntry> {
  const inRange = (k: Uint8Array) =>
    (!range.gte || compareBytes(k, range.gte) >= 0) && (!range.lt || compareBytes(k, range.lt) < 0);
  let emitted = 0;
  const limit = range.limit ?? Infinity;
  if (!range.reverse) {
    for (let i = 0; i < keys.length && emitted < limit; i++) {
      if (range.lt && compareBytes(keys[i], range.lt) >= 0) break;
      if (inRange(keys[i])) {
        emitted++;
        yield [keys[i], values[i]];
      }
    }
  } else {
    for (let i = keys.length - 1; i >= 0 && emitted < limit; i--) {
      if (range.gte && compareBytes(keys[i], range.gte) < 0) break;
      if (inRange(keys[i])) {
        emitted++;
        yield [keys[i], values[i]];
      }
    }
  }
}

async function* toAsync<T>(it: Iterable<T>): AsyncIterable<T> {
  yield* it;
}
