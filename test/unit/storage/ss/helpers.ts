/** Shared pieces of the SS tests: a seeded PRNG, temp dirs and an in-memory reference model. */
import { compareBytes } from '../../../../src/primitives/bytes.ts';
import type { StoreChange } from '../../../../src/storage/ss/types.ts';

export { seededRandom as prng } from '../../../helpers/random.ts';

export { tempDir } from '../../../helpers/random.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** Every version of every key, as written: the answer any correct MVCC store must give. */
export class ReferenceModel {
  private readonly history = new Map<
    string,
    Map<string, { key: Uint8Array; versions: [number, Uint8Array | null][] }>
  >();

  apply(version: number, changes: readonly StoreChange[]): void {
    for (const c of changes) {
      let store = this.history.get(c.store);
      if (!store) this.history.set(c.store, (store = new Map()));
      const k = hex(c.key);
      let entry = store.get(k);
      if (!entry) store.set(k, (entry = { key: c.key, versions: [] }));
      const last = entry.versions[entry.versions.length - 1];
      if (last && last[0] === version) last[1] = c.value;
      else entry.versions.push([version, c.value]);
    }
  }

  get(store: string, key: Uint8Array, version: number): Uint8Array | undefined {
    const versions = this.history.get(store)?.get(hex(key))?.versions ?? [];
    let value: Uint8Array | null = null;
    for (const [v, val] of versions) {
      if (v > version) break;
      value = val;
    }
    return value ?? undefined;
  }

  range(
    store: string,
    start: Uint8Array | undefined,
    end: Uint8Array | undefined,
    version: number,
    reverse: boolean,
  ) {
    const out: [Uint8Array, Uint8Array][] = [];
    for (const { key } of this.history.get(store)?.values() ?? []) {
      if (start && compareBytes(key, start) < 0) continue;
      if (end && compareBytes(key, end) >= 0) continue;
      const v = this.get(store, key, version);
      if (v) out.push([key, v]);
    }
    out.sort((a, b) => compareBytes(a[0], b[0]));
    return reverse ? out.reverse() : out;
  }

  keys(store: string): Uint8Array[] {
    return [...(this.history.get(store)?.values() ?? [])].map((e) => e.key);
  }
}
