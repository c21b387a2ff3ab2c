/**
 * What an explorer's internal-transaction indexer waits for: `debug_traceTransaction` with callTracer
 * on the LAST transaction of a full block (the dev chain's 120M block gas limit), over HTTP on a real
 * node (lmdb stores). Replaying a stored block re-executes every transaction before the traced one,
 * so the last one is the worst case. Blockscout gives each such call 5 s.
 *
 *   npm run bench -- trace-full-block [runs=5]
 *
 * A block is as full as the proposer makes it: it stops taking transactions at the block gas limit or
 * after executing for PROPOSAL_EXECUTION_BUDGET_MS, whichever comes first (on the JS EVM, the budget
 * comes first for ERC20 transfers); the labels say which bound the block.
 *
 * Figures, one set per block kind (`erc20`: token transfers; `nested`: contract calls that each
 * make four internal calls, one of them reverting, and emit two events):
 *   last_tx_call_tracer_ms    debug_traceTransaction(last tx, callTracer) over HTTP, p50 and max of `runs`
 *   block_call_tracer_ms      debug_traceBlockByNumber(callTracer) of the whole block over HTTP, p50
 * with the block's tx count and gas used as labels.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Interface, type Wallet } from 'ethers';
import type { ChainNode } from '../src/node/node.ts';
import { benchWallets, bytes, startBenchNode } from './bench-node.ts';
import { percentile, report } from './report.ts';

const RUNS = Number(process.argv[3] ?? 5);
const BLOCK_GAS = 120_000_000n; // chaind dev's block gas limit
const GWEI = 10n ** 9n;
const ROOT = new URL('..', import.meta.url).pathname;
const artifacts = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/contracts/artifacts.json'), 'utf8'));
const token = new Interface(artifacts.TestToken.abi);
const caller = new Interface(artifacts.ReplayCaller.abi);
const fee = { chainId: 713714n, type: 2, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: 1n };
const SENDERS = 100;

const home = mkdtempSync(join(tmpdir(), 'chaind-bench-trace-full-'));
let node: ChainNode | undefined;
try {
  const wallets = benchWallets(SENDERS + 1);
  const started = await startBenchNode(
    home,
    wallets,
    { 'state-store.ss-async-write-buffer': '0', 'mempool.size': '10000' },
    { maxGas: BLOCK_GAS },
  );
  node = started.node;
  const n = node;
  const url = n.modules.evmHttp!.url;
  const chain = n.modules.chain;
  const mempool = n.modules.mempool;
  const produce = () => n.modules.engine.producer!.produce();
  const deployer = wallets[SENDERS];
  const nonces = new Map<Wallet, number>();
  const submit = async (w: Wallet, tx: object) => {
    const nonce = nonces.get(w) ?? 0;
    nonces.set(w, nonce + 1);
    const raw = bytes(await w.signTransaction({ ...fee, nonce, ...tx }));
    await mempool.checkTx(raw);
    return '0x' + Buffer.from(chain.decode(raw).hash).toString('hex');
  };
  const rpc = async (method: string, params: unknown[]) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await res.json()) as { result?: unknown; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  };
  const contractOf = async (hash: string) =>
    ((await rpc('eth_getTransactionReceipt', [hash])) as { contractAddress: string }).contractAddress;

  // setup: the token, the nested-call contracts, tokens for every sender
  const tokenTx = await submit(deployer, {
    gasLimit: 3_000_000,
    data: artifacts.TestToken.bytecode + token.encodeDeploy(['B', 'B', 10n ** 30n]).slice(2),
  });
  const calleeTx = await submit(deployer, { gasLimit: 3_000_000, data: artifacts.ReplayCallee.bytecode });
  await produce();
  const tokenAddress = await contractOf(tokenTx);
  const callerTx = await submit(deployer, {
    gasLimit: 3_000_000,
    data: artifacts.ReplayCaller.bytecode + caller.encodeDeploy([await contractOf(calleeTx)]).slice(2),
  });
  for (let i = 0; i < SENDERS; i++)
    await submit(deployer, {
      to: tokenAddress,
      gasLimit: 100_000,
      data: token.encodeFunctionData('transfer', [wallets[i].address, 10n ** 24n]),
    });
  while (mempool.pending() > 0) await produce();
  const callerAddress = await contractOf(callerTx);

  /**
   * Offers one block's gas worth of `make(sender, i)` txs of `gasLimit` each and produces a block:
   * the proposer takes them until the block's gas or its execution budget
   * (PROPOSAL_EXECUTION_BUDGET_MS) runs out, whichever comes first, as it does on a live chain.
   */
  const fullBlock = async (gasLimit: bigint, make: (w: Wallet, i: number) => object) => {
    const offered = Number(BLOCK_GAS / gasLimit);
    for (let i = 0; i < offered; i++)
      await submit(wallets[i % SENDERS], { gasLimit, ...make(wallets[i % SENDERS], i) });
    const block = await produce();
    const height = block.header.height;
    const view = (await rpc('eth_getBlockByNumber', ['0x' + height.toString(16), false])) as {
      transactions: string[];
      gasUsed: string;
    };
    while (mempool.pending() > 0) await produce();
    return {
      height,
      txs: view.transactions.length,
      offered,
      last: view.transactions.at(-1)!,
      gasUsed: Number(view.gasUsed),
      declaredGas: view.transactions.length * Number(gasLimit),
    };
  };

  const kinds = [
    {
      kind: 'erc20',
      block: await fullBlock(55_000n, (_, i) => ({
        to: tokenAddress,
        data: token.encodeFunctionData('transfer', [wallets[(i + 1) % SENDERS].address, 1n]),
      })),
    },
    {
      kind: 'nested',
      block: await fullBlock(150_000n, (_, i) => ({
        to: callerAddress,
        data: caller.encodeFunctionData('nested', [BigInt(i)]),
      })),
    },
  ];

  for (const { kind, block } of kinds) {
    const labels = {
      block: kind,
      txs: block.txs,
      offered: block.offered,
      gas_used: block.gasUsed,
      // 'gas': the block's gas limit stopped the proposer; 'budget': its execution time budget did
      bound_by: block.declaredGas + Number(BLOCK_GAS) / block.offered > Number(BLOCK_GAS) ? 'gas' : 'budget',
      runs: RUNS,
    };
    const lastMs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      const frame = (await rpc('debug_traceTransaction', [block.last, { tracer: 'callTracer' }])) as {
        type: string;
      };
      lastMs.push(performance.now() - t0);
      if (frame.type !== 'CALL') throw new Error(`unexpected trace ${JSON.stringify(frame).slice(0, 200)}`);
    }
    report('trace-full-block', 'last_tx_call_tracer_ms', percentile(lastMs, 50), 'ms', labels);
    report('trace-full-block', 'last_tx_call_tracer_max_ms', Math.max(...lastMs), 'ms', labels);
    const blockMs: number[] = [];
    for (let i = 0; i < Math.min(RUNS, 3); i++) {
      const t0 = performance.now();
      const entries = (await rpc('debug_traceBlockByNumber', [
        '0x' + block.height.toString(16),
        { tracer: 'callTracer' },
      ])) as unknown[];
      blockMs.push(performance.now() - t0);
      if (entries.length !== block.txs) throw new Error(`block trace has ${entries.length} entries`);
    }
    report('trace-full-block', 'block_call_tracer_ms', percentile(blockMs, 50), 'ms', labels);
  }
} finally {
  await node?.stop();
  rmSync(home, { recursive: true, force: true });
}
