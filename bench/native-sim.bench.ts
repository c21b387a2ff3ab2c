/**
 * eth_call of an ERC20 balanceOf on the JS EVM (ethereumjs) and on the native simulator (revm via
 * N-API, `npm run build:native-sim`), in process on one node's state (real lmdb stores), the same
 * calls through the same `NodeSimulation` (the backend eth_call uses) with only the engine switched.
 *
 *   npm run bench -- native-sim [seconds per figure = 4] [holders = 1000]
 *
 * Two workloads: the balance of one holder, and of a random holder each call (the same sequence for
 * both engines), each called through `NodeSimulation.call` and, as `<workload>_rpc`, through the
 * eth_call method of the JSON-RPC dispatcher (params decoded, result encoded; no HTTP) of two
 * `EvmRpc`s, `[evm] native_simulator` on and off. Rounds alternate the engines so machine noise hits
 * both. Before timing, every holder's balance is read through both engines and must match.
 * `state_callbacks_per_balanceOf`: the state reads one native balanceOf makes (each a call into JS).
 * Figures per engine (label `engine`) and workload: `<workload>_us` (wall µs per call, one call at a
 * time), `<workload>_cpu_us` (this process's CPU µs per call), `<workload>_calls_per_s`; then
 * `<workload>_native_vs_js` = the native rate ÷ the JS rate.
 * With the addon missing the JS figures are printed and one skip line says why.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Interface } from 'ethers';
import { nativeSimulator, packBlock } from '../src/execution/simulation/native-binding.ts';
import { NodeChainReader } from '../src/node/adapters/evm-chain-reader.ts';
import { NodeSimulation } from '../src/node/adapters/evm-simulation.ts';
import { EvmRpc } from '../src/node/evm-rpc.ts';
import type { ChainNode } from '../src/node/node.ts';
import { silentLogger } from '../src/util/logger.ts';
import { Registry } from 'prom-client';
import { benchWallets, bytes, startBenchNode } from './bench-node.ts';
import { report } from './report.ts';

const SECONDS = Number(process.argv[3] ?? 4);
const HOLDERS = Number(process.argv[4] ?? 1000);
const ROUNDS = 4;
const GWEI = 10n ** 9n;
const ROOT = new URL('..', import.meta.url).pathname;
const artifacts = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/contracts/artifacts.json'), 'utf8'));
const token = new Interface(artifacts.TestToken.abi);
const fee = { chainId: 713714n, type: 2, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: 1n };
const holder = (i: number) => '0x' + (i + 1).toString(16).padStart(40, '0');

const home = mkdtempSync(join(tmpdir(), 'chaind-bench-native-sim-'));
let node: ChainNode | undefined;
try {
  const [deployer] = benchWallets(1);
  const started = await startBenchNode(home, [deployer]);
  node = started.node;
  const { chain, mempool, blocks } = node.modules;
  const producer = node.modules.engine.producer!;
  let nonce = 0;
  const submit = async (tx: object) => {
    const raw = bytes(await deployer.signTransaction({ ...fee, nonce: nonce++, ...tx }));
    await mempool.checkTx(raw);
    return chain.decode(raw).hash;
  };
  const deploy = await submit({
    gasLimit: 3_000_000,
    data: artifacts.TestToken.bytecode + token.encodeDeploy(['B', 'B', 10n ** 30n]).slice(2),
  });
  await producer.produce();
  const tokenAddress = bytes(
    '0x' + Buffer.from(blocks.receiptByEvmHash(deploy)!.receipt.contractAddress!).toString('hex'),
  );
  for (let i = 0; i < HOLDERS; i++) {
    await submit({
      to: '0x' + Buffer.from(tokenAddress).toString('hex'),
      gasLimit: 100_000,
      data: token.encodeFunctionData('transfer', [holder(i), BigInt(i + 1) * 10n ** 18n]),
    });
    if (i % 50 === 49) while (mempool.pending() > 0) await producer.produce();
  }
  while (mempool.pending() > 0) await producer.produce();

  const reader = new NodeChainReader({ chain, blocks, ss: node.modules.ss, genesis: started.genesis });
  const evm = started.config.app.evm;
  const options = { gasCap: BigInt(evm.simulationGasLimit), timeoutMs: evm.simulationEvmTimeout };
  const native = nativeSimulator();
  const engines: [string, NodeSimulation][] = [['js', new NodeSimulation(options, { chain, reader })]];
  if (typeof native === 'string')
    report('native-sim', 'skip', 0, '', { reason: `native simulator ${native}` });
  else engines.push(['native', new NodeSimulation({ ...options, native }, { chain, reader })]);
  const dispatcherOf = (nativeSimulator: boolean) => {
    const rpc = new EvmRpc(
      {
        evm: { ...evm, nativeSimulator },
        genesis: started.genesis,
        logger: silentLogger,
        registry: new Registry(),
      },
      {
        chain,
        ss: node!.modules.ss,
        sc: node!.modules.sc,
        mempool,
        submission: node!.modules.submission,
        sync: () => node!.syncStatus(),
      },
    );
    rpc.close(); // only its dispatcher is used: no filter sweepers left running
    return rpc.dispatcher;
  };
  const dispatchers = engines.map(([name]) => [name, dispatcherOf(name === 'native')] as const);
  const height = chain.latestHeight;
  const callOf = (i: number) => ({
    to: tokenAddress,
    data: bytes(token.encodeFunctionData('balanceOf', [holder(i)])),
  });
  const calls = Array.from({ length: HOLDERS }, (_, i) => callOf(i));

  // every holder's balance through every engine, compared before anything is timed
  for (let i = 0; i < HOLDERS; i++) {
    const want = BigInt(i + 1) * 10n ** 18n;
    for (const [name, sim] of engines) {
      const r = await sim.call(height, calls[i]);
      if (r.status !== 'success' || BigInt('0x' + Buffer.from(r.returnData).toString('hex')) !== want)
        throw new Error(`${name}: balanceOf(holder ${i}) answered ${JSON.stringify(r)}`);
    }
  }

  // what one native balanceOf asks of the state (each a callback into JS)
  if (typeof native !== 'string') {
    const sim = await engines[0][1].open(height, calls[0]);
    try {
      const out = native.call(
        {
          from: new Uint8Array(20),
          to: tokenAddress,
          value: 0n,
          gasLimit: 1_000_000n,
          gasPrice: 0n,
          data: calls[0].data,
        },
        packBlock({
          number: BigInt(height + 1),
          timestamp: 0n,
          coinbase: new Uint8Array(20),
          baseFee: 0n,
          gasLimit: 30_000_000n,
          prevRandao: new Uint8Array(32),
          chainId: chain.common.chainId(),
          spec: 'prague',
        }),
        sim.state.nativeHost(() => undefined),
      );
      report('native-sim', 'state_callbacks_per_balanceOf', out.reads, 'callbacks', { status: out.status });
    } finally {
      sim.close();
    }
  }

  // the random holders: one fixed sequence (a 32-bit LCG) replayed for every engine and round
  const sequence = Uint32Array.from(
    { length: 1 << 16 },
    (_, i) => (Math.imul(i + 1, 2654435761) >>> 0) % HOLDERS,
  );
  const tokenHex = '0x' + Buffer.from(tokenAddress).toString('hex');
  const block = '0x' + height.toString(16);
  const params = Array.from({ length: HOLDERS }, (_, i) => [
    { to: tokenHex, input: token.encodeFunctionData('balanceOf', [holder(i)]) },
    block,
  ]);
  type Run = (n: number) => Promise<unknown>;
  const workloads: [string, (engine: number) => Run][] = [
    ['eth_call_balanceOf', (e) => () => engines[e][1].call(height, calls[0])],
    ['eth_call_balanceOf_random', (e) => (n) => engines[e][1].call(height, calls[sequence[n & 0xffff]])],
    ['eth_call_balanceOf_rpc', (e) => () => dispatchers[e][1].call('eth_call', params[0])],
    [
      'eth_call_balanceOf_random_rpc',
      (e) => (n) => dispatchers[e][1].call('eth_call', params[sequence[n & 0xffff]]),
    ],
  ];
  const totals = new Map<string, { calls: number; wallMs: number; cpuUs: number }>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [workload, runOf] of workloads) {
      for (const [e, [name]] of engines.entries()) {
        const run = runOf(e);
        const key = `${name}:${workload}`;
        const t = totals.get(key) ?? { calls: 0, wallMs: 0, cpuUs: 0 };
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        const until = t0 + (SECONDS * 1000) / ROUNDS;
        let n = 0;
        while (performance.now() < until) {
          for (let k = 0; k < 50; k++, n++) await run(n);
        }
        const cpu = process.cpuUsage(cpu0);
        t.calls += n;
        t.wallMs += performance.now() - t0;
        t.cpuUs += cpu.user + cpu.system;
        totals.set(key, t);
      }
    }
  }
  for (const [workload] of workloads) {
    const rate: Record<string, number> = {};
    for (const [name] of engines) {
      const t = totals.get(`${name}:${workload}`)!;
      const labels = { engine: name, calls: t.calls, holders: HOLDERS };
      report('native-sim', `${workload}_us`, (t.wallMs * 1000) / t.calls, 'us', labels);
      report('native-sim', `${workload}_cpu_us`, t.cpuUs / t.calls, 'us', labels);
      rate[name] = t.calls / (t.wallMs / 1000);
      report('native-sim', `${workload}_calls_per_s`, rate[name], 'calls/s', labels);
    }
    if (rate.native !== undefined)
      report('native-sim', `${workload}_native_vs_js`, rate.native / rate.js, 'x', { holders: HOLDERS });
  }
} finally {
  await node?.stop();
  rmSync(home, { recursive: true, force: true });
}
