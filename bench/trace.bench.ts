/**
 * debug_trace* cost, in process on a real node (lmdb stores), and what tracing costs blocks that are
 * not traced.
 *
 *   npm run bench -- trace [runs=20] [baseRef=a0e6928]
 *
 * Figures:
 *   struct_log_tx_ms         debug_traceTransaction with the struct logger of a ~1,000-step tx
 *                            (ReplayCaller.fill, calibrated with debug_traceCall), p50 over `runs`
 *   call_tracer_block_ms     debug_traceBlockByNumber with callTracer of a 100-tx block (ERC20
 *                            transfers and nested calls), p50
 *   execute_block_ms         executeBlock of that block with no tracer (the block pipeline's path),
 *                            from a copy of HEAD's src/
 *   execute_block_base_ms    the same, from a copy of HEAD's src/ whose block-executor.ts and
 *                            block-execution.ts are those of `baseRef` (the commit before the tracer
 *                            hook); same block, same state reader
 *   untraced_vs_base_ratio   execute_block_ms / execute_block_base_ms (1.0 = tracing costs untraced
 *                            blocks nothing); runs interleave the two so machine noise hits both
 *   noop_traced_vs_untraced  executeBlock with a noopTracer on every tx / without (the hooks' cost)
 * Calls go through `Tracing` (the RPC methods' limits) without HTTP, so they measure the replay and
 * the tracer rather than JSON transport.
 */
import { execSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Interface, Wallet } from 'ethers';
import { stateVersion } from '../src/chain/chain.ts';
import { executeBlock } from '../src/chain/block-execution.ts';
import { consensusInfoOfBlock } from '../src/chain/consensus-info.ts';
import { createTracer } from '../src/execution/tracing/index.ts';
import { ChainNode } from '../src/node/node.ts';
import { EvmRpc } from '../src/node/evm-rpc.ts';
import { benchWallets, bytes, startBenchNode } from './bench-node.ts';
import { silentLogger } from '../src/util/logger.ts';
import { percentile, report } from './report.ts';

const RUNS = Number(process.argv[3] ?? 20);
const BASE_REF = process.argv[4] ?? 'a0e6928';
const GWEI = 10n ** 9n;
const ROOT = new URL('..', import.meta.url).pathname;
const artifacts = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/contracts/artifacts.json'), 'utf8'));
const token = new Interface(artifacts.TestToken.abi);
const caller = new Interface(artifacts.ReplayCaller.abi);
const fee = { chainId: 713714n, type: 2, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: 1n };

