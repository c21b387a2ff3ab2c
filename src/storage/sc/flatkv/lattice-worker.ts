/**
 * Worker thread of LatticePool: reads the unknown previous values of its share from a fresh read
 * transaction of flatkv's lmdb (its own handle on the same environment), sums the share's lattice
 * rows and sends the partial lattices and the values it read back.
 */
import { parentPort } from 'node:worker_threads';
import { openLmdbStore } from '../../kv/lmdb.ts';
import type { KVStore } from '../../kv/types.ts';
import { sumWrites, type WorkerRequest } from './lattice-pool.ts';

let store: Promise<KVStore> | undefined;

parentPort!.on('message', (m: WorkerRequest) => {
  void answer(m);
});

async function answer(m: WorkerRequest): Promise<void> {
  try {
    let snapshot: ReturnType<KVStore['snapshot']> | undefined;
    if (m.kvPath !== undefined) {
      store ??= openLmdbStore(m.kvPath);
      // a read transaction begun now sees every flush that landed before the request was sent
      snapshot = (await store).snapshot();
    }
    try {
      const read = snapshot?.getSyncView?.bind(snapshot) ?? snapshot?.getSync?.bind(snapshot);
      const { sums, reads } = sumWrites(m.buffer, m.tables, read);
      parentPort!.postMessage({ id: m.id, sums: sums.buffer, reads }, [sums.buffer as ArrayBuffer, reads]);
    } finally {
      snapshot?.release();
    }
  } catch (err) {
    parentPort!.postMessage({ id: m.id, error: (err as Error).message });
  }
}
