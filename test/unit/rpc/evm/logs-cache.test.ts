import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatLog } from '../../../../src/rpc/codecs/format.ts';
import type { ChainReader, LogMatch, LogSearch } from '../../../../src/rpc/evm/backend.ts';
import { BlockLogsCache } from '../../../../src/rpc/evm/logs-cache.ts';

const bytes = (n: number, len: number) => {
  const b = new Uint8Array(len);
  b[len - 1] = n;
  b[0] = 0xaa;
  return b;
};
const ADDRS = [1, 2, 3].map((n) => bytes(n, 20));
const TOPICS = [1, 2, 3, 4].map((n) => bytes(n, 32));

/**
 * Heights 1..60: every third block empty, one with `busyLogs` logs; topics of 0 to 3 positions. Or,
 * with `perBlock`, heights 1..`heights` with that many logs each.
 */
function chainWith(busyHeight = -1, busyLogs = 0, perBlock?: number, heights = 60) {
  const all: LogMatch[] = [];
  let seed = 7;
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  for (let h = 1; h <= heights; h++) {
    const count = perBlock ?? (h === busyHeight ? busyLogs : h % 3 === 0 ? 0 : 1 + rnd(3));
    for (let i = 0; i < count; i++) {
      all.push({
        address: ADDRS[rnd(3)],
        topics: Array.from({ length: rnd(4) }, () => TOPICS[rnd(4)]),
        data: bytes(i, 8),
        logIndex: i,
        txIndex: i,
        txHash: bytes(h, 32),
        blockHeight: h,
        blockHash: bytes(h + 100, 32),
      });
    }
  }
  const queries: LogSearch[] = [];
  // geth's filter semantics, as the block store implements them
  const matches = (l: LogMatch, s: LogSearch) =>
    (s.addresses.length === 0 || s.addresses.some((a) => a.every((b, i) => b === l.address[i]))) &&
    s.topics.length <= l.topics.length &&
    s.topics.every(
      (alts, i) => !alts || alts.length === 0 || alts.some((t) => t.every((b, j) => b === l.topics[i][j])),
    );
  const getLogs = (s: LogSearch) => {
    queries.push(s);
    const hits = all.filter(
      (l) => l.blockHeight >= s.fromBlock && l.blockHeight <= s.toBlock && matches(l, s),
    );
    return { logs: hits.slice(0, s.limit), limitExceeded: hits.length > s.limit };
  };
  const chain = {
    getLogs,
    blockContext: (h: number) => ({ height: h, hash: bytes(h + 100, 32), timestamp: 1000 + h }),
  } as unknown as ChainReader;
  const expected = (s: LogSearch) => {
    const { logs, limitExceeded } = getLogs(s);
    queries.pop();
    const json = logs.map((l) => formatLog(l, chain.blockContext(l.blockHeight)!));
    return { logs: json, limitExceeded };
  };
  return { chain, expected, queries };
}

/** A cached answer as the store's test double gives it: parsed logs and whether the limit was hit. */
const json = (r: Awaited<ReturnType<BlockLogsCache['query']>>) =>
  r && { logs: r.logs.map((l) => JSON.parse(l.text)), limitExceeded: r.limitExceeded };

test('cached answers are the store answers for address, topic, range and limit filters', async () => {
  const { chain, expected } = chainWith();
  const cache = new BlockLogsCache(chain);
  const filters: Pick<LogSearch, 'addresses' | 'topics'>[] = [
    { addresses: [], topics: [] },
    { addresses: [ADDRS[0]], topics: [] },
    { addresses: [ADDRS[0], ADDRS[2]], topics: [] },
    { addresses: [], topics: [[TOPICS[1]]] },
    { addresses: [], topics: [null, [TOPICS[0], TOPICS[3]]] },
    { addresses: [], topics: [[], null] },
    { addresses: [ADDRS[1]], topics: [null, null, [TOPICS[2]]] },
  ];
  for (const f of filters) {
    for (const [fromBlock, toBlock] of [
      [1, 60],
      [5, 9],
      [3, 3],
      [40, 60],
    ]) {
      for (const limit of [Number.MAX_SAFE_INTEGER, 4]) {
        const s = { ...f, fromBlock, toBlock, limit };
        const { bytes, logs, limitExceeded } = (await cache.query(s))!;
        const want = expected(s);
        const what = JSON.stringify({ fromBlock, toBlock, limit });
        assert.equal(limitExceeded, want.limitExceeded, what);
        assert.deepEqual(
          logs.map((l) => JSON.parse(l.text)),
          want.logs,
          what,
        );
        // the length charged is the JSON's
        assert.equal(bytes, JSON.stringify(want.logs).length + (logs.length === 0 ? 0 : 1), what);
      }
    }
  }
});

