/**
 * State Commit benchmarks: `npm run bench -- sc` (SC_BENCH_KEYS=1000000 by default).
 *   memiavl: commit throughput for 1,000 / 10,000 changed keys per block on a tree of N keys (apply +
 *            hash + durable changelog append), latest point reads/s, snapshot write and open time,
 *            proof generation/s.
 *   flatkv:  commit throughput for 1,000 / 10,000 changed keys per block on lmdb holding N rows
 *            (apply with lattice update + durable write-ahead log append), the same including the
 *            deferred flush of those blocks' rows to lmdb, point reads/s.
 * memiavl commits are measured with a synchronous changelog (fsync per block) and with
 * sc-async-commit-buffer = 10. Open time and reads are measured in a fresh child process, as a
 * restarting node sees them. One warm-up block precedes each memiavl measurement, at least three
 * (and 20k writes) each flatkv one (flatkvWarmup).
 * SC_BENCH_ONLY=memiavl|flatkv runs one half; SC_BENCH_BLOCKS sets the measured blocks (default 5).
 * Changed keys are half updates of existing keys, half inserts. The flatkv table is filled with
 * direct lmdb writes (its lattice is not computed for the fill): hashing 1M rows at setup would take
 * a minute and measures nothing about per-block cost.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { report } from './report.ts';
import { MemIavlDB } from '../src/storage/sc/memiavl/db.ts';
import { commitmentProof } from '../src/storage/sc/memiavl/proof.ts';
import { encodeCommitmentProof } from '../src/storage/sc/proof.ts';
import { FlatKV } from '../src/storage/sc/flatkv/store.ts';
import { physicalKey } from '../src/storage/sc/flatkv/layout.ts';
import { openLmdbStore } from '../src/storage/kv/lmdb.ts';
import type { KVOp } from '../src/storage/kv/types.ts';
import type { KVPair } from '../src/storage/sc/types.ts';

/** CPU time of this process in ms (all threads: the flatkv hash workers count too). */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * The machine is shared, so every throughput figure has a twin per CPU-second of this process
 * (`*_per_cpu_s`): it does not count time spent waiting for the CPU, nor waiting for fsync.
 */
function reportRate(
  figure: string,
  count: number,
  wallMs: number,
  cpu: number,
  unit: string,
  labels: Record<string, unknown>,
): void {
  report(B, figure, count / (wallMs / 1000), unit, { ...labels, wallMs, cpuMs: cpu });
  report(B, `${figure}_per_cpu_s`, count / (cpu / 1000), `${unit} per CPU-second`, labels);
}

const N = Number(process.env.SC_BENCH_KEYS ?? 1_000_000);
const BLOCKS = Number(process.env.SC_BENCH_BLOCKS ?? 5);
const B = 'sc';
/**
 * Warm-up blocks before a flatkv measurement: its first blocks also start the hash workers, and the
 * hashing code of both threads runs cold (not yet optimised by V8) for some 20k writes. A running node
 * pays that once, so the figures are steady-state: at least 3 blocks and 20k writes of warm-up.
 */
const flatkvWarmup = (perBlock: number): number => Math.max(3, Math.ceil(20_000 / perBlock));
/** SC_BENCH_ONLY=memiavl|flatkv runs one half. */
const ONLY = process.env.SC_BENCH_ONLY;

let seed = 0x12345678;
function rand32(): number {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return seed >>> 0;
}
function randomBytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i += 4) {
    const r = rand32();
    out[i] = r;
    out[i + 1] = r >>> 8;
    out[i + 2] = r >>> 16;
    out[i + 3] = r >>> 24;
  }
  return out;
}

function changedKeys(existing: Uint8Array[], n: number, makeKey: () => Uint8Array): KVPair[] {
  const pairs: KVPair[] = [];
  for (let i = 0; i < n; i++) {
    const key = i % 2 === 0 ? existing[rand32() % existing.length] : makeKey();
    pairs.push({ key, value: randomBytes(32) });
  }
  return pairs;
}

