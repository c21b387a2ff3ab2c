import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { PendingTx } from '../../../../src/rpc/codecs/views.ts';
import { type ChainEvents, FilterStore } from '../../../../src/rpc/evm/filters-store.ts';

function events() {
  let pending: ((tx: PendingTx) => void) | undefined;
  const e: ChainEvents = {
    onBlock: () => () => {},
    onPendingTx: (l) => {
      pending = l;
      return () => (pending = undefined);
    },
  };
  return { e, emit: (hash: Uint8Array) => pending?.({ hash } as PendingTx) };
}

test('pending-tx filters read one shared ring: memory does not grow with the number of filters', (t) => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const { e, emit } = events();
  const store = new FilterStore(e, { timeoutMs: 60_000, maxFilters: 10_000, maxPendingHashes: 2_000 });
  t.after(() => store.close());
  gc();
  const before = process.memoryUsage().heapUsed;
  const ids = Array.from({ length: 10_000 }, () => store.install({ kind: 'pending', lastUsed: 0, next: 0 }));
  for (let i = 0; i < 5_000; i++) emit(new Uint8Array(32).fill(i & 0xff));
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  t.diagnostic(`heap growth with 10,000 filters and 5,000 pending txs: ${(grown / 1e6).toFixed(1)} MB`);
  // one buffer per filter held 10,000 × 2,000 references (160 MB of pointers alone)
  assert.ok(grown < 40e6, `heap grew ${grown} bytes`);

  const f = store.use(ids[0]);
  assert.equal(f.kind, 'pending');
  assert.throws(() => store.takePending(f as Extract<typeof f, { kind: 'pending' }>), {
    message: /^filter lagged: 3000 pending/,
  });
  const kept = store.takePending(f as Extract<typeof f, { kind: 'pending' }>);
  assert.equal(kept.length, 2_000);
  assert.equal(kept[0][0], 3_000 & 0xff, 'the oldest kept is the 3,001st');
  assert.deepEqual(store.takePending(f as Extract<typeof f, { kind: 'pending' }>), []);
});

test('a rewind brings block and log filters down to the new head; one at or below it keeps its cursor', () => {
  let rewind: ((height: number) => void) | undefined;
  const e: ChainEvents = {
    onBlock: () => () => {},
    onPendingTx: () => () => {},
    onRewind: (l) => {
      rewind = l;
      return () => (rewind = undefined);
    },
  };
  const store = new FilterStore(e, { timeoutMs: 60_000, maxFilters: 10 });
  const criteria = { addresses: [], topics: [] };
  const high = store.install({ kind: 'block', lastUsed: 0, cursor: 9 });
  const low = store.install({ kind: 'block', lastUsed: 0, cursor: 3 });
  const logs = store.install({ kind: 'logs', lastUsed: 0, cursor: 8, cursorLogIndex: 5, criteria });
  const at = store.install({ kind: 'logs', lastUsed: 0, cursor: 5, cursorLogIndex: 2, criteria });
  rewind!(5);
  assert.equal((store.use(high) as { cursor: number }).cursor, 5);
  assert.equal((store.use(low) as { cursor: number }).cursor, 3);
  assert.deepEqual(pick(store.use(logs)), { cursor: 5, cursorLogIndex: 0 });
  // its log index counted into block 6, which is another block from now on
  assert.deepEqual(pick(store.use(at)), { cursor: 5, cursorLogIndex: 0 });
  store.close();
  assert.equal(rewind, undefined, 'close stops listening');
});

const pick = (f: unknown) => {
  const { cursor, cursorLogIndex } = f as { cursor: number; cursorLogIndex: number };
  return { cursor, cursorLogIndex };
};
