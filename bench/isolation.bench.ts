/**
 * `npm run bench -- isolation`: does an RPC node keep up with the chain while clients flood it? One
 * validator and one RPC node (400 ms blocks) on this machine; the chain holds 45,000 logs. For each
 * load — idle, wide eth_getLogs, debug_traceBlockByNumber, an eth_call flood, 2,000 WebSocket
 * subscriptions, 900 busy HTTP connections — held for ISOLATION_PHASE_S seconds (20), it reports the
 * RPC node's lag behind the validator (sampled every 100 ms: max, mean, share of samples over 2
 * blocks), its block processing time as CometBFT measures it (FinalizeBlock sent to answered, mean
 * and p99 from the histogram), and what the flood got (requests answered per second, p50 latency).
 * The same loads run twice: with `[evm] rpc_yields_to_blocks = true` (the default: RPC work waits
 * while a block is in progress) and with it off, side by side in one run.
 */
import { Agent } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { post } from '../test/helpers/abuse.ts';
import { ChaosCluster, type ChaosNode } from '../test/helpers/chaos/cluster.ts';
import { sleep } from '../test/helpers/chaos/rpc.ts';
import { fillLogs, logLoopInitCode, rpc } from '../test/helpers/log-load.ts';
import { claimPortBlock } from '../test/helpers/network.ts';
import { percentile, report } from './report.ts';

const PHASE_S = Number(process.env.ISOLATION_PHASE_S ?? 20);
const LOADS = (process.env.ISOLATION_LOADS ?? 'idle,getLogs,trace,call,ws_subscriptions,connections').split(
  ',',
);
const MODES = (process.env.ISOLATION_MODES ?? 'on,off').split(',');

const releases: (() => void)[] = [];
const dir = mkdtempSync(join(tmpdir(), 'chaind-isolation-'));
const basePort = await claimPortBlock({ after: (fn) => releases.push(fn) }, 2);
const cluster = ChaosCluster.create({
  dir,
  validators: 1,
  rpcNodes: 1,
  basePort,
  flags: ['--consensus.timeout-commit', '400ms', '--consensus.timeout-propose', '1s'],
});
const [validator] = cluster.validators;
const [node] = cluster.rpcNodes;

async function height(n: ChaosNode, agent: Agent): Promise<number> {
  try {
    const r = await post(
      cluster.evmUrl(n),
      { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
      agent,
      5_000,
    );
    return Number(r.result);
  } catch {
    return -1;
  }
}

async function waitCaughtUp(ms = 180_000): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 2 });
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const [v, r] = await Promise.all([height(validator, agent), height(node, agent)]);
    if (v > 0 && r >= v - 1) return;
    await sleep(200);
  }
  throw new Error(`the RPC node did not catch up within ${ms / 1000} s`);
}

/** A histogram's cumulative buckets, sum and count from an exposition. */
function histogram(text: string, name: RegExp) {
  const buckets = new Map<number, number>();
  let sum = 0;
  let count = 0;
  for (const line of text.split('\n')) {
    const m = /^(\w+?)_(bucket|sum|count)(\{[^}]*\})? (\S+)$/.exec(line);
    if (!m || !name.test(m[1])) continue;
    if (m[2] === 'sum') sum = Number(m[4]);
    else if (m[2] === 'count') count = Number(m[4]);
    else {
      const le = /le="([^"]+)"/.exec(m[3] ?? '')?.[1];
      if (le) buckets.set(le === '+Inf' ? Infinity : Number(le), Number(m[4]));
    }
  }
  return { buckets, sum, count };
}

async function processing() {
  const r = await fetch(cluster.metricsUrl(node), { signal: AbortSignal.timeout(10_000) });
  return histogram(await r.text(), /_state_block_processing_time$/);
}

/** Mean and p99 (upper bucket bound) of what was observed between two readings. */
function between(a: ReturnType<typeof histogram>, b: ReturnType<typeof histogram>) {
  const n = b.count - a.count;
  let p99 = NaN;
  let largest = 0;
  for (const [le, c] of [...b.buckets].sort((x, y) => x[0] - y[0])) {
    if (Number.isFinite(le)) largest = le;
    if (c - (a.buckets.get(le) ?? 0) >= 0.99 * n) {
      p99 = le;
      break;
    }
  }
  // past the histogram's largest bound: that bound, flagged
  const above = p99 === Infinity;
  return { blocks: n, mean: n > 0 ? (b.sum - a.sum) / n : NaN, p99: above ? largest : p99, above };
}

interface Flood {
  done: number;
  errors: number;
  latencies: number[];
  stop(): Promise<void>;
}

