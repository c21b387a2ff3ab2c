/** TraceReplayer's refusals: what it will not replay, and why, before any execution. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Chain } from '../../../src/chain/chain.ts';
import { TraceReplayer } from '../../../src/chain/trace-replay.ts';
import type { StateStore } from '../../../src/storage/ss/types.ts';

const block = { hash: new Uint8Array(32), header: { height: 5 }, txs: [] };
const chain = { blocks: { blockByHeight: (h: number) => (h === 5 ? block : undefined) } } as unknown as Chain;
const store = (earliest: number, sync: boolean) =>
  ({
    earliestVersion: () => earliest,
    ...(sync ? { syncReaderAt: async () => undefined } : {}),
  }) as unknown as StateStore;

test('genesis, a missing block, pruned parent state', async () => {
  const ok = new TraceReplayer(chain, store(1, true));
  await assert.rejects(ok.replay(0), { code: 'TRACE_GENESIS', message: 'genesis is not traceable' });
  await assert.rejects(ok.replay(6), { code: 'TRACE_BLOCK_MISSING', message: 'block 6 not found' });
  // block 5 runs on version 5 (the state after block 4)
  await assert.rejects(new TraceReplayer(chain, store(6, true)).replay(5), {
    code: 'TRACE_STATE_PRUNED',
    message:
      'required historical state unavailable: block 5 needs the state after block 4, and the state store keeps heights from 5',
  });
});
