/**
 * `npm run bench -- network [txs]`: network mode against the embedded dev chain, in one run on this
 * machine. A `chaind testnet --validators 4 --rpc-nodes 1` network (five chaind processes, each with
 * its cometbft child) and a lone embedded validator each receive the same ERC20 transfer load
 * through their EVM JSON-RPC (the RPC node's, for the network), pre-signed by ten senders. Figures:
 * end-to-end tx/s (first send to last receipt), block time p50/p99 from the consensus RPC's header
 * times, and CPU seconds per node (chaind plus its cometbft child) over the load.
 *
 * Both run with the default consensus timing (timeout-commit 400 ms). Five nodes share this
 * machine's cores, so the network's figures are those of a network on one host, not of a network
 * of machines.
 *
 * `npm run bench -- network [txs] --engines revm,ethereumjs`: the network only, once per engine
 * named, on a fresh testnet each time with every node's `[evm] block_engine` set to it (each node's
 * startup line must confirm it); the same figures per engine, plus CPU per tx per node. The mempool
 * TTLs are off in these runs: on a loaded host the slower engine's backlog outlived the 5 s
 * ttl-duration and was evicted, which ends a run instead of measuring it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Interface, Wallet, parseEther } from 'ethers';
import type { TestnetManifest } from '../src/cli/testnet.ts';
import { installedBinaryPath } from '../src/cometbft/binary.ts';
import { accountsFromMnemonic } from '../src/crypto/accounts.ts';
import { percentile, report } from './report.ts';
import { CHAIND, FREE_PORT_ENV } from '../test/helpers/chaind.ts';

const args = process.argv.slice(3);
const enginesAt = args.indexOf('--engines');
const ENGINES = enginesAt >= 0 ? args.splice(enginesAt, 2)[1].split(',') : [];
for (const e of ENGINES)
  if (e !== 'revm' && e !== 'ethereumjs')
    throw new Error(`--engines ${ENGINES.join(',')}: each is revm or ethereumjs`);
const TXS = Number(args[0] ?? 2000);
const SENDERS = 10;
const CHAIN_ID = 713714n;
const artifacts = JSON.parse(
  readFileSync(new URL('../test/fixtures/contracts/artifacts.json', import.meta.url), 'utf8'),
);
const token = artifacts.TestToken;
const wallets = accountsFromMnemonic(
  'test test test test test test test test test test test junk',
  SENDERS,
).map((a) => new Wallet('0x' + Buffer.from(a.privateKey).toString('hex')));

interface Node {
  child: ChildProcess;
  evm: string;
  rpc: string;
  /** the `engine` of its `block execution engine` line */
  engine: string;
}

