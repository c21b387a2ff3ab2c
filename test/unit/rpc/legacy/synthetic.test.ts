/**
 * The synthetic chain_/chain2_ views over an in-memory backend and a real Dispatcher: one block whose
 * txs interleave EVM txs (one executed with a log, one reverted, one included but failed before
 * execution) with Cosmos txs (two bank sends with a synthetic log, a failed send), read through every
 * block, count, tx, receipt, log, filter and ExcludeTraceFail method with exact lists and indices.
 * The e2e test (test/integration/legacy/synthetic-views.test.ts) covers the real chain, where such
 * an EVM tx is one that could not pay when its turn in the block came.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { keccak256, Wallet } from 'ethers';
import type { LogView, MinedTx, ReceiptView } from '../../../../src/rpc/codecs/views.ts';
import type { ChainEvents, ChainReader, LogMatch, LogSearch } from '../../../../src/rpc/evm/index.ts';
import { FilterStore } from '../../../../src/rpc/evm/index.ts';
import {
  type BlockTxRef,
  type CosmosTxView,
  type SyntheticBackend,
  syntheticLegacyMethods,
} from '../../../../src/rpc/legacy/synthetic/index.ts';
import { Dispatcher } from '../../../../src/rpc/server/dispatcher.ts';
import { CodecError } from '../../../../src/rpc/codecs/errors.ts';

const CHAIN_ID = 713714n;
const hx = (b: Uint8Array) => '0x' + Buffer.from(b).toString('hex');
const q = (n: number | bigint) => '0x' + n.toString(16);
const bytes = (fill: number, n: number) => new Uint8Array(n).fill(fill);
const sha = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return new Uint8Array(b);
};
const EMPTY_BLOOM = new Uint8Array(256);
const TOPIC = bytes(0xaa, 32);
const OTHER_TOPIC = bytes(0xbb, 32);

const wallet = new Wallet('0x' + '11'.repeat(32));
const FROM = bytes(0x01, 20);

async function evmTx(
  nonce: number,
  opts: { status: 0 | 1; gasUsed: bigint; logs?: { address: Uint8Array; topics: Uint8Array[] }[] },
  height: number,
  txIndex: number,
  firstLogIndex: number,
  cumulativeBefore: bigint,
): Promise<MinedTx> {
  const raw = Buffer.from(
    (
      await wallet.signTransaction({
        type: 2,
        chainId: CHAIN_ID,
        nonce,
        to: '0x' + '22'.repeat(20),
        gasLimit: 100_000,
        maxFeePerGas: 2_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
      })
    ).slice(2),
    'hex',
  );
  const txHash = Buffer.from(keccak256(raw).slice(2), 'hex');
  const logs: LogView[] = (opts.logs ?? []).map((l, i) => ({
    address: l.address,
    topics: l.topics,
    data: new Uint8Array([i]),
    logIndex: firstLogIndex + i,
    txIndex,
    txHash,
  }));
  const receipt: ReceiptView = {
    txHash,
    txIndex,
    from: FROM,
    to: bytes(0x22, 20),
    contractAddress: null,
    status: opts.status,
    gasUsed: opts.gasUsed,
    cumulativeGasUsed: cumulativeBefore + opts.gasUsed,
    effectiveGasPrice: 1_500_000_000n,
    type: 2,
    logs,
    logsBloom: logs.length ? bytes(0x0f, 256) : EMPTY_BLOOM,
  };
  void height;
  return { raw, receipt };
}

function cosmosTx(
  seed: number,
  code: number,
  gasUsed: bigint,
  transfers: { to: number; amount: bigint }[],
  logs: { address: Uint8Array; topics: Uint8Array[]; data: Uint8Array }[] = [],
): CosmosTxView {
  const from = bytes(0x30 + seed, 20);
  return {
    hash: sha(bytes(seed, 8)),
    from,
    to: transfers.length ? bytes(transfers[0].to, 20) : null,
    nonce: BigInt(seed),
    gasLimit: 200_000n,
    fee: 300n * 10n ** 12n,
    code,
    gasUsed,
    logs,
    logsBloom: logs.length ? bytes(0xf0, 256) : EMPTY_BLOOM,
    transfers: transfers.map((t) => ({ from, to: bytes(t.to, 20), amount: t.amount })),
  };
}

interface MemBlock {
  height: number;
  hash: Uint8Array;
  evm: MinedTx[];
  order: BlockTxRef[];
}

class MemChain implements ChainReader {
  readonly chainId = CHAIN_ID;
  readonly coinbase = bytes(0xcc, 20);
  blocks = new Map<number, MemBlock>();
  latest = 0;
  latestHeight() {
    return this.latest;
  }
  earliestBlockHeight() {
    return 0;
  }
  earliestStateHeight() {
    return 0;
  }
  ctx(h: number) {
    const b = this.blocks.get(h);
    return b ? { height: h, hash: b.hash, timestamp: 1_700_000_000 + h } : undefined;
  }
  async block(h: number) {
    const b = this.blocks.get(h);
    if (!b) return undefined;
    return {
      ...this.ctx(h)!,
      parentHash: bytes(h - 1, 32),
      stateRoot: bytes(0x55, 32),
      miner: bytes(0x66, 20),
      gasLimit: 30_000_000n,
      baseFeePerGas: 1_000_000_000n,
      logsBloom: b.evm.some((t) => t.receipt.logs.length) ? bytes(0x0f, 256) : EMPTY_BLOOM,
      size: 1000,
      txs: b.evm,
    };
  }
  blockContext(h: number) {
    return this.ctx(h);
  }
  heightByHash(hash: Uint8Array) {
    for (const b of this.blocks.values()) if (Buffer.compare(b.hash, hash) === 0) return b.height;
    return undefined;
  }
  txLocation(hash: Uint8Array) {
    for (const b of this.blocks.values())
      for (const [i, t] of b.evm.entries())
        if (Buffer.compare(t.receipt.txHash, hash) === 0) return { height: b.height, evmIndex: i };
    return undefined;
  }
  receipt(h: number, i: number) {
    return this.blocks.get(h)?.evm[i]?.receipt;
  }
  receipts(h: number) {
    return this.blocks.get(h)?.evm.map((t) => t.receipt);
  }
  minedTx(h: number, i: number) {
    return this.blocks.get(h)?.evm[i];
  }
  getLogs(s: LogSearch) {
    const logs: LogMatch[] = [];
    for (let h = s.fromBlock; h <= s.toBlock; h++) {
      const b = this.blocks.get(h);
      for (const t of b?.evm ?? [])
        for (const l of t.receipt.logs) {
          if (s.addresses.length && !s.addresses.some((a) => Buffer.compare(a, l.address) === 0)) continue;
          if (
            s.topics.some(
              (alts, i) =>
                alts && !alts.some((x) => Buffer.compare(x, l.topics[i] ?? new Uint8Array()) === 0),
            )
          )
            continue;
          logs.push({ ...l, blockHeight: h, blockHash: b!.hash });
        }
    }
    return { logs, limitExceeded: logs.length > s.limit };
  }
  stateAt(): never {
    throw new Error('not used');
  }
  async nextBaseFee() {
    return 1_000_000_000n;
  }
}

const noEvents: ChainEvents = { onBlock: () => () => {}, onPendingTx: () => () => {} };

async function fixture(t: { after(fn: () => void): void }) {
  const chain = new MemChain();
  const LOG_ADDR = bytes(0x77, 20);
  // Block 1, in block order: A (EVM, one log), C1 (Cosmos, two sends, one synthetic log), B (EVM,
  // reverted), D (EVM, included but failed before execution), C2 (Cosmos, its send failed).
  const A = await evmTx(
    0,
    { status: 1, gasUsed: 30_000n, logs: [{ address: LOG_ADDR, topics: [TOPIC] }] },
    1,
    0,
    0,
    0n,
  );
  const B = await evmTx(1, { status: 0, gasUsed: 25_000n }, 1, 1, 1, 30_000n);
  const D = await evmTx(2, { status: 0, gasUsed: 0n }, 1, 2, 1, 55_000n);
  const C1 = cosmosTx(
    1,
    0,
    60_000n,
    [
      { to: 0x41, amount: 5n },
      { to: 0x42, amount: 7n },
    ],
    [{ address: LOG_ADDR, topics: [OTHER_TOPIC], data: new Uint8Array([9]) }],
  );
  const C2 = cosmosTx(2, 5, 40_000n, [{ to: 0x43, amount: 1_000n }]);
  chain.blocks.set(1, {
    height: 1,
    hash: bytes(0xb1, 32),
    evm: [A, B, D],
    order: [
      { kind: 'evm', evmIndex: 0, failedBeforeExecution: false },
      { kind: 'cosmos', tx: C1 },
      { kind: 'evm', evmIndex: 1, failedBeforeExecution: false },
      { kind: 'evm', evmIndex: 2, failedBeforeExecution: true },
      { kind: 'cosmos', tx: C2 },
    ],
  });
  chain.latest = 1;
  const traced: number[] = [];
  const backend: SyntheticBackend = {
    chain,
    options: { clientVersion: 'test', maxBlocksForLog: 100, maxLogNoBlock: 100 },
    async blockTxs(h) {
      return chain.blocks.get(h)?.order;
    },
    cosmosTxLocation(hash) {
      for (const b of chain.blocks.values())
        for (const r of b.order)
          if (r.kind === 'cosmos' && Buffer.compare(r.tx.hash, hash) === 0) return { height: b.height };
      return undefined;
    },
    syntheticLogHeights(from, to) {
      const out: number[] = [];
      for (let h = from; h <= to; h++)
        if (chain.blocks.get(h)?.order.some((r) => r.kind === 'cosmos' && r.tx.logs.length)) out.push(h);
      return out;
    },
  };
  const filters = new FilterStore(noEvents, { timeoutMs: 60_000, maxFilters: 10 });
  t.after(() => filters.close());
  const withTracer: SyntheticBackend = {
    ...backend,
    tracer: {
      parseConfig(v) {
        if (typeof v !== 'object' || v === null || Array.isArray(v))
          throw new CodecError('want a TraceConfig object');
        return v;
      },
      async traceBlock(h) {
        traced.push(h);
        return chain.blocks.get(h)!.evm.map((t) => ({ txHash: hx(t.receipt.txHash), result: { gas: 1 } }));
      },
    },
  };
  const d = new Dispatcher(syntheticLegacyMethods(backend, { filters }));
  const traceD = new Dispatcher(syntheticLegacyMethods(withTracer));
  let id = 0;
  const call = async (m: string, ...params: unknown[]) => {
    const r = await d.handle({ jsonrpc: '2.0', id: ++id, method: m, params });
    assert.equal(r?.error, undefined, `${m}: ${JSON.stringify(r?.error)}`);
    return r!.result as any;
  };
  const fail = async (m: string, ...params: unknown[]) => {
    const r = await d.handle({ jsonrpc: '2.0', id: ++id, method: m, params });
    assert.ok(r?.error, `${m} should fail`);
    return r!.error!;
  };
  const traceCall = (m: string, ...params: unknown[]) =>
    traceD.handle({ jsonrpc: '2.0', id: ++id, method: m, params });
  return { chain, A, B, D, C1, C2, LOG_ADDR, call, fail, traceCall, traced };
}

test('chain_, chain2_ and ExcludeTraceFail blocks list their entries in block order with their own indices', async (t) => {
  const { A, B, D, C1, C2, call } = await fixture(t);
  const h = (m: MinedTx) => hx(m.receipt.txHash);
  const bank = (c: CosmosTxView, i: number) => hx(sha(c.hash, u32(i)));
  const chainList = [h(A), hx(C1.hash), h(B), h(D), hx(C2.hash)];
  const chain2List = [h(A), hx(C1.hash), bank(C1, 0), bank(C1, 1), h(B), h(D), hx(C2.hash), bank(C2, 0)];
  const etfList = [h(A), h(B)];
  const etf2List = [h(A), bank(C1, 0), bank(C1, 1), h(B)];
  const blockHash = hx(bytes(0xb1, 32));
  for (const [m, list] of [
    ['chain_getBlockByNumber', chainList],
    ['chain2_getBlockByNumber', chain2List],
    ['chain_getBlockByNumberExcludeTraceFail', etfList],
    ['chain2_getBlockByNumberExcludeTraceFail', etf2List],
  ] as const) {
    assert.deepEqual((await call(m, '0x1', false)).transactions, list, m);
    const byHash = m.replace('ByNumber', 'ByHash');
    assert.deepEqual((await call(byHash, blockHash, false)).transactions, list, byHash);
    const full = (await call(m, '0x1', true)).transactions;
    assert.deepEqual(
      full.map((x: any) => [x.hash, x.transactionIndex]),
      list.map((x, i) => [x, q(i)]),
      `${m} full`,
    );
  }
  assert.equal(await call('chain_getBlockTransactionCountByNumber', '0x1'), '0x5');
  assert.equal(await call('chain_getBlockTransactionCountByHash', blockHash), '0x5');
  assert.equal(await call('chain2_getBlockTransactionCountByNumber', '0x1'), '0x8');
  assert.equal(await call('chain2_getBlockTransactionCountByHash', blockHash), '0x8');
  assert.equal(await call('chain_getBlockByNumber', '0x2', false), null);
  assert.equal(await call('chain_getBlockTransactionCountByNumber', '0x2'), null);

  const block = await call('chain_getBlockByNumber', '0x1', false);
  // gas over the combined list: A 30k + C1 60k + B 25k + D 0 + C2 40k
  assert.equal(block.gasUsed, q(155_000n));
  assert.equal(block.hash, blockHash);
  assert.equal((await call('chain_getBlockByNumberExcludeTraceFail', '0x1', false)).gasUsed, q(55_000n));

  const full2 = (await call('chain2_getBlockByNumber', '0x1', true)).transactions;
  assert.deepEqual(full2[1], {
    blockHash,
    blockNumber: '0x1',
    blockTimestamp: q(1_700_000_001),
    from: hx(C1.from),
    gas: q(200_000),
    gasPrice: q(1_500_000_000n),
    hash: hx(C1.hash),
    input: '0x',
    nonce: '0x1',
    to: hx(bytes(0x41, 20)),
    transactionIndex: '0x1',
    value: '0x0',
    type: '0xffffffff',
    chainId: q(CHAIN_ID),
    v: '0x0',
    r: '0x0',
    s: '0x0',
  });
  assert.deepEqual(
    full2.slice(2, 4).map((x: any) => [x.from, x.to, x.value, x.gas, x.type]),
    [
      [hx(C1.from), hx(bytes(0x41, 20)), q(5n * 10n ** 12n), '0x0', '0xffffffff'],
      [hx(C1.from), hx(bytes(0x42, 20)), q(7n * 10n ** 12n), '0x0', '0xffffffff'],
    ],
  );
  assert.equal(full2[7].value, q(1_000n * 10n ** 12n));
  assert.equal(full2[4].transactionIndex, '0x4', 'B after the two bank entries');
});

test('receipts: combined indices, cumulative gas and log numbering; shell receipts; ExcludeTraceFail receipt refuses the failed txs', async (t) => {
  const { A, B, D, C1, C2, LOG_ADDR, call, fail } = await fixture(t);
  const receipts = await call('chain_getBlockReceipts', '0x1');
  assert.deepEqual(
    receipts.map((r: any) => [r.transactionHash, r.transactionIndex, r.cumulativeGasUsed, r.status, r.type]),
    [
      [hx(A.receipt.txHash), '0x0', q(30_000), '0x1', '0x2'],
      [hx(C1.hash), '0x1', q(90_000), '0x1', '0xffffffff'],
      [hx(B.receipt.txHash), '0x2', q(115_000), '0x0', '0x2'],
      [hx(D.receipt.txHash), '0x3', q(115_000), '0x0', '0x2'],
      [hx(C2.hash), '0x4', q(155_000), '0x0', '0xffffffff'],
    ],
  );
  assert.deepEqual(receipts[1], {
    blockHash: hx(bytes(0xb1, 32)),
    blockNumber: '0x1',
    contractAddress: null,
    cumulativeGasUsed: q(90_000),
    effectiveGasPrice: q(1_500_000_000n),
    from: hx(C1.from),
    gasUsed: q(60_000),
    logs: [
      {
        address: hx(LOG_ADDR),
        topics: [hx(OTHER_TOPIC)],
        data: '0x09',
        blockNumber: '0x1',
        transactionHash: hx(C1.hash),
        transactionIndex: '0x1',
        blockHash: hx(bytes(0xb1, 32)),
        blockTimestamp: q(1_700_000_001),
        logIndex: '0x1',
        removed: false,
      },
    ],
    logsBloom: hx(bytes(0xf0, 256)),
    status: '0x1',
    to: hx(bytes(0x41, 20)),
    transactionHash: hx(C1.hash),
    transactionIndex: '0x1',
    type: '0xffffffff',
  });
  assert.deepEqual(
    (await call('chain2_getBlockReceipts', '0x1')).map((r: any) => [r.transactionIndex, r.gasUsed, r.status]),
    [
      ['0x0', q(30_000), '0x1'],
      ['0x1', q(60_000), '0x1'],
      ['0x2', '0x0', '0x1'],
      ['0x3', '0x0', '0x1'],
      ['0x4', q(25_000), '0x0'],
      ['0x5', '0x0', '0x0'],
      ['0x6', q(40_000), '0x0'],
      ['0x7', '0x0', '0x0'],
    ],
  );

  // single lookups agree with the block lists
  for (const [i, hash] of [
    A.receipt.txHash,
    C1.hash,
    B.receipt.txHash,
    D.receipt.txHash,
    C2.hash,
  ].entries()) {
    assert.deepEqual(await call('chain_getTransactionReceipt', hx(hash)), receipts[i]);
    const tx = await call('chain_getTransactionByHash', hx(hash));
    assert.equal(tx.transactionIndex, q(i));
    assert.deepEqual(await call('chain_getTransactionByBlockNumberAndIndex', '0x1', q(i)), tx);
    assert.deepEqual(await call('chain_getTransactionByBlockHashAndIndex', hx(bytes(0xb1, 32)), q(i)), tx);
  }
  assert.equal(await call('chain_getTransactionByBlockNumberAndIndex', '0x1', '0x5'), null);
  assert.equal(await call('chain_getTransactionByHash', hx(bytes(0x99, 32))), null);
  assert.equal(await call('chain_getTransactionReceipt', hx(bytes(0x99, 32))), null);

  const etfA = await call('chain_getTransactionReceiptExcludeTraceFail', hx(A.receipt.txHash));
  assert.equal(etfA.transactionIndex, '0x0');
  const etfB = await call('chain_getTransactionReceiptExcludeTraceFail', hx(B.receipt.txHash));
  assert.deepEqual([etfB.transactionIndex, etfB.cumulativeGasUsed, etfB.status], ['0x1', q(55_000), '0x0']);
  for (const hash of [D.receipt.txHash, C2.hash]) {
    const err = await fail('chain_getTransactionReceiptExcludeTraceFail', hx(hash));
    assert.equal(err.code, -32000);
    assert.equal(
      err.message,
      `transaction ${hx(hash)} was included in block 1 but failed before execution (nonce consumed, nothing executed), so it has no trace`,
    );
  }
  // an executed Cosmos tx is a synthetic entry, which ExcludeTraceFail views leave out
  assert.equal(await call('chain_getTransactionReceiptExcludeTraceFail', hx(C1.hash)), null);
});

test('chain_getLogs and chain_ filters: EVM and synthetic logs numbered over the combined list; a filter table of their own', async (t) => {
  const { chain, A, C1, LOG_ADDR, call, fail } = await fixture(t);
  const logs = await call('chain_getLogs', { fromBlock: '0x1', toBlock: '0x1' });
  assert.deepEqual(
    logs.map((l: any) => [l.transactionHash, l.transactionIndex, l.logIndex, l.topics[0]]),
    [
      [hx(A.receipt.txHash), '0x0', '0x0', hx(TOPIC)],
      [hx(C1.hash), '0x1', '0x1', hx(OTHER_TOPIC)],
    ],
  );
  assert.deepEqual(
    (await call('chain_getLogs', { blockHash: hx(bytes(0xb1, 32)), topics: [hx(OTHER_TOPIC)] })).map(
      (l: any) => l.transactionHash,
    ),
    [hx(C1.hash)],
  );
  assert.deepEqual(await call('chain_getLogs', { address: hx(bytes(0x01, 20)) }), []);
  assert.equal(
    (await fail('chain_getLogs', { fromBlock: '0x2', toBlock: '0x1' })).message,
    'invalid block range params: fromBlock 2 is after toBlock 1',
  );

  const logFilter = await call('chain_newFilter', { address: hx(LOG_ADDR) });
  const blockFilter = await call('chain_newBlockFilter');
  assert.deepEqual(await call('chain_getFilterChanges', logFilter), []);
  assert.deepEqual(await call('chain_getFilterLogs', logFilter), logs);
  // block 2: one Cosmos tx with a synthetic log, then one EVM tx with a log
  const E = await evmTx(
    3,
    { status: 1, gasUsed: 21_000n, logs: [{ address: LOG_ADDR, topics: [TOPIC] }] },
    2,
    0,
    0,
    0n,
  );
  const C3 = cosmosTx(
    3,
    0,
    50_000n,
    [{ to: 0x44, amount: 1n }],
    [{ address: LOG_ADDR, topics: [TOPIC], data: new Uint8Array() }],
  );
  chain.blocks.set(2, {
    height: 2,
    hash: bytes(0xb2, 32),
    evm: [E],
    order: [
      { kind: 'cosmos', tx: C3 },
      { kind: 'evm', evmIndex: 0, failedBeforeExecution: false },
    ],
  });
  chain.latest = 2;
  assert.deepEqual(
    (await call('chain_getFilterChanges', logFilter)).map((l: any) => [
      l.blockNumber,
      l.transactionHash,
      l.transactionIndex,
      l.logIndex,
    ]),
    [
      ['0x2', hx(C3.hash), '0x0', '0x0'],
      ['0x2', hx(E.receipt.txHash), '0x1', '0x1'],
    ],
  );
  assert.deepEqual(await call('chain_getFilterChanges', logFilter), []);
  assert.deepEqual(await call('chain_getFilterChanges', blockFilter), [hx(bytes(0xb2, 32))]);
  assert.equal(await call('chain_uninstallFilter', blockFilter), true);
  assert.equal(await call('chain_uninstallFilter', blockFilter), false);
  assert.equal((await fail('chain_getFilterChanges', blockFilter)).message, 'filter not found');
  assert.equal((await fail('chain_getFilterLogs', '0x1234')).message, 'filter not found');
});

test('chain_traceBlockBy*ExcludeTraceFail: the debug tracer’s answer without the failed txs; a clear error without a tracer', async (t) => {
  const { A, B, call, fail, traceCall, traced } = await fixture(t);
  void call;
  const err = await fail('chain_traceBlockByNumberExcludeTraceFail', '0x1');
  assert.equal(err.code, -32000);
  assert.match(err.message, /^chain_traceBlockByNumberExcludeTraceFail needs the debug block tracer/);
  const r = await traceCall('chain_traceBlockByNumberExcludeTraceFail', '0x1', { tracer: 'callTracer' });
  assert.deepEqual(r?.result, [
    { txHash: hx(A.receipt.txHash), result: { gas: 1 } },
    { txHash: hx(B.receipt.txHash), result: { gas: 1 } },
  ]);
  const byHash = await traceCall('chain_traceBlockByHashExcludeTraceFail', hx(bytes(0xb1, 32)));
  assert.deepEqual(byHash?.result, r?.result);
  assert.deepEqual(traced, [1, 1]);
  const bad = await traceCall('chain_traceBlockByNumberExcludeTraceFail', '0x1', 'callTracer');
  assert.deepEqual(bad?.error, { code: -32602, message: 'invalid argument 1: want a TraceConfig object' });
  const missing = await traceCall('chain_traceBlockByNumberExcludeTraceFail', '0x9');
  assert.equal(missing?.error?.message, 'block #9 not found');
});
