/**
 * End-to-end chain throughput, in process with the real stores on lmdb: pre-signed transactions go
 * through admission (mempool.checkTx: decode + sender recovery + checks) and then blocks are produced
 * back to back (execute → block store → SS → SC commit) until the pool is empty.
 *
 *   npm run bench -- chain [txs=20000] [senders=200] [kind=erc20|transfer|swap|both|all]
 *   (both: erc20 and transfer; all: the three. swap: a Uniswap-v2-style pair's swapIn, a
 *   transferFrom, a transfer out, two balance reads and the reserves written, alternating directions)
 *   CHAIN_BENCH_WAVE=5000 npm run bench -- chain …   (admit and produce in waves of 5,000 txs)
 *   CHAIN_BENCH_ENGINES=revm,ethereumjs (the default: each kind on both block EVMs, in this order)
 *
 * Figures: admission tx/s, end-to-end tx/s (admission through commit), block commit time p50/p99
 * and txs per block, the p50 of each commit step (block store, SS, SC), main-thread CPU time per
 * tx (wall figures are noisy on a shared machine; CPU time is not), heap and RSS growth; gas/s of
 * execution alone (a block's production minus its commit steps) and of execute+commit. Every figure
 * is labelled with the block EVM (`engine`); with both engines, `revm_speedup_*` gives ethereumjs's
 * figure ÷ revm's for the same kind in the same run.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Interface, Wallet } from 'ethers';
import { benchWallets, bytes, startBenchNode } from './bench-node.ts';
import { percentile, report } from './report.ts';

const TOTAL = Number(process.argv[3] ?? 20_000);
const SENDERS = Number(process.argv[4] ?? 200);
/** Txs admitted per wave before producing blocks; 0 (default) admits all of them first. */
const WAVE = Number(process.env.CHAIN_BENCH_WAVE ?? 0);
const cpuUs = (a: NodeJS.CpuUsage, b: NodeJS.CpuUsage) => b.user - a.user + (b.system - a.system);
const KIND_ARG = process.argv[5] ?? 'both';
const KINDS =
  KIND_ARG === 'both'
    ? ['erc20', 'transfer']
    : KIND_ARG === 'all'
      ? ['erc20', 'transfer', 'swap']
      : [KIND_ARG];
const ENGINES = (process.env.CHAIN_BENCH_ENGINES ?? 'revm,ethereumjs').split(',');
const GWEI = 10n ** 9n;
const artifacts = JSON.parse(
  readFileSync(new URL('../test/fixtures/contracts/artifacts.json', import.meta.url), 'utf8'),
);
const token = new Interface(artifacts.TestToken.abi);
const pair = new Interface(artifacts.DiffPair.abi);

interface EngineFigures {
  blockCpuUsPerTx: number;
  execGasPerS: number;
  execCommitGasPerS: number;
}

