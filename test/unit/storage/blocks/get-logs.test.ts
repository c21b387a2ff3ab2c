import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  openBlockStore,
  InvalidLogQueryError,
  logMatches,
  type BlockLog,
  type LogQuery,
} from '../../../../src/storage/blocks/index.ts';
import { makeChain, pools, prng, tempDir, type BlockContents } from './fixtures.ts';

const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Brute force over every stored log, with geth's filterLogs rules written out again. */
function reference(blocks: BlockContents[], q: Required<Omit<LogQuery, 'limit'>>, limit: number) {
  const out: BlockLog[] = [];
  for (const c of blocks) {
    const h = c.block.header.height;
    if (h < q.fromBlock || h > q.toBlock) continue;
    for (const rc of c.receipts) {
      for (const log of rc.logs) {
        if (h === q.fromBlock && log.logIndex < q.fromLogIndex) continue;
        if (q.addresses.length > 0 && !q.addresses.some((a) => same(a, log.address))) continue;
        if (q.topics.length > log.topics.length) continue;
        let ok = true;
        q.topics.forEach((pos, i) => {
          if (pos && pos.length > 0 && !pos.some((t) => same(t, log.topics[i]))) ok = false;
        });
        if (ok) out.push({ ...log, blockHeight: h, blockHash: c.block.hash });
      }
    }
  }
  return { logs: out.slice(0, limit), limitExceeded: out.length > limit };
}

test('getLogs equals a brute-force reference on random filters (addresses, topic OR-lists, wildcards, ranges, limit, resuming inside the first block)', async () => {
  const dir = tempDir('blocks-logs-');
  try {
    const rand = prng(2024);
    const p = pools(12, 16);
    const shape = { evmTxs: 6, cosmosTxs: 2, logsPerTx: 1, ...p };
    const blocks: BlockContents[] = [];
    // some blocks without EVM txs at all, so empty blooms are exercised
    for (const c of makeChain(1, 120, shape, rand)) blocks.push(c);
    // a 7-height index window, so queries cross window boundaries
    const store = await openBlockStore({ dataDir: dir.path, sync: false, logIndexWindow: 7 });
    for (const c of blocks) await store.putBlock(c.block, c.receipts, c.results);
    await store.pruneBelow(6); // the reference sees the pruned range as empty
    const stored = blocks.slice(5);

    const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
    const unknownAddress = new Uint8Array(20).fill(0xee);
    const unknownTopic = new Uint8Array(32).fill(0xee);
    let nonEmpty = 0;
    let exceeded = 0;
    for (let i = 0; i < 400; i++) {
      const from = Math.floor(rand() * 130);
      const to = from + Math.floor(rand() * 60);
      const addresses = Array.from({ length: Math.floor(rand() * 4) }, () =>
        rand() < 0.1 ? unknownAddress : pick(p.addresses),
      );
      // many addresses: the Set-based matcher
      if (rand() < 0.1) addresses.push(...p.addresses.slice(0, 10));
      const topics = Array.from({ length: Math.floor(rand() * 5) }, () =>
        rand() < 0.35
          ? null
          : Array.from({ length: Math.floor(rand() * 3) }, () =>
              rand() < 0.1 ? unknownTopic : pick(p.topics),
            ),
      );
      const limit = rand() < 0.3 ? 1 + Math.floor(rand() * 20) : 10_000;
      // a reader resuming inside its first block (6 logs per block here)
      const fromLogIndex = rand() < 0.3 ? Math.floor(rand() * 8) : 0;
      const q = { fromBlock: from, toBlock: to, addresses, topics, fromLogIndex };
      const got = store.getLogs({ ...q, limit });
      const want = reference(stored, q, limit);
      assert.deepEqual(
        got,
        want,
        JSON.stringify({
          i,
          from,
          to,
          nAddr: addresses.length,
          topics: topics.map((t) => t?.length ?? null),
          limit,
          fromLogIndex,
        }),
      );
      // logMatches (for live filters) agrees with the reference on every stored log of the range
      const unlimited = reference(stored, q, Infinity).logs;
      const inRange = stored
        .filter((c) => c.block.header.height >= from && c.block.header.height <= to)
        .flatMap((c) =>
          c.receipts.flatMap((rc) =>
            rc.logs.filter((l) => c.block.header.height !== from || l.logIndex >= fromLogIndex),
          ),
        );
      assert.equal(inRange.filter((l) => logMatches(l, addresses, topics)).length, unlimited.length);
      if (got.logs.length > 0) nonEmpty++;
      if (got.limitExceeded) exceeded++;
    }
    // the random filters must exercise both outcomes, or this test proves little
    assert.ok(nonEmpty > 100, `only ${nonEmpty} non-empty results`);
    assert.ok(exceeded > 20, `only ${exceeded} limit hits`);
    await store.close();
  } finally {
    dir.remove();
  }
});

test('getLogs rejects malformed queries with typed errors and answers empty outside the stored range', async () => {
  const dir = tempDir('blocks-logs-');
  try {
    const store = await openBlockStore({ dataDir: dir.path, sync: false });
    assert.deepEqual(store.getLogs({ fromBlock: 0, toBlock: 10 }), { logs: [], limitExceeded: false });
    const shape = { evmTxs: 3, cosmosTxs: 0, logsPerTx: 2, ...pools(2, 2) };
    for (const c of makeChain(1, 3, shape, prng(3))) await store.putBlock(c.block, c.receipts, c.results);
    assert.deepEqual(store.getLogs({ fromBlock: 4, toBlock: 100 }), { logs: [], limitExceeded: false });
    const bad: LogQuery[] = [
      { fromBlock: 5, toBlock: 4 },
      { fromBlock: -1, toBlock: 4 },
      { fromBlock: 1, toBlock: 4, limit: 0 },
      { fromBlock: 1, toBlock: 4, fromLogIndex: -1 },
      { fromBlock: 1, toBlock: 4, fromLogIndex: 0.5 },
      { fromBlock: 1, toBlock: 4, topics: [null, null, null, null, null] },
      { fromBlock: 1, toBlock: 4, addresses: [new Uint8Array(19)] },
      { fromBlock: 1, toBlock: 4, topics: [[new Uint8Array(33)]] },
    ];
    for (const q of bad) assert.throws(() => store.getLogs(q), InvalidLogQueryError, JSON.stringify(q));
    await store.close();
  } finally {
    dir.remove();
  }
});
