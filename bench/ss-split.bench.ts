/**
 * Split write amplification: the same EVM-heavy block stream (ERC20 transfers: per transaction two
 * balance slots and the sender's nonce in the `evm` store, the fee debit in `bank`) is written with
 * evm-ss-split off and on; reports bytes written to the Cosmos SS per block in each case (logical
 * bytes handed to the engine, and the Cosmos SS directory's size on disk), and the EVM share of the
 * stream the split should remove.
 *
 *   npm run bench -- ss-split [lmdb|rocksdb] [--quick]
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLmdbStore } from '../src/storage/kv/lmdb.ts';
import { openRocksStore } from '../src/storage/kv/rocksdb.ts';
import type { KVOp, KVOpener, KVStore } from '../src/storage/kv/types.ts';
import { EVM_KEY_PREFIX, openStateStore, type StoreChange } from '../src/storage/ss/index.ts';
import { silentLogger } from '../src/util/logger.ts';
import { report } from './report.ts';

const args = process.argv.slice(3);
const engines = (['lmdb', 'rocksdb'] as const).filter(
  (e) => !args.some((a) => a === 'lmdb' || a === 'rocksdb') || args.includes(e),
);
const BLOCKS = args.includes('--quick') ? 100 : 500;
const TXS_PER_BLOCK = 200;
const ACCOUNTS = 5_000;
const BENCH = 'ss-split';

function address(i: number): Uint8Array {
  const a = new Uint8Array(20);
  new DataView(a.buffer).setUint32(0, Math.imul(i + 1, 2654435761) >>> 0);
  new DataView(a.buffer).setUint32(16, i);
  return a;
}
const TOKEN = address(999_999);

function evmKey(prefix: number, ...parts: Uint8Array[]): Uint8Array {
  const len = parts.reduce((n, p) => n + p.length, 1);
  const k = new Uint8Array(len);
  k[0] = prefix;
  let o = 1;
  for (const p of parts) (k.set(p, o), (o += p.length));
  return k;
}

function slotOf(holder: number): Uint8Array {
  const s = new Uint8Array(32);
  s.set(address(holder), 12);
  return s;
}

/** One block of ERC20 transfers; deterministic in the block number. */
function block(n: number): StoreChange[] {
  const changes: StoreChange[] = [];
  const amount = new Uint8Array(32);
  for (let t = 0; t < TXS_PER_BLOCK; t++) {
    const from = (n * 7919 + t * 104729) % ACCOUNTS;
    const to = (from + 1 + ((t * 31) % (ACCOUNTS - 1))) % ACCOUNTS;
    new DataView(amount.buffer).setUint32(28, n * TXS_PER_BLOCK + t);
    changes.push(
      { store: 'evm', key: evmKey(EVM_KEY_PREFIX.storage, TOKEN, slotOf(from)), value: amount.slice() },
      { store: 'evm', key: evmKey(EVM_KEY_PREFIX.storage, TOKEN, slotOf(to)), value: amount.slice() },
      {
        store: 'evm',
        key: evmKey(EVM_KEY_PREFIX.nonce, address(from)),
        value: Uint8Array.of(0, 0, 0, n & 0xff),
      },
      {
        store: 'bank',
        key: Uint8Array.of(0x02, ...address(from), ...new TextEncoder().encode('usei')),
        value: amount.slice(16),
      },
    );
  }
  changes.push({ store: 'bank', key: Uint8Array.of(0x02, 0xfe, 0xe0), value: amount.slice(16) }); // fee collector
  return changes;
}

function dirSize(path: string): number {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const p = join(path, entry.name);
    total += entry.isDirectory() ? dirSize(p) : statSync(p).size;
  }
  return total;
}

/** Wraps an engine to count the bytes of every key and value written to databases under `watch`. */
function counting(open: KVOpener, watch: string, counter: { bytes: number }): KVOpener {
  return async (path, options) => {
    const kv = await open(path, options);
    if (!path.startsWith(watch)) return kv;
    const write = kv.write.bind(kv);
    const wrapped: KVStore = Object.create(kv);
    wrapped.write = (ops: KVOp[]) => {
      for (const op of ops) counter.bytes += op.key.length + (op.type === 'put' ? op.value.length : 0);
      return write(ops);
    };
    return wrapped;
  };
}

for (const engine of engines) {
  const streamBytes = { evm: 0, other: 0 };
  for (let n = 1; n <= BLOCKS; n++) {
    for (const c of block(n))
      streamBytes[c.store === 'evm' ? 'evm' : 'other'] += c.key.length + (c.value?.length ?? 0);
  }
  const evmShare = streamBytes.evm / (streamBytes.evm + streamBytes.other);
  report(BENCH, 'evm_share_of_stream_bytes', evmShare * 100, '%', {
    engine,
    blocks: BLOCKS,
    txsPerBlock: TXS_PER_BLOCK,
  });
  const perBlock: Record<string, number> = {};
  for (const split of [false, true]) {
    const root = mkdtempSync(join(tmpdir(), `ss-split-bench-${engine}-`));
    try {
      const cosmosDir = join(root, engine === 'rocksdb' ? 'rocksdb' : 'pebbledb');
      const counter = { bytes: 0 };
      const base: KVOpener = engine === 'rocksdb' ? openRocksStore : openLmdbStore;
      const ss = await openStateStore(
        {
          dataDir: root,
          backend: engine === 'rocksdb' ? 'rocksdb' : 'pebbledb',
          asyncWriteBuffer: 0,
          keepRecent: 0,
          evmSplit: split,
          evmSeparateDbs: split,
          sync: false,
          openEngine: counting(base, cosmosDir, counter),
        },
        silentLogger,
      );
      const started = performance.now();
      for (let n = 1; n <= BLOCKS; n++) await ss.applyChangeSet(n, block(n));
      const seconds = (performance.now() - started) / 1000;
      await ss.close();
      const labels = { engine, split, blocks: BLOCKS };
      perBlock[String(split)] = counter.bytes / BLOCKS;
      report(BENCH, 'cosmos_ss_bytes_written_per_block', counter.bytes / BLOCKS, 'bytes', labels);
      report(BENCH, 'cosmos_ss_disk_bytes_per_block', dirSize(cosmosDir) / BLOCKS, 'bytes', labels);
      report(BENCH, 'blocks_per_sec', BLOCKS / seconds, 'blocks/s', {
        ...labels,
        writesPerBlock: TXS_PER_BLOCK * 4 + 1,
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
  report(BENCH, 'cosmos_ss_bytes_reduction', (1 - perBlock['true'] / perBlock['false']) * 100, '%', {
    engine,
  });
}