/** `workers` loops each posting `body()` and waiting for the answer, over `agent`. */
function loops(workers: number, agent: Agent, body: () => unknown): Flood {
  const f: Flood = { done: 0, errors: 0, latencies: [], stop: async () => {} };
  let running = true;
  const all = Array.from({ length: workers }, async () => {
    while (running) {
      const t0 = performance.now();
      try {
        const r = await post(cluster.evmUrl(node), body(), agent, 60_000);
        if (r.error) f.errors++;
        else f.done++;
        f.latencies.push(performance.now() - t0);
      } catch {
        f.errors++;
        await sleep(100);
      }
    }
  });
  f.stop = async () => {
    running = false;
    await Promise.all(all);
    agent.destroy();
  };
  return f;
}

let logRange = { from: 1, to: 1 };

async function startLoad(load: string): Promise<Flood | undefined> {
  const call = (method: string, params: unknown[]) => () => ({ jsonrpc: '2.0', id: 1, method, params });
  switch (load) {
    case 'idle':
      return undefined;
    case 'getLogs':
      return loops(
        4,
        new Agent({ keepAlive: true, maxSockets: 4 }),
        call('eth_getLogs', [
          { fromBlock: '0x' + logRange.from.toString(16), toBlock: '0x' + logRange.to.toString(16) },
        ]),
      );
    case 'trace': {
      let i = 0;
      return loops(4, new Agent({ keepAlive: true, maxSockets: 4 }), () =>
        call('debug_traceBlockByNumber', [
          '0x' + (logRange.from + (i++ % (logRange.to - logRange.from + 1))).toString(16),
          { tracer: 'callTracer', tracerConfig: { withLog: true } },
        ])(),
      );
    }
    case 'call':
      return loops(
        32,
        new Agent({ keepAlive: true, maxSockets: 32 }),
        call('eth_call', [{ data: logLoopInitCode(3_000), gas: '0x1c9c380' }, 'latest']),
      );
    case 'connections':
      return loops(
        900,
        new Agent({ keepAlive: true, maxSockets: 900 }),
        call('eth_getBalance', ['0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', 'latest']),
      );
    case 'ws_subscriptions': {
      const sockets: WebSocket[] = [];
      const f: Flood = { done: 0, errors: 0, latencies: [], stop: async () => {} };
      for (let c = 0; c < 20; c++) {
        const ws = new WebSocket(cluster.wsUrl(node));
        await new Promise<void>((ok, fail) => {
          ws.once('open', () => ok());
          ws.once('error', fail);
        });
        ws.on('message', () => f.done++);
        ws.on('error', () => f.errors++);
        for (let s = 0; s < 100; s++)
          ws.send(
            JSON.stringify({
              jsonrpc: '2.0',
              id: s,
              method: 'eth_subscribe',
              params: s % 2 === 0 ? ['newHeads'] : ['logs', {}],
            }),
          );
        sockets.push(ws);
      }
      f.stop = async () => {
        for (const ws of sockets) ws.terminate();
      };
      return f;
    }
  }
  throw new Error(`unknown load ${load}; loads: idle,getLogs,trace,call,ws_subscriptions,connections`);
}

try {
  for (const n of cluster.nodes) cluster.start(n.name);
  await waitCaughtUp();
  logRange = await fillLogs(cluster.evmUrl(node), 5, 9_000);
  report('isolation', 'logs', 45_000, 'logs', { blocks: logRange });
  for (const mode of MODES) {
    await cluster.stop(node.name);
    cluster.start(node.name, ['--evm.rpc_yields_to_blocks', mode === 'on' ? 'true' : 'false']);
    await waitCaughtUp();
    for (const load of LOADS) {
      const before = await processing();
      const flood = await startLoad(load);
      const agent = new Agent({ keepAlive: true, maxSockets: 2 });
      const lags: number[] = [];
      const end = Date.now() + PHASE_S * 1_000;
      while (Date.now() < end) {
        const [v, r] = await Promise.all([height(validator, agent), height(node, agent)]);
        if (v > 0 && r >= 0) lags.push(Math.max(0, v - r));
        await sleep(100);
      }
      await flood?.stop();
      const after = await processing();
      const p = between(before, after);
      const labels = { mode: `rpc_yields_to_blocks=${mode}`, load };
      report('isolation', 'lag_max', Math.max(...lags), 'blocks', labels);
      report('isolation', 'lag_mean', lags.reduce((a, b) => a + b, 0) / lags.length, 'blocks', labels);
      report('isolation', 'lag_over_2', (100 * lags.filter((l) => l > 2).length) / lags.length, '%', labels);
      report('isolation', 'block_processing_mean', p.mean, 'ms', { ...labels, blocks: p.blocks });
      report('isolation', 'block_processing_p99', p.p99, 'ms', {
        ...labels,
        ...(p.above ? { above: true } : {}),
      });
      if (flood) {
        report('isolation', 'flood_answers', flood.done / PHASE_S, 'per_s', {
          ...labels,
          errors: flood.errors,
        });
        if (flood.latencies.length)
          report('isolation', 'flood_p50', percentile(flood.latencies, 50), 'ms', labels);
      }
      agent.destroy();
      // the node settles before the next load
      await waitCaughtUp();
    }
  }
} finally {
  await cluster.shutdown();
  for (const r of releases) r();
  rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
}