async function memiavlCommits(db: MemIavlDB, keys: Uint8Array[], mode: string): Promise<void> {
  for (const perBlock of [1000, 10000]) {
    let total = 0;
    let ms = 0;
    let cpu = 0;
    for (let b = 0; b <= BLOCKS; b++) {
      const pairs = changedKeys(keys, perBlock, () => randomBytes(32));
      const t0 = performance.now();
      const c0 = cpuMs();
      db.applyChangeSets([{ store: 'bank', pairs }]);
      await db.commit();
      if (b === 0) continue; // warm-up
      ms += performance.now() - t0;
      cpu += cpuMs() - c0;
      total += pairs.length;
    }
    reportRate('memiavl_commit', total, ms, cpu, 'keys/s', {
      keys: N,
      changedPerBlock: perBlock,
      blocks: BLOCKS,
      msPerBlock: ms / BLOCKS,
      changelog: mode,
    });
  }
}

/**
 * Child mode: everything measured on the 1M-key tree runs in a fresh process that opens the snapshot,
 * as a restarted node would (the builder's heap, full of garbage from the build, would skew it).
 */
if (process.env.SC_BENCH_OPEN_DIR) {
  const dir = process.env.SC_BENCH_OPEN_DIR;
  let t = performance.now();
  let db = await MemIavlDB.open({ dir, initialStores: ['bank'], snapshotInterval: 0 });
  report(B, 'memiavl_open_from_snapshot', performance.now() - t, 'ms', { keys: N, process: 'fresh' });
  const keys = [...(await db.viewsAt(db.version)).get('bank')!.entries()].map(([k]) => k.slice());
  const reads = 1_000_000;
  const sample = Array.from({ length: reads }, () => keys[rand32() % keys.length]);
  t = performance.now();
  let c0 = cpuMs();
  let found = 0;
  for (let i = 0; i < reads; i++) if (db.get('bank', sample[i])) found++;
  const readMs = performance.now() - t;
  if (found !== reads) throw new Error(`read ${found} of ${reads}`);
  reportRate('memiavl_point_reads', reads, readMs, cpuMs() - c0, 'reads/s', {
    keys: keys.length,
    source: 'snapshot-backed tree after open',
  });

  const view = (await db.viewsAt(db.version)).get('bank')!;
  const proofs = 20_000;
  t = performance.now();
  c0 = cpuMs();
  let bytes = 0;
  for (let i = 0; i < proofs; i++) {
    const key = i % 2 === 0 ? keys[rand32() % keys.length] : randomBytes(32);
    bytes += encodeCommitmentProof(commitmentProof(view, key).proof).length;
  }
  const proofMs = performance.now() - t;
  reportRate('memiavl_proofs', proofs, proofMs, cpuMs() - c0, 'proofs/s', {
    keys: keys.length,
    mix: 'half existence, half non-existence',
    avgBytes: bytes / proofs,
  });

  await memiavlCommits(db, keys, 'sync');
  await db.close();
  db = await MemIavlDB.open({ dir, initialStores: ['bank'], snapshotInterval: 0, asyncCommitBuffer: 10 });
  await memiavlCommits(db, keys, 'async-10');
  await db.close();
  process.exit(0);
}

