/**
 * chaind against Hardhat's node for the issue's read methods, on the same chain, the same load
 * generator (this process: 64 requests in flight on 64 keep-alive connections) and the same machine.
 *
 *   HARDHAT_DIR=/tmp/hh npm run bench -- rpc-vs-hardhat [seconds per run = 2] [rounds = 3] [blocks = 2100]
 *
 * HARDHAT_DIR is a scratch npm project with `hardhat` installed (`npm init -y && npm install hardhat@2`);
 * hardhat is never a dependency of chaind. Without it the bench prints one skip line and exits 0.
 *
 * Setup: `chaind dev` builds the chain of the rpc bench (an ERC20, then one transfer per block); the
 * very same signed txs are replayed on a Hardhat node whose chain id is chaind's, each in the block
 * height it has on chaind (`hardhat_mine` fills the empty blocks between), so both nodes hold the same
 * blocks, txs, receipts and logs. chaind is then restarted with empty blocks off.
 *
 * Wall-clock figures are noisy when the cores are shared, so each method is measured in `rounds`
 * back-to-back pairs whose order alternates (chaind then Hardhat, Hardhat then chaind, ...): the
 * ratio of each pair is taken and the median ratio reported, next to each node's median req/s and p99.
 * Figures: <method>_chaind_req_per_s, <method>_hardhat_req_per_s, <method>_chaind_p99_ms,
 * <method>_hardhat_p99_ms and <method>_ratio (chaind req/s ÷ Hardhat req/s, median over rounds).
 *
 * Also the CPU time (user + system, the node's whole process tree) per answered request,
 * <method>_{chaind,hardhat}_cpu_us_per_req, and <method>_cpu_ratio (Hardhat's ÷ chaind's, median over
 * rounds): what a request costs each node, which other load on the machine disturbs far less than
 * wall-clock rates. Under such load the wall-clock ratio also depends on thread counts: the
 * scheduler shares the cores per runnable thread, and Hardhat's node (EDR) runs several while chaind
 * answers on one.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { report } from './report.ts';
import { hardhatCli, hardhatInstalled, replay, startHardhat, treeCpuMs } from './rpc-hardhat.ts';
import {
  agent,
  buildChain,
  call,
  load,
  readScenarios,
  startChaind,
  stop,
  type LoadResult,
} from './rpc-common.ts';

const BENCH = 'rpc-vs-hardhat';
const SECONDS = Number(process.argv[3] ?? 2);
const ROUNDS = Number(process.argv[4] ?? 3);
const BLOCKS = Number(process.argv[5] ?? 2100);
const HARDHAT_DIR = process.env.HARDHAT_DIR;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

if (!hardhatInstalled(HARDHAT_DIR)) {
  console.log(
    JSON.stringify({
      bench: BENCH,
      skipped: `set HARDHAT_DIR to a scratch npm project with hardhat installed (npm init -y && npm install hardhat@2); ${
        HARDHAT_DIR ? `${hardhatCli(HARDHAT_DIR)} not found` : 'HARDHAT_DIR is not set'
      }`,
    }),
  );
} else {
  const home = mkdtempSync(join(tmpdir(), 'chaind-bench-rpc-hh-'));
  const nodes: ChildProcess[] = [];
  try {
    const dev = await startChaind(['dev', '--home', home, '--consensus.timeout-commit', '1ms']);
    nodes.push(dev.child);
    const { tokenAddress, txs, seconds } = await buildChain(dev.url, BLOCKS);
    await stop(dev.child);
    const chaind = await startChaind(['start', '--home', home, '--consensus.create-empty-blocks', 'false']);
    nodes.push(chaind.child);
    const latest = Number(await call(chaind.url, 'eth_blockNumber'));
    report(BENCH, 'setup_blocks', latest, 'blocks', { txs: txs.length, seconds });

    const hardhat = await startHardhat(HARDHAT_DIR, home);
    nodes.push(hardhat.child);
    const version = await call(hardhat.url, 'web3_clientVersion');
    const replayStarted = Date.now();
    await replay(hardhat.url, txs, latest);
    report(BENCH, 'hardhat_replay_seconds', (Date.now() - replayStarted) / 1000, 's', { version });

    const hashes = txs.slice(1).map((t) => t.hash);
    const targets = [
      { name: 'chaind', node: chaind, scenarios: await readScenarios(chaind.url, tokenAddress, hashes) },
      { name: 'hardhat', node: hardhat, scenarios: await readScenarios(hardhat.url, tokenAddress, hashes) },
    ];
    for (let s = 0; s < targets[0].scenarios.length; s++) {
      const [a, b] = [targets[0].scenarios[s], targets[1].scenarios[s]];
      // same chain, so the same answers: a differing log count would make the comparison meaningless
      if (JSON.stringify(a.labels) !== JSON.stringify(b.labels))
        throw new Error(`${a.name}: chaind ${JSON.stringify(a.labels)}, hardhat ${JSON.stringify(b.labels)}`);
      const runs: Record<string, (LoadResult & { cpuUs: number })[]> = { chaind: [], hardhat: [] };
      const ratios: number[] = [];
      const cpuRatios: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? targets : [targets[1], targets[0]];
        for (const t of order) {
          const pid = t.node.child.pid!;
          let cpu0 = 0;
          const r = await load(t.node.url, a.name, t.scenarios[s].body, SECONDS, 500, () => {
            cpu0 = treeCpuMs(pid);
          });
          runs[t.name].push({ ...r, cpuUs: ((treeCpuMs(pid) - cpu0) * 1000) / r.requests });
        }
        ratios.push(runs.chaind[round].reqPerS / runs.hardhat[round].reqPerS);
        cpuRatios.push(runs.hardhat[round].cpuUs / runs.chaind[round].cpuUs);
      }
      const labels = { concurrency: 64, rounds: ROUNDS, seconds_per_run: SECONDS, ...a.labels };
      for (const t of targets) {
        report(
          BENCH,
          `${a.name}_${t.name}_req_per_s`,
          median(runs[t.name].map((r) => r.reqPerS)),
          'req/s',
          labels,
        );
        report(BENCH, `${a.name}_${t.name}_p99_ms`, median(runs[t.name].map((r) => r.p99Ms)), 'ms', labels);
        report(
          BENCH,
          `${a.name}_${t.name}_cpu_us_per_req`,
          median(runs[t.name].map((r) => r.cpuUs)),
          'us',
          labels,
        );
      }
      report(BENCH, `${a.name}_ratio`, median(ratios), 'x', {
        ...labels,
        per_round: ratios.map((r) => Math.round(r * 100) / 100),
      });
      // CPU time per request is much less disturbed by other processes than wall-clock throughput
      report(BENCH, `${a.name}_cpu_ratio`, median(cpuRatios), 'x', {
        ...labels,
        per_round: cpuRatios.map((r) => Math.round(r * 100) / 100),
      });
    }
  } finally {
    for (const child of nodes.reverse()) await stop(child);
    agent.destroy();
    rmSync(home, { recursive: true, force: true });
  }
}
