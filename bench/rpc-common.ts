/**
 * What the JSON-RPC benchmarks share: the load generator (64 requests in flight on 64 keep-alive
 * connections, over a minimal HTTP client), starting and stopping `chaind`, and the chain every read figure is
 * measured on (an ERC20 and one transfer after another, so Transfer logs are spread over the range).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, fstatSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { Interface, Wallet } from 'ethers';
import { percentile } from './report.ts';
import { FREE_PORT_ENV } from '../test/helpers/chaind.ts';

export const CONCURRENCY = 64;
export const CHAIN_ID = 713714n;
export const GWEI = 10n ** 9n;
/** Hardhat's account #0 and chaind dev's funded account: the same key funds both chains. */
export const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const HOLDER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const CHAIND = resolve(import.meta.dirname, '../src/bin/chaind.ts');

export const artifacts = JSON.parse(
  readFileSync(new URL('../test/fixtures/contracts/artifacts.json', import.meta.url), 'utf8'),
);
export const token = new Interface(artifacts.TestToken.abi);

export const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

export const hex = (n: number | bigint) => '0x' + n.toString(16);
export const rpcBody = (method: string, params: unknown[]) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

/** One POST over the shared keep-alive agent; resolves with the parsed body. */
export function post(url: URL, body: string): Promise<any> {
  return new Promise((resolvePost, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            resolvePost(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          } catch (err) {
            reject(err);
          }
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function call(url: URL, method: string, params: unknown[] = []): Promise<any> {
  const r = await post(url, rpcBody(method, params));
  if (r.error) throw new Error(`${method}: ${r.error.message}`);
  return r.result;
}

/**
 * Starts chaind and resolves with the JSON-RPC address it logs. To see inside the node under load:
 * CHAIND_PROF=<dir> writes a CPU profile of each node process there (sampled every
 * CHAIND_PROF_INTERVAL_US µs, node's default 1000), CHAIND_LOG=<file> keeps its log lines
 * (otherwise they go to a scratch file removed when the node stops).
 *
 * The log goes to a file, not a pipe to this process: the peers log to /dev/null, and a pipe read
 * here would put every log line (a dev chain logs one per transaction) through the load client's
 * event loop.
 *
 * `env`: more environment (config overrides such as CHAIND_EVM_HTTP_READER_THREADS). `freePorts:
 * false` keeps the listeners of the home's config (a testnet home, whose ports its cometbft knows).
 */
export async function startChaind(
  args: string[],
  env: Record<string, string> = {},
  { freePorts = true }: { freePorts?: boolean } = {},
): Promise<{ child: ChildProcess; url: URL }> {
  const interval = process.env.CHAIND_PROF_INTERVAL_US;
  const profile = process.env.CHAIND_PROF
    ? [
        '--cpu-prof',
        `--cpu-prof-dir=${process.env.CHAIND_PROF}`,
        ...(interval ? [`--cpu-prof-interval=${interval}`] : []),
      ]
    : [];
  const scratch = process.env.CHAIND_LOG ? undefined : mkdtempSync(join(tmpdir(), 'chaind-bench-log-'));
  const logPath = process.env.CHAIND_LOG ?? join(scratch!, 'chaind.log');
  const fd = openSync(logPath, 'a');
  const from = fstatSync(fd).size;
  const child = spawn(process.execPath, [...profile, CHAIND, ...args, '--log_format', 'json'], {
    // every listener on a free port: other nodes (tests, other benches) may run on this machine
    env: { ...process.env, ...(freePorts ? FREE_PORT_ENV : {}), ...env },
    stdio: ['ignore', fd, 'inherit'],
  });
  closeSync(fd);
  if (scratch) child.once('exit', () => rmSync(scratch, { recursive: true, force: true }));
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  // the main JSON-RPC listener logs first; measuring starts once every listener (RPC reader
  // threads included) serves, when the node says it started
  for (;;) {
    if (exited !== undefined) throw new Error(`chaind exited with ${exited}`);
    const lines = readFileSync(logPath, 'utf8').slice(from).split('\n');
    const listening = lines.find((l) => l.includes('JSON-RPC server listening'));
    if (listening && lines.some((l) => l.includes('"node started"')))
      return { child, url: new URL(JSON.parse(listening).address) };
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

export async function waitReceipt(url: URL, hash: string, pollMs = 2): Promise<any> {
  for (;;) {
    const r = await call(url, 'eth_getTransactionReceipt', [hash]);
    if (r) return r;
    await new Promise((res) => setTimeout(res, pollMs));
  }
}

/** A tx of the read-benchmark chain: its signed bytes (replayable on another node) and its height. */
export interface ChainTx {
  raw: string;
  hash: string;
  block: number;
}

/**
 * Builds the read-benchmark chain: an ERC20 and one transfer after another (each waits for its
 * receipt) until `blocks` blocks exist. The txs are returned with their heights so that the same
 * chain can be replayed on another node.
 */
export async function buildChain(
  url: URL,
  blocks: number,
): Promise<{ tokenAddress: string; txs: ChainTx[]; seconds: number }> {
  const dev = new Wallet(DEV_KEY);
  const fee = { chainId: CHAIN_ID, type: 2, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: GWEI };
  let nonce = 0;
  const txs: ChainTx[] = [];
  const send = async (tx: object) => {
    const raw = await dev.signTransaction({ ...fee, nonce: nonce++, ...tx });
    const hash: string = await call(url, 'eth_sendRawTransaction', [raw]);
    const receipt = await waitReceipt(url, hash);
    txs.push({ raw, hash, block: Number(receipt.blockNumber) });
    return receipt;
  };
  const started = Date.now();
  const deploy = await send({
    gasLimit: 2_000_000,
    data: artifacts.TestToken.bytecode + token.encodeDeploy(['B', 'B', 10n ** 30n]).slice(2),
  });
  const tokenAddress: string = deploy.contractAddress;
  while (Number(await call(url, 'eth_blockNumber')) < blocks) {
    const to = '0x' + txs.length.toString(16).padStart(40, '0');
    await send({ to: tokenAddress, gasLimit: 100_000, data: token.encodeFunctionData('transfer', [to, 1n]) });
  }
  return { tokenAddress, txs, seconds: (Date.now() - started) / 1000 };
}

/** The address that received the i-th transfer of `buildChain` (1-based, as it numbers them). */
export const recipient = (i: number) => '0x' + i.toString(16).padStart(40, '0');

export interface LoadResult {
  reqPerS: number;
  p99Ms: number;
  requests: number;
}

/**
 * `concurrency` connections (RawConnection), each with one request in flight, for `seconds` after a
 * short warm-up. Every answer is checked for a JSON-RPC error.
 */
export async function load(
  url: URL,
  name: string,
  body: (i: number) => string,
  seconds: number,
  warmupMs = 500,
  /** called when measuring starts (after the warm-up) */
  onMeasure?: () => void,
  concurrency = CONCURRENCY,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let count = 0;
  let measuring = false;
  let done = false;
  const conns = await Promise.all(Array.from({ length: concurrency }, () => RawConnection.open(url)));
  const worker = async (w: number) => {
    for (let i = w; !done; i += concurrency) {
      const req = rawRequest(url, body(i));
      const t0 = performance.now();
      const answer = await conns[w].send(req);
      const error = rawError(answer);
      if (error) throw new Error(`${name}: ${error}`);
      if (measuring) {
        latencies.push(performance.now() - t0);
        count++;
      }
    }
  };
  const workers = Array.from({ length: concurrency }, (_, w) => worker(w));
  try {
    await new Promise((r) => setTimeout(r, warmupMs));
    onMeasure?.();
    measuring = true;
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    measuring = false;
    const elapsed = performance.now() - t0;
    done = true;
    await Promise.all(workers);
    return { reqPerS: (count / elapsed) * 1000, p99Ms: percentile(latencies, 99), requests: count };
  } finally {
    done = true;
    for (const c of conns) c.close();
  }
}

/** One read scenario of the list: a name, the request body for the i-th request, labels. */
export interface ReadScenario {
  name: string;
  body: (i: number) => string;
  labels: Record<string, unknown>;
}

/**
 * The issue's read methods over the chain of `buildChain`. `hashes` are the transfer tx hashes
 * (receipts are read round-robin); holders of balanceOf are the transfers' recipients.
 */
export async function readScenarios(
  url: URL,
  tokenAddress: string,
  hashes: string[],
): Promise<ReadScenario[]> {
  const latest = Number(await call(url, 'eth_blockNumber'));
  const scenarios: ReadScenario[] = [
    { name: 'eth_blockNumber', body: () => rpcBody('eth_blockNumber', []), labels: {} },
    {
      name: 'eth_getBalance_latest',
      body: () => rpcBody('eth_getBalance', [HOLDER, 'latest']),
      labels: {},
    },
    {
      name: 'eth_getBalance_1000_back',
      body: () => rpcBody('eth_getBalance', [HOLDER, hex(latest - 1000)]),
      labels: { height: latest - 1000 },
    },
    {
      name: 'eth_getTransactionReceipt',
      body: (i) => rpcBody('eth_getTransactionReceipt', [hashes[i % hashes.length]]),
      labels: { distinct_txs: hashes.length },
    },
    {
      // one storage read each, a different slot per holder
      name: 'eth_call_balanceOf',
      body: (i) =>
        rpcBody('eth_call', [
          {
            to: tokenAddress,
            data: token.encodeFunctionData('balanceOf', [recipient((i % hashes.length) + 1)]),
          },
          'latest',
        ]),
      labels: { holders: hashes.length },
    },
  ];
  for (const range of [100, 2000]) {
    const filter = {
      fromBlock: hex(Math.max(0, latest - range + 1)),
      toBlock: hex(latest),
      address: tokenAddress,
    };
    const logs = (await call(url, 'eth_getLogs', [filter])).length;
    scenarios.push({
      name: `eth_getLogs_${range}_blocks`,
      body: () => rpcBody('eth_getLogs', [filter]),
      labels: { logs },
    });
  }
  return scenarios;
}

/**
 * A minimal HTTP/1.1 keep-alive client on one socket, for load generation: the request bytes are
 * written as they are and the response is framed by content-length or chunked encoding without
 * building header objects. node:http's client costs ~100 µs of CPU per request, which on a shared
 * 2-core machine would both cap the rate and take CPU from the server under test.
 */
export class RawConnection {
  private readonly socket: Socket;
  private buf: Buffer = Buffer.alloc(0);
  private pending: { resolve: (body: Buffer) => void; reject: (err: Error) => void } | undefined;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
      this.parse();
    });
    const fail = (err: Error) => {
      const p = this.pending;
      this.pending = undefined;
      p?.reject(err);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('connection closed')));
  }

  static open(url: URL): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const s = connect(Number(url.port), url.hostname, () => {
        s.off('error', reject);
        resolve(new RawConnection(s));
      });
      s.once('error', reject);
    });
  }

  /** POSTs a JSON body (as prepared by `rawRequest`) and resolves with the response body. */
  send(request: Buffer): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      this.socket.write(request);
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private parse(): void {
    const end = this.buf.indexOf('\r\n\r\n');
    if (end < 0 || !this.pending) return;
    const head = this.buf.toString('latin1', 0, end).toLowerCase();
    const status = Number(head.slice(9, 12));
    let body: Buffer | undefined;
    let rest: Buffer;
    const cl = /\r\ncontent-length: *(\d+)/.exec(head);
    if (cl) {
      const n = Number(cl[1]);
      if (this.buf.length < end + 4 + n) return;
      body = this.buf.subarray(end + 4, end + 4 + n);
      rest = this.buf.subarray(end + 4 + n);
    } else if (head.includes('transfer-encoding: chunked')) {
      const parts: Buffer[] = [];
      let at = end + 4;
      for (;;) {
        const eol = this.buf.indexOf('\r\n', at);
        if (eol < 0) return;
        const size = parseInt(this.buf.toString('latin1', at, eol), 16);
        if (this.buf.length < eol + 2 + size + 2) return;
        if (size === 0) {
          rest = this.buf.subarray(eol + 4);
          break;
        }
        parts.push(this.buf.subarray(eol + 2, eol + 2 + size));
        at = eol + 2 + size + 2;
      }
      body = Buffer.concat(parts);
    } else {
      throw new Error(`response without length: ${head.split('\r\n')[0]}`);
    }
    this.buf = rest.length > 0 ? Buffer.from(rest) : Buffer.alloc(0);
    const p = this.pending;
    this.pending = undefined;
    if (status !== 200) p.reject(new Error(`HTTP ${status}: ${body.toString('utf8', 0, 200)}`));
    else p.resolve(body);
  }
}

/** The bytes of a JSON-RPC POST to `url`. */
export function rawRequest(url: URL, json: string): Buffer {
  const body = Buffer.from(json, 'utf8');
  const head =
    `POST ${url.pathname || '/'} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\n` +
    `content-length: ${body.length}\r\nconnection: keep-alive\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

/** A JSON-RPC answer's error, read without parsing a (possibly large) result. */
export function rawError(body: Buffer): string | undefined {
  const prefix = body.toString('utf8', 0, 64);
  if (prefix.includes('"result"')) return undefined;
  const r = JSON.parse(body.toString('utf8'));
  return r.error ? JSON.stringify(r.error) : undefined;
}
