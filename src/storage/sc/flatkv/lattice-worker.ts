/**
 * Worker thread of LatticePool: claims chunks of a block's packed writes until none are left,
 * reading unknown previous values from a fresh read transaction of flatkv's lmdb (its own handle
 * on the same environment), and sends its partial lattices and the values it read back.
 */
import { parentPort } from 'node:worker_threads';
import { openLmdbStore } from '../../kv/lmdb.ts';
import type { KVStore } from '../../kv/types.ts';
import {
  claimChunks,
  LatticeSummer,
  type WorkerClose,
  type WorkerReply,
  type WorkerRequest,
} from './lattice-pool.ts';

let store: Promise<KVStore> | undefined;
// Requests are answered one after another, and a close request after all of them: the thread then
// ends by itself, never stopped from outside while it is inside lmdb (stopping a thread there
// aborts the process).
let queue: Promise<void> = Promise.resolve();

parentPort!.on('message', (m: WorkerRequest | WorkerClose) => {
  queue = queue.then(() => ('close' in m ? shutDown() : answer(m)));
});

async function shutDown(): Promise<void> {
  const opened = store;
  store = undefined;
  if (opened) await (await opened).close();
  process.exit(0); // in a worker: ends this thread only, now that it holds nothing
}

async function answer(m: WorkerRequest): Promise<void> {
  let reply: WorkerReply;
  try {
    let snapshot: ReturnType<KVStore['snapshot']> | undefined;
    if (m.kvPath !== undefined) {
      store ??= openLmdbStore(m.kvPath);
      // a read transaction begun now sees every flush that landed before the request was sent
      snapshot = (await store).snapshot();
    }
    try {
      const read = snapshot?.getSyncView?.bind(snapshot) ?? snapshot?.getSync?.bind(snapshot);
      // one summer from creation to sums(), with no await between: it uses the thread's SIMD kernel
      const summer = new LatticeSummer(m.tables);
      const { chunks, reads } = claimChunks(summer, m, read);
      reply = { id: m.id, sums: summer.sums().buffer as ArrayBuffer, chunks, reads };
    } finally {
      snapshot?.release();
    }
  } catch (err) {
    reply = { id: m.id, error: (err as Error).message };
  }
  parentPort!.postMessage(reply, reply.sums ? [reply.sums, ...reply.reads!] : []);
}
