/**
 * The address appearance index (src/storage/blocks/address-index.ts): what a search costs, what the
 * index costs on disk and per block, and what collecting the call-tree addresses costs execution.
 *
 *   npm run bench -- address-index [txs=1000000] [runs=20]
 *   ADDRESS_INDEX_BENCH_PART=store|exec npm run bench -- address-index …   (one half only)
 *
 * (a) A block store of `txs` synthetic EVM txs (blocks of 1,000 plain transfers: sender and recipient
 *     drawn from 100,000 accounts), written through BlockStore.putBlock (the node's write path) with
 *     each tx's nonce as execution hands it over; one address sends every 100th tx (10,000 of 1M).
 *     Figures: `search_before_latest_ms` / `search_before_middle_ms` / `search_after_first_ms`, the
 *     p50 of the query function behind ots_searchTransactions* (BlockStore.appearancesPage for a
 *     page of 25) plus the reads its answer needs (each tx and receipt of the page), without JSON;
 *     `sender_nonce_ms`, the p50 of BlockStore.txBySenderAndNonce for random nonces of that address.
 * (b) `index_bytes_per_tx` (key + value bytes of the entries), `list_bytes_per_tx` (the per-height
 *     address list), the store's LMDB file size per tx (every record of the block, for scale);
 *     `index_build_write_ms_per_block` (building a 1,000-tx block's entries and writing them alone
 *     to an LMDB store); `collect_vs_plain_ratio`: executeBlock of a block of 100 ERC20 transfers on
 *     a real node's state with the beforeMessage collector / without it, runs interleaved.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { Interface, type Wallet } from 'ethers';
import { executeBlock } from '../src/chain/block-execution.ts';
import { stateVersion } from '../src/chain/chain.ts';
import { consensusInfoOfBlock } from '../src/chain/consensus-info.ts';
import { headerHash } from '../src/codec/index.ts';
import { AddressIndexBuilder } from '../src/storage/blocks/address-index.ts';
import { BLOOM_BYTES } from '../src/storage/blocks/bloom.ts';
import { openBlockStore, type Block, type Receipt, type TxAppearances } from '../src/storage/blocks/index.ts';
import { openLmdbStore } from '../src/storage/kv/lmdb.ts';
import { makeCommit, makeHeader, prng } from '../test/unit/storage/blocks/fixtures.ts';
import { benchWallets, bytes, startBenchNode } from './bench-node.ts';
import { percentile, report } from './report.ts';

const BENCH = 'address-index';
const TOTAL = Number(process.argv[3] ?? 1_000_000);
const RUNS = Number(process.argv[4] ?? 20);
const PER_BLOCK = 1_000;
const TARGET_EVERY = 100;
const PAGE = 25;
const GWEI = 10n ** 9n;
const rand = prng(11);
const accounts = Array.from({ length: 100_000 }, (_, i) =>
  keccak_256(Uint8Array.of(2, i >> 16, i >> 8, i)).subarray(12),
);
const TARGET = new Uint8Array(20).fill(0xab);
const ZERO_BLOOM = new Uint8Array(BLOOM_BYTES);
const p50 = (a: number[]) => percentile(a, 50);
const timed = (fn: () => unknown) => {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
};

let targetNonce = 0n;
const nonces = new Map<number, bigint>();

function makeBlock(
  height: number,
  prev: Uint8Array,
): { block: Block; receipts: Receipt[]; seen: TxAppearances[] } {
  const txs: Uint8Array[] = [];
  const receipts: Receipt[] = [];
  const seen: TxAppearances[] = [];
  let cumulative = 0n;
  for (let i = 0; i < PER_BLOCK; i++) {
    const tx = new Uint8Array(110);
    const dv = new DataView(tx.buffer);
    dv.setUint32(0, height);
    dv.setUint32(4, i);
    txs.push(tx);
    const target = ((height - 1) * PER_BLOCK + i) % TARGET_EVERY === 0;
    const s = Math.floor(rand() * accounts.length);
    const from = target ? TARGET : accounts[s];
    const nonce = target ? targetNonce++ : (nonces.get(s) ?? 0n);
    if (!target) nonces.set(s, nonce + 1n);
    cumulative += 21_000n;
    receipts.push({
      txHash: keccak_256(tx),
      txIndex: i,
      blockTxIndex: i,
      from,
      to: accounts[Math.floor(rand() * accounts.length)],
      contractAddress: null,
      status: 1,
      gasUsed: 21_000n,
      cumulativeGasUsed: cumulative,
      effectiveGasPrice: GWEI,
      type: 2,
      logs: [],
      logsBloom: ZERO_BLOOM,
    });
    seen.push({ nonce, created: [], internal: [] });
  }
  const header = makeHeader(height, prev, txs);
  return {
    block: { header, hash: headerHash(header)!, txs, lastCommit: makeCommit(height, prev) },
    receipts,
    seen,
  };
}

async function searchFigures(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'chaind-bench-addr-'));
  try {
    const store = await openBlockStore({ dataDir: dir, sync: false });
    const blocks = Math.ceil(TOTAL / PER_BLOCK);
    let prev: Uint8Array = new Uint8Array(32);
    let indexBytes = 0;
    let listBytes = 0;
    const buildWrite: number[] = [];
    const build: number[] = [];
    const side = await openLmdbStore(join(dir, 'side'), { sync: false });
    const t0 = performance.now();
    for (let h = 1; h <= blocks; h++) {
      const b = makeBlock(h, prev);
      prev = b.block.hash;
      // the index's own bytes and cost, measured apart from the block's other records
      if (h % 50 === 1) {
        const ts = performance.now();
        const builder = new AddressIndexBuilder();
        for (const rc of b.receipts) builder.addTx(h, rc, b.seen[rc.txIndex]);
        const ops = builder.puts(h);
        build.push(performance.now() - ts);
        await side.write(ops);
        buildWrite.push(performance.now() - ts);
        for (const op of ops) {
          const n = op.key.length + (op.type === 'put' ? op.value.length : 0);
          if (op.key[0] === 0x0b) listBytes += n;
          else indexBytes += n;
        }
      }
      await store.putBlock(b.block, b.receipts, [], b.seen);
    }
    await side.close();
    const sampled = Math.ceil(blocks / 50) * PER_BLOCK;
    report(BENCH, 'store_build_s', (performance.now() - t0) / 1000, 's', { txs: blocks * PER_BLOCK, blocks });
    report(BENCH, 'index_bytes_per_tx', indexBytes / sampled, 'B', {
      addresses_per_tx: 2,
      sampled_txs: sampled,
    });
    report(BENCH, 'list_bytes_per_tx', listBytes / sampled, 'B', { sampled_txs: sampled });
    report(BENCH, 'index_with_list_bytes_per_tx', (indexBytes + listBytes) / sampled, 'B');
    report(BENCH, 'index_build_ms_per_block', p50(build), 'ms', { txs_per_block: PER_BLOCK });
    report(BENCH, 'index_build_write_ms_per_block', p50(buildWrite), 'ms', {
      txs_per_block: PER_BLOCK,
      note: 'the entries alone in one LMDB write (sync off)',
    });
    const file = statSync(join(dir, 'blockstore', 'data.mdb')).size;
    report(BENCH, 'blockstore_file_bytes_per_tx', file / (blocks * PER_BLOCK), 'B', {
      note: 'every record of the block: block, receipts, hash indexes and the address index',
    });

    const latest = store.latestHeight()!;
    const answer = (direction: 'before' | 'after', height: number) => {
      const page = store.appearancesPage(TARGET, direction, height, PAGE);
      for (const t of page.txs) {
        const r = store.receipt(t.height, t.txIndex)!;
        store.txAt(t.height, r.blockTxIndex);
      }
      if (page.txs.length < PAGE) throw new Error(`a page of ${page.txs.length} txs`);
    };
    const figures: [string, 'before' | 'after', number][] = [
      ['search_before_latest_ms', 'before', latest + 1],
      ['search_before_middle_ms', 'before', Math.floor(latest / 2)],
      ['search_after_first_ms', 'after', 0],
    ];
    for (const [name, direction, height] of figures) {
      for (let i = 0; i < 3; i++) answer(direction, height);
      const ms = Array.from({ length: RUNS }, () => timed(() => answer(direction, height)));
      report(BENCH, name, p50(ms), 'ms', {
        page: PAGE,
        address_txs: Number(targetNonce),
        total_txs: blocks * PER_BLOCK,
        measured: 'BlockStore.appearancesPage + each tx and receipt of the page, no JSON',
      });
    }
    const pageMs = Array.from({ length: RUNS }, () =>
      timed(() => store.appearancesPage(TARGET, 'before', latest + 1, PAGE)),
    );
    report(BENCH, 'page_only_ms', p50(pageMs), 'ms', {
      page: PAGE,
      measured: 'BlockStore.appearancesPage alone',
    });
    const nonceMs = Array.from({ length: RUNS }, () => {
      const n = BigInt(Math.floor(rand() * Number(targetNonce)));
      return timed(() => {
        if (!store.txBySenderAndNonce(TARGET, n)) throw new Error(`nonce ${n} not found`);
      });
    });
    report(BENCH, 'sender_nonce_ms', p50(nonceMs), 'ms', { address_txs: Number(targetNonce) });
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function collectorFigures(): Promise<void> {
  const artifacts = JSON.parse(
    readFileSync(new URL('../test/fixtures/contracts/artifacts.json', import.meta.url), 'utf8'),
  );
  const token = new Interface(artifacts.TestToken.abi);
  const fee = { chainId: 713714n, type: 2, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: 1n };
  const home = mkdtempSync(join(tmpdir(), 'chaind-bench-addr-exec-'));
  const wallets = benchWallets(101);
  const { node } = await startBenchNode(home, wallets, { 'state-store.ss-async-write-buffer': '0' });
  try {
    const chain = node.modules.chain;
    const mempool = node.modules.mempool;
    const submit = async (w: Wallet, tx: object) => {
      const raw = bytes(await w.signTransaction({ ...fee, ...tx }));
      await mempool.checkTx(raw);
      return chain.decode(raw).hash;
    };
    const deployer = wallets[100];
    let nonce = 0;
    const tokenTx = await submit(deployer, {
      nonce: nonce++,
      gasLimit: 3_000_000,
      data: artifacts.TestToken.bytecode + token.encodeDeploy(['B', 'B', 10n ** 30n]).slice(2),
    });
    await node.modules.engine.producer!.produce();
    const tokenAddress =
      '0x' +
      Buffer.from(node.modules.blocks.receiptByEvmHash(tokenTx)!.receipt.contractAddress!).toString('hex');
    for (let i = 0; i < 100; i++)
      await submit(deployer, {
        nonce: nonce++,
        to: tokenAddress,
        gasLimit: 100_000,
        data: token.encodeFunctionData('transfer', [wallets[i].address, 10n ** 24n]),
      });
    while (mempool.pending() > 0) await node.modules.engine.producer!.produce();
    for (let i = 0; i < 100; i++)
      await submit(wallets[i], {
        nonce: 0,
        to: tokenAddress,
        gasLimit: 100_000,
        data: token.encodeFunctionData('transfer', [wallets[(i + 1) % 100].address, 1n]),
      });
    const block = await node.modules.engine.producer!.produce();
    if (block.txs.length !== 100) throw new Error(`the block holds ${block.txs.length} txs, not 100`);
    const height = block.header.height;
    const read = (await node.modules.ss.syncReaderAt!(stateVersion(height - 1)))!;
    const txs = block.txs.map((raw) => chain.decodeBlockTx(raw));
    const ctx = chain.contextFor({ ...block.header, consensus: consensusInfoOfBlock(block) });
    const run = async (collect: boolean) => {
      const t0 = performance.now();
      const r = await executeBlock(
        chain.common,
        { get: read, stable: true },
        ctx,
        chain.feeParams,
        txs,
        'replay',
        undefined,
        {},
        collect,
      );
      if (collect && r.appearances?.length !== 100) throw new Error('no appearances collected');
      return performance.now() - t0;
    };
    for (let i = 0; i < 3; i++) (await run(true), await run(false));
    const withIt: number[] = [];
    const without: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      withIt.push(await run(true));
      without.push(await run(false));
    }
    report(BENCH, 'execute_block_collect_ms', p50(withIt), 'ms', {
      txs: 100,
      kind: 'erc20 transfer',
      runs: RUNS,
    });
    report(BENCH, 'execute_block_plain_ms', p50(without), 'ms', {
      txs: 100,
      kind: 'erc20 transfer',
      runs: RUNS,
    });
    report(BENCH, 'collect_vs_plain_ratio', p50(withIt) / p50(without), 'x', { txs: 100 });
  } finally {
    await node.stop();
    rmSync(home, { recursive: true, force: true });
  }
}

// ADDRESS_INDEX_BENCH_PART=store|exec runs one half
const part = process.env.ADDRESS_INDEX_BENCH_PART;
if (part !== 'exec') await searchFigures();
if (part !== 'store') await collectorFigures();