async function run(kind: string, engine: string): Promise<EngineFigures> {
  const home = mkdtempSync(join(tmpdir(), 'chaind-bench-'));
  try {
    const wallets = benchWallets(SENDERS + 1);
    // blocks are produced by hand below, back to back
    const { node } = await startBenchNode(home, wallets, {
      'mempool.ttl-duration': '0s',
      'mempool.ttl-num-blocks': '0',
      'mempool.size': String(TOTAL + 10),
      'mempool.cache-size': String(TOTAL + 10),
      'evm.block_engine': engine,
    });
    const mempool = node.modules.mempool;

    // Setup (not measured), sent by the deployer: its txs, and the address a deploy created.
    const deployer = wallets[SENDERS];
    let deployerNonce = 0;
    const send = async (tx: object) => {
      const raw = bytes(
        await deployer.signTransaction({
          chainId: 713714n,
          type: 2,
          nonce: deployerNonce++,
          gasLimit: 3_000_000,
          maxFeePerGas: 100n * GWEI,
          maxPriorityFeePerGas: 0n,
          ...tx,
        }),
      );
      await mempool.checkTx(raw);
      return raw;
    };
    const producedAddress = (raw: Uint8Array) =>
      '0x' +
      Buffer.from(
        node.modules.blocks.receiptByEvmHash(node.modules.chain.decode(raw).hash)!.receipt.contractAddress!,
      ).toString('hex');
    const deployToken = (symbol: string) =>
      send({
        data: artifacts.TestToken.bytecode + token.encodeDeploy([symbol, symbol, 10n ** 30n]).slice(2),
      });
    const produceAll = async () => {
      while (mempool.pending() > 0) await node.modules.engine.producer!.produce();
    };

    // for ERC20: a token, and every sender funded with it
    let tokenAddress = '';
    if (kind === 'erc20') {
      const deploy = await deployToken('B');
      await produceAll();
      tokenAddress = producedAddress(deploy);
      for (let i = 0; i < SENDERS; i++)
        await send({
          to: tokenAddress,
          data: token.encodeFunctionData('transfer', [wallets[i].address, 10n ** 24n]),
        });
      await produceAll();
    }

    // for swaps: two tokens, a pair holding liquidity of both, every sender holding both tokens and
    // having approved the pair for them
    let pairAddress = '';
    if (kind === 'swap') {
      const t0Deploy = await deployToken('A');
      const t1Deploy = await deployToken('B');
      await produceAll();
      const tokens = [producedAddress(t0Deploy), producedAddress(t1Deploy)];
      const pairDeploy = await send({
        data: artifacts.DiffPair.bytecode + pair.encodeDeploy(tokens).slice(2),
      });
      await produceAll();
      pairAddress = producedAddress(pairDeploy);
      for (const t of tokens)
        await send({ to: t, data: token.encodeFunctionData('transfer', [pairAddress, 10n ** 27n]) });
      await send({ to: pairAddress, data: pair.encodeFunctionData('sync', []) });
      for (let i = 0; i < SENDERS; i++)
        for (const t of tokens)
          await send({ to: t, data: token.encodeFunctionData('transfer', [wallets[i].address, 10n ** 24n]) });
      await produceAll();
      for (let i = 0; i < SENDERS; i++)
        for (const [n, t] of tokens.entries()) {
          const raw = await wallets[i].signTransaction({
            chainId: 713714n,
            type: 2,
            nonce: n,
            to: t,
            gasLimit: 100_000,
            maxFeePerGas: 100n * GWEI,
            maxPriorityFeePerGas: 0n,
            data: token.encodeFunctionData('approve', [pairAddress, 2n ** 255n]),
          });
          await mempool.checkTx(bytes(raw));
        }
      await produceAll();
    }

    const perSender = Math.ceil(TOTAL / SENDERS);
    const raws: Uint8Array[] = [];
    for (let n = 0; n < perSender; n++) {
      for (let i = 0; i < SENDERS && raws.length < TOTAL; i++) {
        const to = wallets[(i + 1 + n) % SENDERS].address;
        const tx =
          kind === 'erc20'
            ? { to: tokenAddress, data: token.encodeFunctionData('transfer', [to, 1n]), gasLimit: 100_000 } // 100M block gas / 100k = 1,000 txs per block
            : kind === 'swap'
              ? {
                  to: pairAddress,
                  data: pair.encodeFunctionData('swapIn', [
                    (n + i) % 2 === 0,
                    10n ** 18n,
                    wallets[i].address,
                  ]),
                  gasLimit: 200_000,
                }
              : { to, value: 1n, gasLimit: 21_000 };
        raws.push(
          bytes(
            await wallets[i].signTransaction({
              chainId: 713714n,
              type: 2,
              nonce: kind === 'swap' ? n + 2 : n,
              maxFeePerGas: 100n * GWEI,
              maxPriorityFeePerGas: 1n,
              ...tx,
            }),
          ),
        );
      }
    }

    const steps = { blockStore: [] as number[], stateStore: [] as number[], stateCommit: [] as number[] };
    let gas = 0n;
    let commitMs = 0;
    let failed = 0;
    node.modules.chain.onBlock(({ timings, executed }) => {
      steps.blockStore.push(timings.blockStore * 1000);
      steps.stateStore.push(timings.stateStore * 1000);
      steps.stateCommit.push(timings.stateCommit * 1000);
      commitMs += (timings.blockStore + timings.stateStore + timings.stateCommit) * 1000;
      gas += executed.gasUsed;
      failed += executed.receipts.filter((r) => r.status === 0).length;
    });
    global.gc?.();
    const profiler = process.env.BENCH_PROFILE ? await startProfile() : undefined;
    const heap0 = process.memoryUsage();
    const rss0 = rssSplit();
    const cpu0 = process.threadCpuUsage();
    const t0 = performance.now();
    // Admission of everything first (the default), or in waves that each go into blocks before the
    // next is admitted (CHAIN_BENCH_WAVE: the pool then holds at most one wave, as a live node's does).
    const wave = WAVE > 0 ? WAVE : raws.length;
    let admissionMs = 0;
    let admissionCpuUs = 0;
    let peakRss = process.memoryUsage.rss();
    const blockMs: number[] = [];
    const blockTxs: number[] = [];
    let included = 0;
    for (let start = 0; start < raws.length; start += wave) {
      const a0 = performance.now();
      const ac0 = process.threadCpuUsage();
      for (const raw of raws.slice(start, start + wave)) await mempool.checkTx(raw);
      admissionCpuUs += cpuUs(ac0, process.threadCpuUsage());
      admissionMs += performance.now() - a0;
      while (mempool.pending() > 0) {
        const b0 = performance.now();
        const block = await node.modules.engine.producer!.produce();
        blockMs.push(performance.now() - b0);
        blockTxs.push(block.txs.length);
        included += block.txs.length;
        peakRss = Math.max(peakRss, process.memoryUsage.rss());
      }
    }
    const t1 = performance.now();
    const cpu1 = process.threadCpuUsage();
    if (profiler) await profiler.stop(`${process.env.BENCH_PROFILE}-${kind}.cpuprofile`);
    global.gc?.();
    const heap1 = process.memoryUsage();
    const rss1 = rssSplit();
    const labels = { kind, engine, txs: TOTAL, senders: SENDERS, ...(WAVE > 0 ? { wave: WAVE } : {}) };
    const producingMs = blockMs.reduce((a, b) => a + b, 0);
    const figures: EngineFigures = {
      blockCpuUsPerTx: (cpuUs(cpu0, cpu1) - admissionCpuUs) / included,
      execGasPerS: Number(gas) / ((producingMs - commitMs) / 1000),
      execCommitGasPerS: Number(gas) / (producingMs / 1000),
    };
    report('chain', 'exec_gas_per_s', figures.execGasPerS, 'gas/s', labels);
    report('chain', 'exec_commit_gas_per_s', figures.execCommitGasPerS, 'gas/s', labels);
    report('chain', 'admission_tx_per_s', (TOTAL / admissionMs) * 1000, 'tx/s', labels);
    report('chain', 'end_to_end_tx_per_s', (included / (t1 - t0)) * 1000, 'tx/s', labels);
    report('chain', 'block_ms_p50', percentile(blockMs, 50), 'ms', {
      ...labels,
      txs_per_block_p50: percentile(blockTxs, 50),
    });
    report('chain', 'block_ms_p99', percentile(blockMs, 99), 'ms', {
      ...labels,
      txs_per_block_max: Math.max(...blockTxs),
    });
    report(
      'chain',
      'execute_commit_tx_per_s',
      (included / blockMs.reduce((a, b) => a + b, 0)) * 1000,
      'tx/s',
      labels,
    );
    report('chain', 'admission_cpu_us_per_tx', admissionCpuUs / TOTAL, 'us', labels);
    report('chain', 'block_cpu_us_per_tx', figures.blockCpuUsPerTx, 'us', labels);
    report('chain', 'end_to_end_cpu_tx_per_s', (included / cpuUs(cpu0, cpu1)) * 1e6, 'tx/s', labels);
    for (const [step, ms] of Object.entries(steps)) {
      report('chain', `${step}_ms_p50`, percentile(ms, 50), 'ms', labels);
    }
    report('chain', 'heap_growth_mb', (heap1.heapUsed - heap0.heapUsed) / 2 ** 20, 'MiB', labels);
    report('chain', 'rss_growth_mb', (heap1.rss - heap0.rss) / 2 ** 20, 'MiB', labels);
    report('chain', 'rss_peak_growth_mb', (peakRss - heap0.rss) / 2 ** 20, 'MiB', labels);
    // RSS counts the touched pages of the stores' memory maps (file-backed, reclaimable) as well as
    // the process's own memory; Linux tells them apart.
    if (rss0 && rss1) {
      report('chain', 'rss_anon_growth_mb', (rss1.anon - rss0.anon) / 1024, 'MiB', labels);
      report('chain', 'rss_file_growth_mb', (rss1.file - rss0.file) / 1024, 'MiB', labels);
    }
    if (included !== TOTAL) report('chain', 'missing_txs', TOTAL - included, 'txs', labels);
    // a workload whose txs fail measures the failure, not the work
    if (failed > 0) report('chain', 'failed_txs', failed, 'txs', labels);
    await node.stop();
    return figures;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** Resident KiB by kind (anonymous, file-backed) from /proc; undefined where there is no /proc. */
function rssSplit(): { anon: number; file: number } | undefined {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { anon: kib('RssAnon'), file: kib('RssFile') + kib('RssShmem') };
  } catch {
    return undefined;
  }
}

/** CPU profile of the measured section only (BENCH_PROFILE=<path prefix>), for the top costs. */
async function startProfile() {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop(path: string) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(path, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

for (const kind of KINDS) {
  const byEngine = new Map<string, EngineFigures>();
  for (const engine of ENGINES) byEngine.set(engine, await run(kind, engine));
  const revm = byEngine.get('revm');
  const ejs = byEngine.get('ethereumjs');
  if (revm && ejs) {
    const labels = { kind, txs: TOTAL };
    report('chain', 'revm_speedup_block_cpu', ejs.blockCpuUsPerTx / revm.blockCpuUsPerTx, 'x', labels);
    report('chain', 'revm_speedup_exec_gas_per_s', revm.execGasPerS / ejs.execGasPerS, 'x', labels);
    report(
      'chain',
      'revm_speedup_exec_commit_gas_per_s',
      revm.execCommitGasPerS / ejs.execCommitGasPerS,
      'x',
      labels,
    );
  }
}
