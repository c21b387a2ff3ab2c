/**
 * Block store benchmarks (src/storage/blocks):
 *   - putBlock: blocks of 1,000 EVM receipts with ~2 ERC-20 style logs each (Transfer/Approval from
 *     100 token contracts between 100k accounts) plus 50 Cosmos txs; blocks/s, receipts/s, p50/p99
 *   - getLogs over 100 and 2,000 blocks: matching nothing (unknown address), one address (a contract
 *     that logs in every 20th block), a topic present once in every block
 *   - receiptByEvmHash: ops/s on random hashes of the stored blocks
 *
 *   npm run bench -- blocks [--quick]
 * --quick stores 200 blocks instead of 2,000 (the 2,000-block getLogs figures are then skipped).
 * Writes use sync: false (BLOCKS_BENCH_SYNC=1 for fsync per block): the figures measure the store.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { headerHash } from '../src/codec/index.ts';
import { bloomAddProbe, bloomProbe, BLOOM_BYTES, type BloomProbe } from '../src/storage/blocks/bloom.ts';
import {
  openBlockStore,
  type Block,
  type Log,
  type LogQuery,
  type Receipt,
} from '../src/storage/blocks/index.ts';
import { makeCommit, makeHeader, prng, tempDir } from '../test/unit/storage/blocks/fixtures.ts';
import { percentile, report } from './report.ts';

const BENCH = 'blocks';
const quick = process.argv.includes('--quick');
const sync = process.env.BLOCKS_BENCH_SYNC === '1';
const BLOCKS = Number(process.env.BLOCKS_BENCH_BLOCKS ?? (quick ? 200 : 2_000));
const RECEIPTS = 1_000;
const COSMOS_TXS = 50;

const rand = prng(7);
const word = (b: Uint8Array) => {
  const w = new Uint8Array(32);
  w.set(b, 32 - b.length);
  return w;
};
const TRANSFER = keccak_256(new TextEncoder().encode('Transfer(address,address,uint256)'));
const APPROVAL = keccak_256(new TextEncoder().encode('Approval(address,address,uint256)'));
const EVERY_BLOCK = keccak_256(new TextEncoder().encode('Sync(uint112,uint112)'));
const tokens = Array.from({ length: 100 }, (_, i) => keccak_256(Uint8Array.of(1, i)).subarray(12));
const accounts = Array.from({ length: 100_000 }, (_, i) =>
  word(keccak_256(Uint8Array.of(2, i >> 16, i >> 8, i)).subarray(12)),
);
const RARE = keccak_256(Uint8Array.of(3)).subarray(12);
const UNKNOWN = new Uint8Array(20).fill(0xee);

// The execution layer hands receipts over with their blooms; caching item probes keeps generation cheap.
const probes = new Map<Uint8Array, BloomProbe>();
const probeOf = (b: Uint8Array) => {
  let p = probes.get(b);
  if (!p) probes.set(b, (p = bloomProbe(b)));
  return p;
};

function makeBenchBlock(height: number, prev: Uint8Array): { block: Block; receipts: Receipt[] } {
  const txs: Uint8Array[] = [];
  const receipts: Receipt[] = [];
  let logIndex = 0;
  let cumulative = 0n;
  const everyAt = Math.floor(rand() * RECEIPTS);
  for (let i = 0; i < RECEIPTS + COSMOS_TXS; i++) {
    const tx = new Uint8Array(110);
    const dv = new DataView(tx.buffer);
    dv.setUint32(0, height);
    dv.setUint32(4, i);
    for (let k = 8; k < 24; k++) tx[k] = (rand() * 256) | 0;
    txs.push(tx);
    if (i >= RECEIPTS) continue;
    const txHash = keccak_256(tx);
    const logs: Log[] = [];
    const nLogs = 1 + Math.floor(rand() * 3); // 1..3, mean 2
    for (let l = 0; l < nLogs; l++) {
      const rare = i === 0 && height % 20 === 0 && l === 0;
      const every = i === everyAt && l === 0;
      logs.push({
        address: rare ? RARE : tokens[Math.floor(rand() * tokens.length)],
        topics: [
          every ? EVERY_BLOCK : rand() < 0.8 ? TRANSFER : APPROVAL,
          accounts[Math.floor(rand() * accounts.length)],
          accounts[Math.floor(rand() * accounts.length)],
        ],
        data: word(Uint8Array.of(i, l)),
        logIndex: logIndex++,
        txIndex: i,
        txHash,
      });
    }
    const bloom = new Uint8Array(BLOOM_BYTES);
    for (const log of logs) {
      bloomAddProbe(bloom, probeOf(log.address));
      for (const t of log.topics) bloomAddProbe(bloom, probeOf(t));
    }
    const gasUsed = 50_000n;
    cumulative += gasUsed;
    receipts.push({
      txHash,
      txIndex: i,
      blockTxIndex: i,
      from: accounts[i % accounts.length].subarray(12),
      to: tokens[i % tokens.length],
      contractAddress: null,
      status: 1,
      gasUsed,
      cumulativeGasUsed: cumulative,
      effectiveGasPrice: 1_000_000_000n,
      type: 2,
      logs,
      logsBloom: bloom,
    });
  }
  const header = makeHeader(height, prev, txs);
  return {
    block: { header, hash: headerHash(header)!, txs, lastCommit: makeCommit(height, prev) },
    receipts,
  };
}

const dir = tempDir('blocks-bench-');
try {
  const store = await openBlockStore({ dataDir: dir.path, sync });
  const putMs: number[] = [];
  // CPU time (all threads of this process) as well as wall time: on a shared machine the wall
  // figure includes waiting for a core.
  const putCpuMs: number[] = [];
  const sampleHashes: Uint8Array[] = [];
  let prev: Uint8Array = new Uint8Array(32);
  for (let h = 1; h <= BLOCKS; h++) {
    const { block, receipts } = makeBenchBlock(h, prev);
    prev = block.hash;
    for (let k = 0; k < 20; k++) sampleHashes.push(receipts[Math.floor(rand() * receipts.length)].txHash);
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    await store.putBlock(block, receipts);
    const cpu = process.cpuUsage(c0);
    putMs.push(performance.now() - t0);
    putCpuMs.push((cpu.user + cpu.system) / 1000);
  }
  const totalSec = putMs.reduce((a, b) => a + b, 0) / 1000;
  const labels = { receiptsPerBlock: RECEIPTS, logsPerReceipt: 2, blocks: BLOCKS, sync };
  report(BENCH, 'put_block_blocks_per_sec', BLOCKS / totalSec, 'blocks/s', labels);
  report(BENCH, 'put_block_receipts_per_sec', (BLOCKS * RECEIPTS) / totalSec, 'receipts/s', labels);
  report(BENCH, 'put_block_p50', percentile(putMs, 50), 'ms', labels);
  report(BENCH, 'put_block_p99', percentile(putMs, 99), 'ms', labels);
  report(BENCH, 'put_block_cpu_p50', percentile(putCpuMs, 50), 'ms', labels);
  // allocated bytes of the LMDB file (it is sparse: its apparent size is the map size)
  const allocated = statSync(join(dir.path, 'blockstore', 'data.mdb')).blocks * 512;
  report(BENCH, 'disk_bytes_per_receipt', allocated / (BLOCKS * RECEIPTS), 'bytes', labels);

  const queries: [string, Omit<LogQuery, 'fromBlock' | 'toBlock'>][] = [
    ['nothing', { addresses: [UNKNOWN] }],
    ['one_address', { addresses: [RARE] }],
    ['topic_every_block', { topics: [[EVERY_BLOCK]] }],
  ];
  for (const span of [100, 2_000]) {
    if (span > BLOCKS) continue;
    for (const [name, filter] of queries) {
      const q = { ...filter, fromBlock: BLOCKS - span + 1, toBlock: BLOCKS };
      const first = store.getLogs(q);
      const runs = 20;
      const ms: number[] = [];
      for (let i = 0; i < runs; i++) {
        const t0 = performance.now();
        store.getLogs(q);
        ms.push(performance.now() - t0);
      }
      report(BENCH, `get_logs_${span}_blocks_${name}_p50`, percentile(ms, 50), 'ms', {
        blocks: span,
        logs: first.logs.length,
        limitExceeded: first.limitExceeded,
      });
    }
  }

  const n = 200_000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    if (!store.receiptByEvmHash(sampleHashes[i % sampleHashes.length])) throw new Error('receipt missing');
  }
  report(BENCH, 'receipt_by_evm_hash', n / ((performance.now() - t0) / 1000), 'ops/s', { blocks: BLOCKS });
  await store.close();
} finally {
  dir.remove();
}
