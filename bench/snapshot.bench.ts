/**
 * `npm run bench -- snapshot [keys] [accounts]`.
 *
 * In process, `keys` (default 1,000,000, half of them EVM storage slots in flatkv, half Cosmos keys
 * in memiavl): the state-sync snapshot of a State Commit on lmdb — time to write it (the background
 * export the node runs after a snapshot height), its size and chunk count — and the time to restore
 * it into an empty State Commit (what ApplySnapshotChunk does after the last chunk), with the
 * restored app hash checked against the original.
 *
 * Over CometBFT, `accounts` (default 100,000 funded genesis accounts; 0 skips it): two validators of a
 * `chaind testnet` take a snapshot; an RPC node started with `[statesync]` restores it from them. The
 * figure is the seconds from spawning its `chaind start` to its first successful `eth_getBalance` at
 * the snapshot height (CometBFT's 15 s snapshot discovery included), with the moments it accepted
 * the snapshot and finished importing it as labels.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installedBinaryPath } from '../src/cometbft/binary.ts';
import { readSnapshotItems, SnapshotStore } from '../src/cometbft/snapshots.ts';
import { equalBytes } from '../src/primitives/bytes.ts';
import { CommitStore } from '../src/storage/sc/commit-store.ts';
import { TestNetwork } from '../test/helpers/network.ts';
import { report } from './report.ts';

const KEYS = Number(process.argv[3] ?? 1_000_000);
const ACCOUNTS = Number(process.argv[4] ?? 100_000);
const PER_BLOCK = 10_000;
const STORES = ['acc', 'bank', 'evm', 'staking'];

/** Deterministic filler: SplitMix-style bytes from a counter. */
function fill(out: Uint8Array, seed: number): Uint8Array {
  let x = seed >>> 0;
  for (let i = 0; i < out.length; i++) {
    x = (x + 0x9e3779b9) >>> 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    out[i] = (z ^ (z >>> 16)) & 0xff;
  }
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'chaind-bench-snapshot-'));
try {
  const sc = await CommitStore.open({ dir: join(dir, 'source'), stores: STORES });
  let version = 0;
  const t0 = performance.now();
  for (let done = 0; done < KEYS; done += PER_BLOCK) {
    const evm = [];
    const bank = [];
    for (let i = 0; i < PER_BLOCK / 2; i++) {
      const n = done + i;
      // an EVM storage slot: 0x03 ‖ address ‖ slot
      const key = new Uint8Array(53);
      key[0] = 0x03;
      fill(key.subarray(1, 21), n % 5000);
      fill(key.subarray(21), n * 2 + 1);
      evm.push({ key, value: fill(new Uint8Array(32), n * 3 + 7) });
      bank.push({ key: fill(new Uint8Array(41), n * 5 + 11), value: fill(new Uint8Array(24), n) });
    }
    sc.applyChangeSets(++version, [
      { store: 'bank', pairs: bank },
      { store: 'evm', pairs: evm },
    ]);
    await sc.commit();
  }
  report('snapshot', 'state built', (performance.now() - t0) / 1000, 's', { keys: KEYS, blocks: version });

  const store = new SnapshotStore({ dir: join(dir, 'snapshots'), keepRecent: 2 });
  const appHash = sc.appHash();
  const t1 = performance.now();
  const meta = await store.write(version, appHash, sc.export(version));
  const written = (performance.now() - t1) / 1000;
  report('snapshot', 'snapshot written', written, 's', { keys: KEYS, items: meta.items });
  report('snapshot', 'snapshot size', meta.size / 2 ** 20, 'MiB', {
    uncompressed_mib: Math.round((meta.bytes / 2 ** 20) * 10) / 10,
    chunks: meta.chunks,
  });
  await sc.close();

  const target = await CommitStore.open({ dir: join(dir, 'restored'), stores: STORES });
  const chunks = Array.from({ length: meta.chunks }, (_, i) => store.chunk(version, meta.format, i)!);
  const t2 = performance.now();
  const restored = await target.import(version, readSnapshotItems(chunks));
  const restore = (performance.now() - t2) / 1000;
  if (!equalBytes(restored.appHash, appHash))
    throw new Error('the restored app hash differs from the snapshot');
  report('snapshot', 'restore (import into an empty State Commit)', restore, 's', {
    keys: KEYS,
    app_hash_equal: true,
  });
  await target.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

if (ACCOUNTS > 0 && !existsSync(installedBinaryPath()))
  console.error(
    'skipping the state sync over CometBFT: cometbft is not installed (npm run install:cometbft)',
  );
else if (ACCOUNTS > 0) await stateSyncOverCometbft(ACCOUNTS);

async function stateSyncOverCometbft(accounts: number): Promise<void> {
  const cleanup: (() => void | Promise<void>)[] = [];
  try {
    const net = await TestNetwork.create({ after: (fn) => cleanup.push(fn) }, { validators: 2, rpcNodes: 1 });
    const [funded] = net.fundGenesisAccounts(accounts);
    const interval = 20;
    for (const v of ['validator0', 'validator1'])
      net.start(v, [
        '--state-sync.snapshot-interval',
        String(interval),
        '--state-sync.snapshot-keep-recent',
        '20',
      ]);
    const v0 = net.processes.get('validator0')!;
    const takenLine = await v0.waitForLine((l) => l.includes('"msg":"state-sync snapshot taken"'), 600_000);
    const taken = JSON.parse(takenLine);
    const H = taken.height as number;
    report('snapshot', 'snapshot taken by a validator (beside block production)', taken.ms / 1000, 's', {
      genesis_accounts: accounts,
      items: taken.items,
      chunks: taken.chunks,
      compressed_mib: Math.round((taken.size / 2 ** 20) * 10) / 10,
    });
    await net.waitHeight('validator0', H + 3, 120_000);
    const trusted = await net.consensus('validator1', `/block?height=${H}`);
    const holder = '0x' + Buffer.from(funded).toString('hex');
    const t0 = performance.now();
    const node = net.start('rpc0', [
      '--statesync.enable',
      'true',
      '--statesync.rpc-servers',
      `${net.rpcUrl('validator0')},${net.rpcUrl('validator1')}`,
      '--statesync.trust-height',
      String(H),
      '--statesync.trust-hash',
      trusted.body.result.block_id.hash,
    ]);
    const atMs = (msg: string) => async () => {
      await node.waitForLine((l) => l.includes(`"msg":"${msg}"`), 600_000);
      return (performance.now() - t0) / 1000;
    };
    // before CometBFT starts, the node writes the genesis state (it does not know yet it will state-sync)
    const cometStarted = atMs('cometbft started')();
    const accepted = atMs('accepted a state-sync snapshot')();
    const restored = atMs('state restored from a state-sync snapshot')();
    // the node may restore a later snapshot than H: its height is known once it has restored
    const deadline = Date.now() + 600_000;
    let R: number | undefined;
    let want: string | undefined;
    for (;;) {
      if (Date.now() > deadline) throw new Error(`rpc0 did not serve the snapshot height: ${node.stderr}`);
      const line = R === undefined ? node.lines.find((l) => l.includes('"msg":"state restored')) : undefined;
      if (line) {
        R = JSON.parse(line).height as number;
        want = (await net.evm('validator0', 'eth_getBalance', [holder, '0x' + R.toString(16)])).result;
      }
      if (R !== undefined) {
        const got = await net
          .evm('rpc0', 'eth_getBalance', [holder, '0x' + R.toString(16)])
          .catch(() => undefined);
        if (got?.result !== undefined) {
          if (got.result !== want) throw new Error(`restored balance ${got.result}, validators say ${want}`);
          break;
        }
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const serving = (performance.now() - t0) / 1000;
    report(
      'snapshot',
      'chaind start to serving eth_getBalance at the snapshot height (state sync)',
      serving,
      's',
      {
        genesis_accounts: accounts,
        items: taken.items,
        snapshot_height: R,
        cometbft_started_s: Math.round((await cometStarted) * 10) / 10,
        accepted_s: Math.round((await accepted) * 10) / 10,
        imported_s: Math.round((await restored) * 10) / 10,
        cometbft_discovery_s: 15,
      },
    );
  } finally {
    for (const fn of cleanup.reverse()) await fn();
  }
}