function startNode(args: string[], env: Record<string, string>): Promise<Node> {
  const child = spawn(process.execPath, [CHAIND, ...args, '--log_format', 'json'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let evm = '';
  let rpc = '';
  let engine = '';
  return new Promise((ok, fail) => {
    child.once('exit', (code) => fail(new Error(`chaind ${args.join(' ')} exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (l) => {
      if (l.includes('JSON-RPC server listening')) evm = JSON.parse(l).address;
      if (l.includes('consensus RPC listening')) rpc = JSON.parse(l).address.replace('tcp://', 'http://');
      if (l.includes('"msg":"block execution engine"')) engine = JSON.parse(l).engine;
      if (evm && rpc && l.includes('node started')) ok({ child, evm, rpc, engine });
    });
  });
}

async function call(url: string, method: string, params: unknown[] = []): Promise<any> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** How long a sent tx may take to be mined before the run gives up on it. */
const RECEIPT_DEADLINE_MS = 180_000;

async function receipt(url: string, hash: string): Promise<any> {
  const deadline = Date.now() + RECEIPT_DEADLINE_MS;
  for (;;) {
    const r = await call(url, 'eth_getTransactionReceipt', [hash]);
    if (r) return r;
    if (Date.now() > deadline)
      throw new Error(
        `${hash} was not mined within ${RECEIPT_DEADLINE_MS / 1000} s: the mempool evicts a tx that waited ` +
          'past [mempool] ttl-duration (5 s) or ttl-num-blocks (10), which a load larger than the chain ' +
          'keeps up with reaches (fewer txs, or a larger ttl-duration)',
      );
    await new Promise((res) => setTimeout(res, 50));
  }
}

/** CPU seconds (user + system) of a process and its children still running, from /proc. */
function cpuSeconds(pid: number): number {
  const ticks = (p: number) => {
    try {
      const f = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ');
      return Number(f[11]) + Number(f[12]);
    } catch {
      return 0;
    }
  };
  let total = ticks(pid);
  for (const d of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      if (readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1].split(' ')[1] === String(pid))
        total += ticks(Number(d));
    } catch {
      // gone
    }
  }
  return total / 100;
}

/** Deploys the token, gives every sender a share, then sends TXS pre-signed transfers and waits for all. */
async function load(label: string, target: Node, nodes: Node[]): Promise<void> {
  const url = target.evm;
  const owner = wallets[0];
  const gas = { maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n, chainId: CHAIN_ID, type: 2 };
  let nonce0 = Number(await call(url, 'eth_getTransactionCount', [owner.address, 'pending']));
  const deploy = await owner.signTransaction({
    ...gas,
    nonce: nonce0++,
    gasLimit: 2_000_000n,
    data:
      token.bytecode +
      Interface.from(token.abi)
        .encodeDeploy(['B', 'B', parseEther('1000000000')])
        .slice(2),
  });
  const deployed = await receipt(url, await call(url, 'eth_sendRawTransaction', [deploy]));
  const erc20 = new Interface(token.abi);
  const to = deployed.contractAddress;
  const fund = [];
  for (const w of wallets.slice(1))
    fund.push(
      await owner.signTransaction({
        ...gas,
        to,
        nonce: nonce0++,
        gasLimit: 100_000n,
        data: erc20.encodeFunctionData('transfer', [w.address, parseEther('1000000')]),
      }),
    );
  const fundHashes = await Promise.all(fund.map((raw) => call(url, 'eth_sendRawTransaction', [raw])));
  await Promise.all(fundHashes.map((h) => receipt(url, h)));

  const perSender = Math.ceil(TXS / SENDERS);
  const signed: string[][] = [];
  for (const w of wallets) {
    let n = Number(await call(url, 'eth_getTransactionCount', [w.address, 'pending']));
    const list = [];
    for (let i = 0; i < perSender; i++)
      list.push(
        await w.signTransaction({
          ...gas,
          to,
          nonce: n++,
          gasLimit: 60_000n,
          data: erc20.encodeFunctionData('transfer', [wallets[(i % (SENDERS - 1)) + 1].address, 1n]),
        }),
      );
    signed.push(list);
  }
  const startHeight = Number(await call(url, 'eth_blockNumber'));
  const cpu0 = nodes.map((n) => cpuSeconds(n.child.pid!));
  const t0 = performance.now();
  // round-robin over the senders (each sender's txs in nonce order), 32 requests in flight: the load
  // generator keeps the node busy instead of waiting out each answer
  const queue: string[] = [];
  for (let i = 0; i < perSender; i++) for (const list of signed) queue.push(list[i]);
  let next = 0;
  const hashes: string[] = new Array(queue.length);
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < queue.length) {
        const i = next++;
        hashes[i] = await call(url, 'eth_sendRawTransaction', [queue[i]]);
      }
    }),
  );
  // the last tx of every sender mined means all of them are
  await Promise.all(hashes.slice(-SENDERS).map((h) => receipt(url, h)));
  const seconds = (performance.now() - t0) / 1000;
  const cpu = nodes.map((n, i) => cpuSeconds(n.child.pid!) - cpu0[i]);
  const endHeight = Number(await call(url, 'eth_blockNumber'));
  const total = perSender * SENDERS;
  report('network', 'end-to-end tx/s', total / seconds, 'tx/s', { engine: label, txs: total, seconds });
  // block intervals from header times (nanosecond RFC 3339) over the blocks the load filled
  const times: number[] = [];
  for (let h = startHeight; h <= endHeight; h++) {
    const res = await fetch(`${target.rpc}/block?height=${h}`);
    const t = ((await res.json()) as any).result.block.header.time as string;
    const [, frac = '0'] = /\.(\d+)Z$/.exec(t) ?? [];
    times.push(Date.parse(t.replace(/\.\d+Z$/, 'Z')) + Number(`0.${frac}`) * 1000);
  }
  const intervals = times.slice(1).map((t, i) => t - times[i]);
  report('network', 'block time p50', percentile(intervals, 50), 'ms', {
    engine: label,
    blocks: intervals.length,
  });
  report('network', 'block time p99', percentile(intervals, 99), 'ms', { engine: label });
  report('network', 'CPU per node', cpu.reduce((a, b) => a + b, 0) / cpu.length, 's', {
    engine: label,
    per_node: cpu.map((c) => Math.round(c * 10) / 10),
    cpu_ms_per_tx_all_nodes: Math.round((cpu.reduce((a, b) => a + b, 0) / total) * 10000) / 10,
  });
  report(
    'network',
    'CPU per tx per node',
    (cpu.reduce((a, b) => a + b, 0) / cpu.length / total) * 1000,
    'ms',
    {
      engine: label,
      per_node: cpu.map((c) => Math.round((c / total) * 100_000) / 100),
    },
  );
}

async function stopAll(nodes: Node[]): Promise<void> {
  await Promise.all(
    nodes.map(
      (n) =>
        new Promise((r) => {
          if (n.child.exitCode !== null) return r(undefined);
          n.child.once('exit', r);
          n.child.kill('SIGTERM');
        }),
    ),
  );
}

/** A fresh `chaind testnet` of 4 validators and 1 RPC node under `dir`, loaded through the RPC node. */
async function network(dir: string, label: string, engine?: string): Promise<void> {
  if (!existsSync(installedBinaryPath())) throw new Error('run npm run install:cometbft first');
  const base = 40_000 + 10 * Math.floor(Math.random() * 1000);
  const made = spawnSync(
    process.execPath,
    [
      CHAIND,
      'testnet',
      '--validators',
      '4',
      '--rpc-nodes',
      '1',
      '--output',
      dir,
      '--base-port',
      String(base),
    ],
    { encoding: 'utf8' },
  );
  if (made.status !== 0) throw new Error(made.stderr);
  const manifest = JSON.parse(readFileSync(join(dir, 'testnet.json'), 'utf8')) as TestnetManifest;
  const flags = engine
    ? ['--evm.block_engine', engine, '--mempool.ttl-duration', '0s', '--mempool.ttl-num-blocks', '0']
    : [];
  const nodes = await Promise.all(
    manifest.nodes.map((n) => startNode(['start', '--home', n.home, ...flags], {})),
  );
  try {
    const wrong = nodes.filter((n) => engine && n.engine !== engine);
    if (wrong.length)
      throw new Error(`asked for ${engine}, but nodes run blocks on ${wrong.map((n) => n.engine)}`);
    const rpcNode = nodes[manifest.nodes.findIndex((n) => n.role === 'rpc')];
    // `node started` comes before CometBFT's RPC listens, which the first send needs: a first block
    // means it does
    while (Number(await call(rpcNode.evm, 'eth_blockNumber')) < 1)
      await new Promise((res) => setTimeout(res, 100));
    await load(label, rpcNode, nodes);
  } finally {
    await stopAll(nodes);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'chaind-bench-net-'));
try {
  if (ENGINES.length > 0) {
    for (const engine of ENGINES)
      await network(
        join(dir, `net-${engine}`),
        `cometbft 4 validators + 1 rpc, ${engine}, mempool TTL off`,
        engine,
      );
  } else {
    // the embedded dev chain first (one process), then the network (five)
    // the network's block rhythm, not the dev chain's default on-demand mining
    const dev = await startNode(['dev', '--home', join(dir, 'dev'), '--block-time', '400ms'], FREE_PORT_ENV);
    try {
      await load('embedded', dev, [dev]);
    } finally {
      await stopAll([dev]);
    }
    await network(join(dir, 'net'), 'cometbft 4 validators + 1 rpc');
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
