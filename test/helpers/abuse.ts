/**
 * Helpers for tests that abuse a spawned node: start `chaind dev` and learn its listeners from its
 * log, and watch a cheap call (eth_blockNumber) keep answering while a test attacks the node.
 */
import { request, Agent } from 'node:http';
import { ChaindProcess, tempHome } from './chaind.ts';

export interface SpawnedNode {
  proc: ChaindProcess;
  home: string;
  /** http://127.0.0.1:port of the EVM JSON-RPC */
  http: string;
  /** ws://127.0.0.1:port */
  ws: string;
  /** host:port of each TCP listener, from the log */
  ports: { http: number; ws: number; consensus: number; rest: number; grpc: number; metrics: number };
}

/**
 * `chaind dev` on a temporary home, every listener on a free port, with `flags` (`--section.key
 * value` pairs) on top; resolves once the node logged `node started`. `env`: more environment
 * (NODE_OPTIONS=--max-old-space-size=… runs the node with a smaller heap).
 */
export async function spawnDev(
  t: { after(fn: () => unknown): void },
  flags: Record<string, string> = {},
  opts: { fdLimit?: number; env?: Record<string, string>; onDemand?: boolean } = {},
): Promise<SpawnedNode> {
  const home = tempHome(t, 'chaind-abuse-');
  const args = ['dev', '--home', home, '--log_format', 'json'];
  // `onDemand`: the dev default (a block only when txs wait); else a block every 100 ms
  if (!opts.onDemand) args.push('--consensus.timeout-commit', '100ms');
  for (const [k, v] of Object.entries(flags)) args.push(`--${k}`, v);
  const proc = new ChaindProcess(args, opts.env ?? {}, opts);
  t.after(() => proc.stop('SIGKILL'));
  await proc.waitForLine((l) => l.includes('"node started"'), 60_000);
  const address = (msg: string): string => {
    const line = proc.lines.find((l) => l.includes(`"msg":"${msg}"`));
    if (!line) throw new Error(`no "${msg}" line in the log`);
    return JSON.parse(line).address as string;
  };
  const portOf = (a: string) => Number(/:(\d+)$/.exec(a)![1]);
  const http = address('JSON-RPC server listening');
  const ws = address('JSON-RPC WebSocket server listening');
  return {
    proc,
    home,
    http,
    ws,
    ports: {
      http: portOf(http),
      ws: portOf(ws),
      consensus: portOf(address('consensus RPC listening')),
      rest: portOf(address('REST API listening')),
      grpc: portOf(address('gRPC listening')),
      metrics: portOf(address('metrics listening')),
    },
  };
}

/** Whether the node process is still running. */
export function alive(node: SpawnedNode): boolean {
  return node.proc.child.exitCode === null && node.proc.child.signalCode === null;
}

/** One JSON-RPC POST over a fresh (or the given agent's) connection; rejects on any failure. */
export function post(url: string, body: unknown, agent?: Agent, timeoutMs = 30_000): Promise<any> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        // without an agent: a connection of its own, closed after the answer
        agent: agent ?? false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch (err) {
            reject(err);
          }
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(text);
  });
}

export interface ProbeReport {
  answered: number;
  failed: number;
  errors: string[];
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/**
 * Calls eth_blockNumber over one keep-alive connection, one call after another with a short pause,
 * until stopped; the report says how many answered and how fast (for the test's diagnostics: timing
 * is reported, never asserted, since the machine running the tests may be loaded).
 */
export class BlockNumberProbe {
  private readonly url: string;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  private readonly latencies: number[] = [];
  private readonly errors: string[] = [];
  private running = true;
  private readonly loop: Promise<void>;

  /** `t`: the probe also stops when the test ends, failed or not. */
  constructor(t: { after(fn: () => unknown): void }, url: string, pauseMs = 20) {
    this.url = url;
    this.loop = this.run(pauseMs);
    t.after(() => this.stop());
  }

  private async run(pauseMs: number): Promise<void> {
    let id = 0;
    while (this.running) {
      const t0 = performance.now();
      try {
        const r = await post(this.url, { jsonrpc: '2.0', id: ++id, method: 'eth_blockNumber' }, this.agent);
        if (typeof r?.result !== 'string') throw new Error(`unexpected answer ${JSON.stringify(r)}`);
        this.latencies.push(performance.now() - t0);
      } catch (err) {
        this.errors.push((err as Error).message);
      }
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  }

  async stop(): Promise<ProbeReport> {
    this.running = false;
    await this.loop;
    this.agent.destroy();
    const sorted = [...this.latencies].sort((a, b) => a - b);
    const at = (q: number) =>
      sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN;
    const round = (x: number) => Math.round(x * 10) / 10;
    return {
      answered: sorted.length,
      failed: this.errors.length,
      errors: this.errors.slice(0, 5),
      p50Ms: round(at(0.5)),
      p99Ms: round(at(0.99)),
      maxMs: round(sorted[sorted.length - 1] ?? NaN),
    };
  }
}

/** Polls `predicate` every 20 ms until it holds; rejects after `ms`. */
export async function waitFor<T>(
  predicate: () => T | undefined | false | Promise<T | undefined | false>,
  ms = 20_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await predicate();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what} not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
