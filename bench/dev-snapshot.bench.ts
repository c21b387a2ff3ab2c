/**
 * `npm run bench -- dev-snapshot [rounds = 300]`: the round trip of a snapshot and its revert over
 * HTTP (evm_snapshot then evm_revert, one after the other, on a keep-alive connection), as Hardhat's
 * loadFixture pays it before each test, on `chaind dev` and on anvil side by side in one run:
 * - snapshot_revert_empty: no block between the two;
 * - snapshot_revert_1tx: one transfer mined between them (the same signed tx each round: the revert
 *   makes it unmined and sendable again), the send not timed;
 * - snapshot_revert_10blocks: ten empty blocks mined between them (hardhat_mine 10), not timed.
 * Each figure is the median of `rounds` round trips, with p99 as a label; chaind also runs with
 * a kept home (`--home`, every store fsynced, as a developer keeps one). anvil comes from
 * PEERS_DIR (peers.ts; installed with the peers bench, or `npm i @foundry-rs/anvil@1.7.1` there); a
 * missing anvil gets one skip line. DEV_SNAPSHOT_NODES=chaind,chaind_kept_home,anvil picks the nodes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { percentile, report } from './report.ts';
import { anvilBinary, freePort, peersDir } from './peers.ts';
import { call, CHAIN_ID, DEV_KEY, GWEI, startChaind, stop, waitReceipt } from './rpc-common.ts';

const rounds = Number(process.argv[3] ?? 300);
const load = () => loadavg()[0].toFixed(2);

interface Node {
  name: string;
  url: URL;
  child: ChildProcess;
  cleanup?: () => void;
}

async function startAnvilAutomine(dir: string): Promise<Node | undefined> {
  const [cmd, ...pre] = anvilBinary(dir);
  if (!existsSync(cmd)) return undefined;
  const port = await freePort();
  const child = spawn(cmd, [...pre, '--host', '127.0.0.1', '--port', String(port)], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = new URL(`http://127.0.0.1:${port}/`);
  for (const started = Date.now(); ;) {
    try {
      await call(url, 'eth_chainId');
      return { name: 'anvil', url, child };
    } catch (err) {
      if (child.exitCode !== null || Date.now() - started > 60_000) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function roundTrips(node: Node, between: () => Promise<void>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    const id = await call(node.url, 'evm_snapshot');
    const t1 = performance.now();
    await between();
    const t2 = performance.now();
    const reverted = await call(node.url, 'evm_revert', [id]);
    const t3 = performance.now();
    if (reverted !== true) throw new Error(`${node.name}: evm_revert(${id}) answered ${reverted}`);
    samples.push(t1 - t0 + (t3 - t2));
  }
  return samples;
}

async function measure(node: Node): Promise<void> {
  const chainId = node.name === 'anvil' ? BigInt(await call(node.url, 'eth_chainId')) : CHAIN_ID;
  const raw = await new Wallet(DEV_KEY).signTransaction({
    type: 2,
    chainId,
    nonce: Number(await call(node.url, 'eth_getTransactionCount', [new Wallet(DEV_KEY).address, 'latest'])),
    to: '0x' + '42'.repeat(20),
    value: 1n,
    gasLimit: 21_000n,
    maxFeePerGas: 100n * GWEI,
    maxPriorityFeePerGas: GWEI,
  });
  const workloads: [string, () => Promise<void>][] = [
    ['snapshot_revert_empty', async () => {}],
    [
      'snapshot_revert_1tx',
      async () => {
        const hash = await call(node.url, 'eth_sendRawTransaction', [raw]);
        const receipt = await waitReceipt(node.url, hash, 0);
        if (receipt?.status !== '0x1') throw new Error(`${node.name}: the transfer was not mined`);
      },
    ],
    ['snapshot_revert_10blocks', async () => void (await call(node.url, 'hardhat_mine', ['0xa']))],
  ];
  for (const [figure, between] of workloads) {
    await roundTrips({ ...node }, between); // warm-up
    const samples = await roundTrips(node, between);
    report('dev-snapshot', figure, percentile(samples, 50), 'ms', {
      node: node.name,
      p99_ms: Math.round(percentile(samples, 99) * 1000) / 1000,
      rounds,
      load: load(),
    });
  }
}

const nodes: [string, () => Promise<Node | undefined>][] = [
  ['chaind', async () => ({ name: 'chaind', ...(await startChaind(['dev'])) })],
  [
    'chaind_kept_home',
    async () => {
      const home = mkdtempSync(join(tmpdir(), 'chaind-bench-home-'));
      const started = await startChaind(['dev', '--home', home]);
      const cleanup = () => rmSync(home, { recursive: true, force: true });
      return { name: 'chaind_kept_home', ...started, cleanup };
    },
  ],
  ['anvil', () => startAnvilAutomine(peersDir())],
];
const picked = process.env.DEV_SNAPSHOT_NODES?.split(',');
for (const [name, start] of nodes) {
  if (picked && !picked.includes(name)) continue;
  const node = await start();
  if (!node) {
    report('dev-snapshot', 'skipped', 0, '', { node: name, why: `no anvil under ${peersDir()}` });
    continue;
  }
  try {
    await measure(node);
  } finally {
    await stop(node.child);
    node.cleanup?.();
  }
}
process.exit(0);