test('a range is loaded once, unfiltered, in chunks; later queries do not reach the store', async () => {
  const { chain, queries } = chainWith();
  const cache = new BlockLogsCache(chain);
  await cache.query({ fromBlock: 10, toBlock: 20, addresses: [ADDRS[0]], topics: [], limit: 100 });
  assert.deepEqual(
    queries.map((q) => [q.fromBlock, q.toBlock, q.addresses.length, q.topics.length]),
    [[10, 20, 0, 0]],
  );
  await cache.query({ fromBlock: 1, toBlock: 30, addresses: [], topics: [[TOPICS[0]]], limit: 100 });
  // only the missing heights around the cached ones
  assert.deepEqual(
    queries.slice(1).map((q) => [q.fromBlock, q.toBlock]),
    [
      [1, 9],
      [21, 30],
    ],
  );
  await cache.query({ fromBlock: 2, toBlock: 29, addresses: [], topics: [], limit: 100 });
  assert.equal(queries.length, 3);
});

test('a block with more logs than a load takes is left to the store; so is a range larger than the cache', async () => {
  const busy = chainWith(30, 5_000);
  const cache = new BlockLogsCache(busy.chain);
  assert.equal(
    await cache.query({ fromBlock: 1, toBlock: 60, addresses: [], topics: [], limit: 10 }),
    undefined,
  );
  // the load stopped inside block 30: the heights below it were complete and are cached
  const before = busy.queries.length;
  const below = { fromBlock: 1, toBlock: 29, addresses: [], topics: [], limit: 100 };
  const answer = await cache.query(below);
  assert.ok(answer, 'answered from the cache');
  assert.deepEqual(json(answer), busy.expected(below));
  assert.equal(busy.queries.length, before);
  // block 30 itself is left to the store, without loading it again
  assert.equal(
    await cache.query({ fromBlock: 25, toBlock: 35, addresses: [], topics: [], limit: 100 }),
    undefined,
  );
  assert.equal(busy.queries.length, before);

  const tiny = new BlockLogsCache(chainWith().chain, 5, 100);
  assert.equal(
    await tiny.query({ fromBlock: 1, toBlock: 60, addresses: [], topics: [], limit: 100 }),
    undefined,
  );
  // what is left fits the bound
  assert.ok(await tiny.query({ fromBlock: 3, toBlock: 3, addresses: [], topics: [], limit: 100 }));
});

test('the cache is bounded by the JSON bytes of its logs too', async () => {
  const { chain } = chainWith();
  const one = formatLog(
    {
      address: ADDRS[0],
      topics: [],
      data: bytes(0, 8),
      logIndex: 0,
      txIndex: 0,
      txHash: bytes(1, 32),
    },
    chain.blockContext(1)!,
  );
  // room for about 10 logs: a query over all 60 heights cannot be kept, a short one can
  const cache = new BlockLogsCache(chain, 1_000_000, 1_000_000, 10 * JSON.stringify(one).length);
  assert.equal(
    await cache.query({ fromBlock: 1, toBlock: 60, addresses: [], topics: [], limit: 1000 }),
    undefined,
  );
  assert.ok(cache.size.bytes <= 10 * JSON.stringify(one).length + 200, JSON.stringify(cache.size));
  assert.ok(await cache.query({ fromBlock: 58, toBlock: 60, addresses: [], topics: [], limit: 1000 }));
});

test('busy blocks are cached a few at a time, each load stopping where its logs run out', async () => {
  // 1,500 logs a block: a load of at most 4,096 logs completes two blocks
  const busy = chainWith(-1, 0, 1_500, 10);
  const cache = new BlockLogsCache(busy.chain);
  const all = { fromBlock: 1, toBlock: 10, addresses: [], topics: [], limit: 100_000 };
  const answer = await cache.query(all);
  assert.ok(answer, 'answered from the cache');
  assert.deepEqual(json(answer), busy.expected(all));
  assert.deepEqual(
    busy.queries.map((q) => [q.fromBlock, q.toBlock]),
    [
      [1, 10],
      [3, 10],
      [5, 10],
      [7, 10],
      [9, 10],
    ],
  );
  const some = { fromBlock: 4, toBlock: 7, addresses: [ADDRS[1]], topics: [[TOPICS[2]]], limit: 100_000 };
  assert.deepEqual(json(await cache.query(some)), busy.expected(some));
  assert.equal(busy.queries.length, 5, 'answered from the cache');
});

test('a busy range with more logs than the cache holds is left to the store after one load', async () => {
  const busy = chainWith(-1, 0, 1_500, 10);
  const cache = new BlockLogsCache(busy.chain, 5_000);
  const all = { fromBlock: 1, toBlock: 10, addresses: [], topics: [], limit: 100_000 };
  assert.equal(await cache.query(all), undefined);
  const loads = busy.queries.length;
  assert.ok(cache.size.logs <= 5_000, JSON.stringify(cache.size));
  // asked again, it goes to the store at once instead of loading (and evicting) the range again
  assert.equal(await cache.query(all), undefined);
  assert.equal(await cache.query({ ...all, fromBlock: 6 }), undefined);
  assert.equal(busy.queries.length, loads);
});
