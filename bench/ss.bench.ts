/**
 * State Store benchmarks, per engine (lmdb = the default `pebbledb` backend, and RocksDB):
 *   - versioned writes/s: 1M writes, 1,000 keys per version, keys reused across versions
 *   - get at the latest version and at random historical versions: ops/s, p50, p99
 *   - read p99 with 10k vs 100k versions of history (should stay flat)
 *   - prune: worst delete-batch time, and p99/max latency of writes and reads while pruning
 *
 *   npm run bench -- ss [lmdb|rocksdb] [--quick]
 * Wall-clock throughput figures come with a per-CPU-second twin (process CPU time, all threads), which
 * stays meaningful when other work shares the machine. Data lives in a temp directory that is removed
 * afterwards. Databases are opened with sync off (`sync: false`) unless SS_BENCH_SYNC=1: the figures
 * measure the store, not the disk's fsync.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  openStateStore,
  type CompositeStateStore,
  type StateStore,
  type StoreChange,
} from '../src/storage/ss/index.ts';
import { silentLogger } from '../src/util/logger.ts';
import { percentile, report } from './report.ts';

const args = process.argv.slice(3);
const engines = (['lmdb', 'rocksdb'] as const).filter(
  (e) => !args.some((a) => a === 'lmdb' || a === 'rocksdb') || args.includes(e),
);
const quick = args.includes('--quick');
const sync = process.env.SS_BENCH_SYNC === '1';
const BENCH = 'ss';

const KEYS_PER_VERSION = 1_000;
const TOTAL_WRITES = quick ? 100_000 : 1_000_000;
const KEY_POOL = 20_000;

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 33-byte keys (prefix + 32 bytes), like an address+slot: realistic seek depth. */
function makeKey(i: number): Uint8Array {
  const k = new Uint8Array(33);
  k[0] = 0x02;
  new DataView(k.buffer).setUint32(1, Math.imul(i, 2654435761) >>> 0);
  new DataView(k.buffer).setUint32(29, i);
  return k;
}

async function open(engine: string, dataDir: string, asyncWriteBuffer = 0): Promise<CompositeStateStore> {
  return openStateStore(
    {
      dataDir,
      backend: engine === 'rocksdb' ? 'rocksdb' : 'pebbledb',
      asyncWriteBuffer,
      keepRecent: 0,
      sync,
    },
    silentLogger,
  );
}

async function writeVersions(
  ss: StateStore,
  versions: number,
  keysPerVersion: number,
  pool: Uint8Array[],
  rand: () => number,
  from = 1,
) {
  const value = new Uint8Array(32).fill(7);
  for (let v = from; v < from + versions; v++) {
    const changes: StoreChange[] = new Array(keysPerVersion);
    for (let i = 0; i < keysPerVersion; i++)
      changes[i] = { store: 'bank', key: pool[Math.floor(rand() * pool.length)], value };
    await ss.applyChangeSet(v, changes);
  }
}

/**
 * CPU seconds (all threads of this process) since `start`. Other processes on a shared machine slow
 * the wall-clock figures; per-CPU-second figures show the store's own cost.
 */
function cpuSeconds(start: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1e6;
}

/**
 * Reads: throughput from an untimed loop (after a warm-up), latency percentiles from a separate loop
 * that times every call, so the timer calls do not depress the throughput figure.
 */
async function measureReads(
  ss: StateStore,
  pool: Uint8Array[],
  n: number,
  pickVersion: () => number,
  rand: () => number,
) {
  const pick = () => pool[Math.floor(rand() * pool.length)];
  for (let i = 0; i < 10_000; i++) await ss.get('bank', pick(), pickVersion());
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < n; i++) await ss.get('bank', pick(), pickVersion());
  const opsPerSec = n / ((performance.now() - started) / 1000);
  const opsPerCpuSec = n / cpuSeconds(cpu);
  const samples = new Array<number>(Math.min(n, 50_000));
  for (let i = 0; i < samples.length; i++) {
    const key = pick();
    const version = pickVersion();
    const t0 = performance.now();
    await ss.get('bank', key, version);
    samples[i] = performance.now() - t0;
  }
  return {
    opsPerSec,
    opsPerCpuSec,
    p50us: percentile(samples, 50) * 1000,
    p99us: percentile(samples, 99) * 1000,
  };
}