const home = mkdtempSync(join(tmpdir(), 'chaind-bench-trace-'));
const base = mkdtempSync(join(tmpdir(), 'chaind-bench-trace-base-'));
const head = mkdtempSync(join(tmpdir(), 'chaind-bench-trace-head-'));
let node: ChainNode | undefined;
try {
  const wallets = benchWallets(51);
  const started = await startBenchNode(home, wallets, { 'state-store.ss-async-write-buffer': '0' });
  node = started.node;
  const { config, genesis } = started;
  const chain = node.modules.chain;
  const mempool = node.modules.mempool;
  const deployer = wallets[50];
  let nonce = 0;
  const submit = async (w: Wallet, tx: object) => {
    const raw = bytes(await w.signTransaction({ ...fee, ...tx }));
    await mempool.checkTx(raw);
    return chain.decode(raw).hash;
  };
  const addressOf = (hash: Uint8Array) =>
    '0x' + Buffer.from(node!.modules.blocks.receiptByEvmHash(hash)!.receipt.contractAddress!).toString('hex');

  // setup: the token, the nested-call fixtures, tokens for every sender
  const tokenTx = await submit(deployer, {
    nonce: nonce++,
    gasLimit: 3_000_000,
    data: artifacts.TestToken.bytecode + token.encodeDeploy(['B', 'B', 10n ** 30n]).slice(2),
  });
  const calleeTx = await submit(deployer, {
    nonce: nonce++,
    gasLimit: 3_000_000,
    data: artifacts.ReplayCallee.bytecode,
  });
  await node.modules.engine.producer!.produce();
  const tokenAddress = addressOf(tokenTx);
  const calleeAddress = addressOf(calleeTx);
  const callerTx = await submit(deployer, {
    nonce: nonce++,
    gasLimit: 3_000_000,
    data: artifacts.ReplayCaller.bytecode + caller.encodeDeploy([calleeAddress]).slice(2),
  });
  for (let i = 0; i < 50; i++)
    await submit(deployer, {
      nonce: nonce++,
      to: tokenAddress,
      gasLimit: 100_000,
      data: token.encodeFunctionData('transfer', [wallets[i].address, 10n ** 24n]),
    });
  while (mempool.pending() > 0) await node.modules.engine.producer!.produce();
  const callerAddress = addressOf(callerTx);

  const evmRpc = new EvmRpc(
    { evm: config.app.evm, genesis, logger: silentLogger, registry: node.metricsRegistry },
    {
      chain,
      ss: node.modules.ss,
      sc: node.modules.sc,
      mempool,
      submission: node.modules.submission,
      sync: () => node!.syncStatus(),
    },
  );
  const tracing = evmRpc.tracing;
  evmRpc.close(); // only its tracing is measured: no filter sweepers left running

  // calibrate fill(n) to ~1,000 struct-log steps on the latest state
  const latest = () => chain.latestHeight;
  const stepsOf = async (n: bigint) => {
    const r = (await tracing.traceCall(latest(), {
      from: bytes(deployer.address),
      to: bytes(callerAddress),
      data: bytes(caller.encodeFunctionData('fill', [n])),
      gas: 10_000_000n,
    })) as { structLogs: unknown[] };
    return r.structLogs.length;
  };
  const one = await stepsOf(1n);
  const perIteration = (await stepsOf(2n)) - one;
  const n = BigInt(Math.max(1, Math.round((1000 - one) / perIteration) + 1));
  const fillTx = await submit(deployer, {
    nonce: nonce++,
    to: callerAddress,
    gasLimit: 5_000_000,
    data: caller.encodeFunctionData('fill', [n]),
  });

  const fillBlock = await node.modules.engine.producer!.produce();

  // the 100-tx block: 50 token transfers and 50 nested-call txs (one of each per sender)
  for (let i = 0; i < 50; i++) {
    await submit(wallets[i], {
      nonce: 0,
      to: tokenAddress,
      gasLimit: 100_000,
      data: token.encodeFunctionData('transfer', [wallets[(i + 1) % 50].address, 1n]),
    });
    await submit(wallets[i], {
      nonce: 1,
      to: callerAddress,
      gasLimit: 300_000,
      data: caller.encodeFunctionData('nested', [BigInt(i)]),
    });
  }
  const block = await node.modules.engine.producer!.produce();
  if (block.txs.length !== 100) throw new Error(`the traced block holds ${block.txs.length} txs, not 100`);
  const fillHeight = fillBlock.header.height;
  const height = block.header.height;
  const loc = node.modules.blocks.txLocationByEvmHash(fillTx)!;

  const timed = async <T>(fn: () => Promise<T>): Promise<[number, T]> => {
    const t0 = performance.now();
    const v = await fn();
    return [performance.now() - t0, v];
  };

  const structMs: number[] = [];
  let steps = 0;
  for (let i = 0; i < RUNS; i++) {
    const [ms, r] = await timed(() => tracing.traceTransaction(fillTx, {}));
    structMs.push(ms);
    steps = (r as { structLogs: unknown[] }).structLogs.length;
  }
  report('trace', 'struct_log_tx_ms', percentile(structMs, 50), 'ms', {
    steps,
    tx_index_in_block: loc.evmIndex,
    block_height: fillHeight,
    runs: RUNS,
  });

  const callMs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const [ms, entries] = await timed(() => tracing.traceBlock(height, { tracer: 'callTracer' }));
    if (entries.length !== 100 || entries.some((e) => 'error' in e)) throw new Error('block trace failed');
    callMs.push(ms);
  }
  report('trace', 'call_tracer_block_ms', percentile(callMs, 50), 'ms', { txs: 100, runs: RUNS });

  // Untraced execution of the same block, on two copies of HEAD's src/ that differ only in the
  // tracing changes: `pre` has block-executor.ts and block-execution.ts as they were at BASE_REF
  // (before the tracer hook and the replay hooks). Fresh module copies for both, so neither profits
  // from the node's warmed-up code.
  const load = async (dir: string, pre: boolean) => {
    execSync(`git -C ${ROOT} archive HEAD src package.json | tar -x -C ${dir}`);
    for (const f of pre ? ['src/execution/block-executor.ts', 'src/chain/block-execution.ts'] : [])
      execSync(`git -C ${ROOT} show ${BASE_REF}:${f} > ${join(dir, f)}`);
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    return (
      (await import(join(dir, 'src/chain/block-execution.ts'))) as { executeBlock: typeof executeBlock }
    ).executeBlock;
  };
  const current = await load(head, false);
  const previous = await load(base, true);
  const read = (await node.modules.ss.syncReaderAt!(stateVersion(height - 1)))!;
  const stored = node.modules.blocks.blockByHeight(height)!;
  const txs = stored.txs.map((raw) => chain.decodeBlockTx(raw));
  const ctx = chain.contextFor({ ...stored.header, consensus: consensusInfoOfBlock(stored) });
  const run = (fn: typeof executeBlock, traced = false) =>
    timed(() =>
      fn(
        chain.common,
        { get: read, stable: true },
        ctx,
        chain.feeParams,
        txs,
        'replay',
        traced
          ? {
              execOptions: (i) => ({
                tracer: createTracer({ tracer: 'noopTracer' }, { blockHeight: BigInt(height), txIndex: i }),
              }),
            }
          : undefined,
      ),
    );
  const now: number[] = [];
  const then: number[] = [];
  const noop: number[] = [];
  for (let i = 0; i < 3; i++) (await run(current), await run(previous)); // warm-up
  for (let i = 0; i < RUNS; i++) {
    now.push((await run(current))[0]);
    then.push((await run(previous))[0]);
    noop.push((await run(current, true))[0]);
  }
  const p50 = (a: number[]) => percentile(a, 50);
  report('trace', 'execute_block_ms', p50(now), 'ms', { txs: 100, runs: RUNS });
  report('trace', 'execute_block_base_ms', p50(then), 'ms', { txs: 100, runs: RUNS, base_ref: BASE_REF });
  report('trace', 'untraced_vs_base_ratio', p50(now) / p50(then), 'x', { base_ref: BASE_REF });
  report('trace', 'noop_traced_vs_untraced', p50(noop) / p50(now), 'x', { txs: 100 });
} finally {
  await node?.stop();
  rmSync(home, { recursive: true, force: true });
  rmSync(base, { recursive: true, force: true });
  rmSync(head, { recursive: true, force: true });
}