const root = mkdtempSync(join(tmpdir(), 'sc-bench-'));
try {
  // ---------------------------------------------------------------- memiavl
  if (ONLY !== 'flatkv') {
    const dir = join(root, 'memiavl');
    const keys: Uint8Array[] = [];
    for (let i = 0; i < N; i++) keys.push(randomBytes(32));
    const db = await MemIavlDB.open({ dir, initialStores: ['bank'], snapshotInterval: 0 });
    let t = performance.now();
    for (let i = 0; i < N; i += 100_000) {
      db.applyChangeSets([
        { store: 'bank', pairs: keys.slice(i, i + 100_000).map((key) => ({ key, value: randomBytes(32) })) },
      ]);
      await db.commit();
    }
    report(B, 'memiavl_build', performance.now() - t, 'ms', { keys: N });
    t = performance.now();
    await db.snapshot();
    report(B, 'memiavl_snapshot_write', performance.now() - t, 'ms', { keys: N });
    await db.close();

    const child = spawnSync(process.execPath, [import.meta.filename], {
      env: { ...process.env, SC_BENCH_OPEN_DIR: dir },
      encoding: 'utf8',
    });
    process.stdout.write(child.stdout);
    if (child.status !== 0) throw new Error(`open child failed: ${child.stderr}`);
  }

  // ---------------------------------------------------------------- flatkv
  if (ONLY !== 'memiavl') {
    const dir = join(root, 'flatkv');
    const kv = await openLmdbStore(dir);
    const storageKey = (): Uint8Array => {
      const k = randomBytes(56).subarray(0, 53);
      k[0] = 0x03;
      return k;
    };
    const keys: Uint8Array[] = [];
    let t = performance.now();
    for (let i = 0; i < N; i += 100_000) {
      const ops: KVOp[] = [];
      for (let j = i; j < Math.min(N, i + 100_000); j++) {
        const key = storageKey();
        keys.push(key);
        ops.push({ type: 'put', key: physicalKey(key), value: randomBytes(32) });
      }
      await kv.write(ops);
    }
    report(B, 'flatkv_fill', performance.now() - t, 'ms', {
      rows: N,
      note: 'direct lmdb writes, lattice not computed',
    });
    // flush interval above the measured blocks: flushes are timed separately, after them
    // kvPath as the commit store passes it: the hash workers read previous values from lmdb too
    const fk = await FlatKV.open(kv, { walDir: join(root, 'flatkv-wal'), flushInterval: 1000, kvPath: dir });

    const reads = Math.min(N, 1_000_000);
    const sample = Array.from({ length: reads }, () => keys[rand32() % N]);
    t = performance.now();
    const c0 = cpuMs();
    let found = 0;
    for (let i = 0; i < reads; i++) if (fk.get(sample[i])) found++;
    const readMs = performance.now() - t;
    if (found !== reads) throw new Error(`read ${found} of ${reads}`);
    reportRate('flatkv_point_reads', reads, readMs, cpuMs() - c0, 'reads/s', { rows: N });

    let version = fk.version;
    for (const perBlock of [1000, 10000]) {
      let total = 0;
      let ms = 0;
      let cpu = 0;
      const phases = { applyMs: 0, hashMs: 0, logMs: 0 };
      let cpuAll = 0;
      let msAll = 0;
      const warmup = flatkvWarmup(perBlock);
      for (let b = 0; b < warmup + BLOCKS; b++) {
        const pairs = changedKeys(keys, perBlock, storageKey);
        const t0 = performance.now();
        const c0 = cpuMs();
        fk.applyPairs(pairs); // previous values from the memory layer; the rest are read while hashing
        const t1 = performance.now();
        await fk.workingHashAsync(); // previous values read and lattice updated (workers + this thread)
        const t2 = performance.now();
        await fk.commit(++version); // log append + fdatasync; rows stay in memory
        const t3 = performance.now();
        if (b < warmup) {
          await fk.flushAll(); // warm-up blocks out of the measured flush
          continue;
        }
        phases.applyMs += (t1 - t0) / BLOCKS;
        phases.hashMs += (t2 - t1) / BLOCKS;
        phases.logMs += (t3 - t2) / BLOCKS;
        ms += t3 - t0;
        cpu += cpuMs() - c0;
        total += pairs.length;
        msAll += performance.now() - t0;
        cpuAll += cpuMs() - c0;
      }
      reportRate('flatkv_commit', total, ms, cpu, 'keys/s', {
        rows: N,
        changedPerBlock: perBlock,
        blocks: BLOCKS,
        msPerBlock: ms / BLOCKS,
        ...phases,
        note: 'durable commit: apply, lattice, write-ahead log append + fdatasync',
      });
      // the deferred cost: these blocks' rows written to lmdb (coalesced, sorted, chunked)
      const t0 = performance.now();
      const c0 = cpuMs();
      await fk.flushAll();
      const flushMs = performance.now() - t0;
      msAll += flushMs;
      cpuAll += cpuMs() - c0;
      reportRate('flatkv_commit_with_flush', total, msAll, cpuAll, 'keys/s', {
        rows: N,
        changedPerBlock: perBlock,
        blocks: BLOCKS,
        flushMs,
        note: 'sustained: the same blocks plus flushing their rows to lmdb',
      });
    }
    await fk.close();
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