/** Throughput with `inFlight` concurrent readers, as an RPC server under load issues them. */
async function measureConcurrentReads(
  ss: StateStore,
  pool: Uint8Array[],
  n: number,
  pickVersion: () => number,
  rand: () => number,
  inFlight: number,
) {
  let left = n;
  const worker = async () => {
    while (left-- > 0) await ss.get('bank', pool[Math.floor(rand() * pool.length)], pickVersion());
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  return n / ((performance.now() - started) / 1000);
}

for (const engine of engines) {
  const root = mkdtempSync(join(tmpdir(), `ss-bench-${engine}-`));
  try {
    const labels = { engine, sync };
    const rand = rng(42);
    const pool = Array.from({ length: KEY_POOL }, (_, i) => makeKey(i));

    // 1. Versioned writes
    let ss = await open(engine, join(root, 'writes'));
    const versions = TOTAL_WRITES / KEYS_PER_VERSION;
    let t0 = performance.now();
    const writeCpu = process.cpuUsage();
    await writeVersions(ss, versions, KEYS_PER_VERSION, pool, rand);
    const writeSec = (performance.now() - t0) / 1000;
    report(
      BENCH,
      'versioned_writes_per_cpu_sec',
      TOTAL_WRITES / cpuSeconds(writeCpu),
      'writes/cpu-s',
      labels,
    );
    report(BENCH, 'versioned_writes_per_sec', TOTAL_WRITES / writeSec, 'writes/s', {
      ...labels,
      versions,
      keysPerVersion: KEYS_PER_VERSION,
    });

    // 1b. The same writes through the async path (changelog + background group commit), timed
    // until flush() returns, on a separate database; a fifth of the volume to bound the run time.
    {
      const asyncStore = await open(engine, join(root, 'writes-async'), 100);
      const asyncVersions = versions / 5;
      const started = performance.now();
      await writeVersions(asyncStore, asyncVersions, KEYS_PER_VERSION, pool, rand);
      await asyncStore.flush();
      const seconds = (performance.now() - started) / 1000;
      report(
        BENCH,
        'versioned_writes_per_sec_async',
        (asyncVersions * KEYS_PER_VERSION) / seconds,
        'writes/s',
        {
          ...labels,
          versions: asyncVersions,
          keysPerVersion: KEYS_PER_VERSION,
          asyncWriteBuffer: 100,
        },
      );
      await asyncStore.close();
    }

    // 2. Point reads at latest and at random historical versions
    const reads = quick ? 50_000 : 200_000;
    const latest = ss.latestVersion();
    const atLatest = await measureReads(ss, pool, reads, () => latest, rand);
    report(BENCH, 'get_latest_ops_per_sec', atLatest.opsPerSec, 'ops/s', labels);
    report(BENCH, 'get_latest_ops_per_cpu_sec', atLatest.opsPerCpuSec, 'ops/cpu-s', labels);
    report(BENCH, 'get_latest_p50', atLatest.p50us, 'us', labels);
    report(BENCH, 'get_latest_p99', atLatest.p99us, 'us', labels);
    const hist = await measureReads(ss, pool, reads, () => 1 + Math.floor(rand() * latest), rand);
    report(BENCH, 'get_historical_ops_per_sec', hist.opsPerSec, 'ops/s', labels);
    report(BENCH, 'get_historical_ops_per_cpu_sec', hist.opsPerCpuSec, 'ops/cpu-s', labels);
    report(BENCH, 'get_historical_p50', hist.p50us, 'us', labels);
    report(BENCH, 'get_historical_p99', hist.p99us, 'us', labels);
    const concurrent = await measureConcurrentReads(
      ss,
      pool,
      reads,
      () => 1 + Math.floor(rand() * latest),
      rand,
      64,
    );
    report(BENCH, 'get_historical_ops_per_sec_64_in_flight', concurrent, 'ops/s', labels);

    // 4. Pruning while writing and reading: pause = latency of the operations that overlap the prune
    const pruneTo = Math.floor(latest * 0.8);
    const pruneStart = performance.now();
    const pruning = ss.pruneTo(pruneTo);
    let pruneDone = false;
    const pruneStats = pruning.then((s) => {
      pruneDone = true;
      return s;
    });
    const writeLat: number[] = [];
    const readLat: number[] = [];
    let v = latest + 1;
    const value = new Uint8Array(32).fill(9);
    while (!pruneDone) {
      const changes: StoreChange[] = [];
      for (let i = 0; i < 100; i++)
        changes.push({ store: 'bank', key: pool[Math.floor(rand() * pool.length)], value });
      let s = performance.now();
      await ss.applyChangeSet(v++, changes);
      writeLat.push(performance.now() - s);
      for (let i = 0; i < 20; i++) {
        s = performance.now();
        await ss.get(
          'bank',
          pool[Math.floor(rand() * pool.length)],
          pruneTo + Math.floor(rand() * (v - 1 - pruneTo)),
        );
        readLat.push(performance.now() - s);
      }
    }
    const stats = await pruneStats;
    report(BENCH, 'prune_duration', performance.now() - pruneStart, 'ms', {
      ...labels,
      deleted: stats?.deleted ?? 0,
    });
    report(BENCH, 'prune_worst_batch', stats?.worstBatchMs ?? NaN, 'ms', labels);
    report(BENCH, 'prune_write_pause_p99', percentile(writeLat, 99), 'ms', {
      ...labels,
      samples: writeLat.length,
      perWrite: '100 keys',
    });
    report(
      BENCH,
      'prune_write_pause_max',
      writeLat.reduce((a, b) => Math.max(a, b), 0),
      'ms',
      labels,
    );
    report(BENCH, 'prune_read_pause_p99', percentile(readLat, 99), 'ms', {
      ...labels,
      samples: readLat.length,
    });
    report(
      BENCH,
      'prune_read_pause_max',
      readLat.reduce((a, b) => Math.max(a, b), 0),
      'ms',
      labels,
    );
    await ss.close();

    // 3. Read p99 as history grows: 10 keys per version, reads at random historical versions
    const histKeys = pool.slice(0, 100);
    ss = await open(engine, join(root, 'history'));
    let written = 0;
    for (const depth of quick ? [10_000, 30_000] : [10_000, 100_000]) {
      t0 = performance.now();
      await writeVersions(ss, depth - written, 10, histKeys, rand, written + 1);
      written = depth;
      const r = await measureReads(
        ss,
        histKeys,
        quick ? 20_000 : 100_000,
        () => 1 + Math.floor(rand() * depth),
        rand,
      );
      report(BENCH, 'get_historical_p99_by_depth', r.p99us, 'us', { ...labels, versions: depth });
      report(BENCH, 'get_historical_ops_per_sec_by_depth', r.opsPerSec, 'ops/s', {
        ...labels,
        versions: depth,
      });
    }
    await ss.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
