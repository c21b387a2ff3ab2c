/** Worker thread of LatticePool: sums packed rows and sends the partial lattices back. */
import { parentPort } from 'node:worker_threads';
import { sumPacked } from './lattice-pool.ts';

parentPort!.on('message', (m: { id: number; buffer: ArrayBuffer; tables: number }) => {
  try {
    const out = sumPacked(m.buffer, m.tables);
    parentPort!.postMessage({ id: m.id, out: out.buffer }, [out.buffer as ArrayBuffer]);
  } catch (err) {
    parentPort!.postMessage({ id: m.id, error: (err as Error).message });
  }
});
