/**
 * trace_filter over 10,000 blocks, in process on a real node (lmdb stores), through the EVM RPC's
 * dispatcher (the method's parsing, limits and replays; no HTTP).
 *
 *   npm run bench -- trace-filter [blocks=10000] [every=10] [runs=2]
 *
 * The chain: `blocks` blocks after the setup, every `every`-th holding 3 txs (a nested call through
 * TraceProbe into TraceTarget, a TraceTarget.store, a value transfer; every `every * 10`-th one more
 * value transfer, to a rarely paid address), the others empty (as
 * hardhat_mine leaves them).
 *
 * Figures:
 *   chain_build_s              time to produce the blocks (setup, not a trace_filter cost)
 *   candidates_walk_ms         the candidate source without an address index (BlockWalkSource): every
 *                              Ethereum tx of the 10,000 blocks, from their receipts
 *   filter_to_address_ms       trace_filter {toAddress: [TraceTarget]} over the range, p50 over `runs`
 *                              (TraceTarget is in every block with txs: the index narrows nothing)
 *   filter_rare_address_ms     trace_filter {toAddress: [an address paid in one block of every
 *                              every * 10]}: the address index names its txs, only their blocks replay
 *   filter_unfiltered_ms       trace_filter over the range with no address, p50
 *   filter_unfiltered_count_ms the same with `count: 100` (the replays stop once 100 traces matched)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCreateAddress, Interface, type Wallet } from 'ethers';
import { Registry } from 'prom-client';
import { EvmRpc } from '../src/node/evm-rpc.ts';
import type { ChainNode } from '../src/node/node.ts';
import { BlockWalkSource } from '../src/rpc/evm/index.ts';
import { silentLogger } from '../src/util/logger.ts';
import { benchWallets, bytes, startBenchNode } from './bench-node.ts';
import { percentile, report } from './report.ts';

const BLOCKS = Number(process.argv[3] ?? 10_000);
const EVERY = Number(process.argv[4] ?? 10);
const RUNS = Number(process.argv[5] ?? 2);
const GWEI = 10n ** 9n;
const ROOT = new URL('..', import.meta.url).pathname;
const artifacts = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/contracts/artifacts.json'), 'utf8'));
const target = new Interface(artifacts.TraceTarget.abi);
const probe = new Interface(artifacts.TraceProbe.abi);
const fee = { chainId: 713714n, type: 2, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: 1n };
const hex = (n: number) => '0x' + n.toString(16);
/** an address paid in one block of every `every * 10`: what the address index narrows to */
const RARE = '0x' + 'be'.repeat(20);

const home = mkdtempSync(join(tmpdir(), 'chaind-bench-trace-filter-'));
let node: ChainNode | undefined;
let evmRpc: EvmRpc | undefined;
try {
  const wallets = benchWallets(3);
  const started = await startBenchNode(
    home,
    wallets,
    { 'evm.trace_timeout': '10m', 'evm.max_trace_lookback_blocks': String(BLOCKS + 100) },
    // a long chain is built fast without fsync; the replays read the same stores either way
    { dev: { logs: false, ephemeral: true } },
  );
  node = started.node;
  const { config, genesis } = started;
  const chain = node.modules.chain;
  const mempool = node.modules.mempool;
  const producer = node.modules.engine.producer!;
  const nonces = new Map<Wallet, number>();
  const submit = async (w: Wallet, tx: object) => {
    const nonce = nonces.get(w) ?? 0;
    nonces.set(w, nonce + 1);
    await mempool.checkTx(bytes(await w.signTransaction({ ...fee, nonce, ...tx })));
  };
  const [deployer, a, b] = wallets;
  const targetAddr = getCreateAddress({ from: deployer.address, nonce: 0 });
  const probeAddr = getCreateAddress({ from: deployer.address, nonce: 1 });
  await submit(deployer, { gasLimit: 1_000_000, data: artifacts.TraceTarget.bytecode });
  await submit(deployer, {
    gasLimit: 2_000_000,
    data: artifacts.TraceProbe.bytecode + probe.encodeDeploy([targetAddr]).slice(2),
  });
  await producer.produce();

  const built = performance.now();
  const first = chain.latestHeight + 1;
  for (let i = 0; i < BLOCKS; i++) {
    if (i % EVERY === 0) {
      await submit(a, {
        to: probeAddr,
        gasLimit: 300_000,
        value: 1n,
        data: probe.encodeFunctionData('nested', [BigInt(i)]),
      });
      await submit(b, {
        to: targetAddr,
        gasLimit: 100_000,
        data: target.encodeFunctionData('store', [BigInt(i)]),
      });
      await submit(deployer, { to: a.address, gasLimit: 21_000, value: 1n });
    }
    if (i % (EVERY * 10) === 0) await submit(b, { to: RARE, gasLimit: 21_000, value: 1n });
    await producer.produce();
  }
  const last = chain.latestHeight;
  report('trace-filter', 'chain_build_s', (performance.now() - built) / 1000, 's', {
    blocks: last - first + 1,
  });

  evmRpc = new EvmRpc(
    // a registry of its own: the node's EVM RPC has registered its metrics on the node's
    { evm: config.app.evm, genesis, logger: silentLogger, registry: new Registry() },
    {
      chain,
      ss: node.modules.ss,
      sc: node.modules.sc,
      mempool,
      submission: node.modules.submission,
      sync: () => node!.syncStatus(),
    },
  );
  const dispatcher = evmRpc.dispatcher;
  const reader = {
    receipts: (h: number) => node!.modules.blocks.receiptsOfBlock(h),
  };
  let t0 = performance.now();
  const candidates = await new BlockWalkSource(reader).candidates(first, last);
  report('trace-filter', 'candidates_walk_ms', performance.now() - t0, 'ms', {
    blocks: last - first + 1,
    txs: candidates.length,
  });

  const range = { fromBlock: hex(first), toBlock: hex(last) };
  const measure = async (figure: string, filter: object) => {
    const ms: number[] = [];
    let n = 0;
    for (let i = 0; i < RUNS; i++) {
      t0 = performance.now();
      const traces = (await dispatcher.call('trace_filter', [filter])) as unknown[];
      ms.push(performance.now() - t0);
      n = traces.length;
    }
    report('trace-filter', figure, percentile(ms, 50), 'ms', {
      blocks: last - first + 1,
      traces: n,
      runs: RUNS,
    });
  };
  // one unmeasured pass: the first replays pay for cold state pages and unoptimised code
  await dispatcher.call('trace_filter', [range]);
  await measure('filter_to_address_ms', { ...range, toAddress: [targetAddr] });
  await measure('filter_rare_address_ms', { ...range, toAddress: [RARE] });
  await measure('filter_unfiltered_ms', range);
  await measure('filter_unfiltered_count_ms', { ...range, count: 100 });
} finally {
  evmRpc?.close();
  await node?.stop();
  rmSync(home, { recursive: true, force: true });
}
