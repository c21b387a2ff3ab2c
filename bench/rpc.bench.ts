/**
 * EVM JSON-RPC read throughput as a client sees it: a real `chaind` process, and this process as the
 * load generator over node:http with a keep-alive Agent, 64 requests in flight on 64 connections.
 *
 *   npm run bench -- rpc [seconds per figure = 3] [blocks = 2100]
 *
 * Setup: `chaind dev` produces `blocks` blocks while one ERC20 transfer is mined after another (so
 * Transfer logs are spread over the whole range), then the node is restarted with empty blocks off so
 * that block production does not compete with the measured reads.
 * eth_call is ERC20 balanceOf at latest.
 * Figures, per method: <name>_req_per_s and <name>_p99_ms (labels: concurrency, and what was read).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Interface, Wallet } from 'ethers';
import { percentile, report } from './report.ts';

const SECONDS = Number(process.argv[3] ?? 3);
const BLOCKS = Number(process.argv[4] ?? 2100);
const CONCURRENCY = 64;
const CHAIND = resolve(import.meta.dirname, '../src/bin/chaind.ts');
const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const GWEI = 10n ** 9n;
const artifacts = JSON.parse(
  readFileSync(new URL('../test/fixtures/contracts/artifacts.json', import.meta.url), 'utf8'),
);
const token = new Interface(artifacts.TestToken.abi);

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

/** One POST over the shared keep-alive agent; resolves with the parsed body. */
function post(url: URL, body: string): Promise<any> {
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

async function call(url: URL, method: string, params: unknown[] = []): Promise<any> {
  const r = await post(url, JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
  if (r.error) throw new Error(`${method}: ${r.error.message}`);
  return r.result;
}

/** Starts chaind and resolves with the JSON-RPC address it logs. */
async function startChaind(args: string[]): Promise<{ child: ChildProcess; url: URL }> {
  const child = spawn(process.execPath, [CHAIND, ...args, '--log_format', 'json'], {
    env: { ...process.env, CHAIND_EVM_HTTP_PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<URL>((ok, fail) => {
    child.once('exit', (code) => fail(new Error(`chaind exited with ${code}`)));
    lines.on('line', (l) => {
      if (l.includes('JSON-RPC server listening')) ok(new URL(JSON.parse(l).address));
    });
  });
  return { child, url };
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

async function waitReceipt(url: URL, hash: string): Promise<any> {
  for (;;) {
    const r = await call(url, 'eth_getTransactionReceipt', [hash]);
    if (r) return r;
    await new Promise((res) => setTimeout(res, 2));
  }
}

/** Builds the chain: an ERC20 and one transfer after another until `BLOCKS` blocks exist. */
async function buildChain(url: URL): Promise<{ tokenAddress: string; txHashes: string[] }> {
  const dev = new Wallet(DEV_KEY);
  const fee = { chainId: 713714n, type: 2, maxFeePerGas: 100n * GWEI, maxPriorityFeePerGas: GWEI };
  let nonce = 0;
  const send = async (tx: object) =>
    call(url, 'eth_sendRawTransaction', [await dev.signTransaction({ ...fee, nonce: nonce++, ...tx })]);
  const deploy = await waitReceipt(
    url,
    await send({
      gasLimit: 2_000_000,
      data: artifacts.TestToken.bytecode + token.encodeDeploy(['B', 'B', 10n ** 30n]).slice(2),
    }),
  );
  const tokenAddress: string = deploy.contractAddress;
  const txHashes: string[] = [];
  const started = Date.now();
  while (Number(await call(url, 'eth_blockNumber')) < BLOCKS) {
    const to = '0x' + (txHashes.length + 1).toString(16).padStart(40, '0');
    const hash = await send({
      to: tokenAddress,
      gasLimit: 100_000,
      data: token.encodeFunctionData('transfer', [to, 1n]),
    });
    await waitReceipt(url, hash);
    txHashes.push(hash);
  }
  const height = Number(await call(url, 'eth_blockNumber'));
  report('rpc', 'setup_blocks', height, 'blocks', {
    txs: txHashes.length + 1,
    seconds: (Date.now() - started) / 1000,
  });
  return { tokenAddress, txHashes };
}

/** `CONCURRENCY` workers, each with one request in flight, for SECONDS after a short warm-up. */
async function load(
  url: URL,
  name: string,
  body: (i: number) => string,
  labels: Record<string, unknown> = {},
) {
  const latencies: number[] = [];
  let count = 0;
  let measuring = false;
  let done = false;
  const worker = async (w: number) => {
    for (let i = w; !done; i += CONCURRENCY) {
      const t0 = performance.now();
      const r = await post(url, body(i));
      if (r.error) throw new Error(`${name}: ${r.error.message}`);
      if (measuring) {
        latencies.push(performance.now() - t0);
        count++;
      }
    }
  };
  const workers = Array.from({ length: CONCURRENCY }, (_, w) => worker(w));
  await new Promise((r) => setTimeout(r, 500));
  measuring = true;
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  measuring = false;
  const elapsed = performance.now() - t0;
  done = true;
  await Promise.all(workers);
  const common = { concurrency: CONCURRENCY, requests: count, ...labels };
  report('rpc', `${name}_req_per_s`, (count / elapsed) * 1000, 'req/s', common);
  report('rpc', `${name}_p99_ms`, percentile(latencies, 99), 'ms', common);
}

const rpcBody = (method: string, params: unknown[]) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

const home = mkdtempSync(join(tmpdir(), 'chaind-bench-rpc-'));
let node: ChildProcess | undefined;
try {
  const dev = await startChaind(['dev', '--home', home, '--consensus.timeout-commit', '1ms']);
  node = dev.child;
  const { tokenAddress, txHashes } = await buildChain(dev.url);
  await stop(node);
  const quiet = await startChaind(['start', '--home', home, '--consensus.create-empty-blocks', 'false']);
  node = quiet.child;
  const url = quiet.url;
  const latest = Number(await call(url, 'eth_blockNumber'));
  const holder = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
  const hex = (n: number) => '0x' + n.toString(16);

  await load(url, 'eth_blockNumber', () => rpcBody('eth_blockNumber', []));
  await load(url, 'eth_getBalance_latest', () => rpcBody('eth_getBalance', [holder, 'latest']));
  await load(url, 'eth_getBalance_1000_back', () => rpcBody('eth_getBalance', [holder, hex(latest - 1000)]), {
    height: latest - 1000,
  });
  await load(
    url,
    'eth_getTransactionReceipt',
    (i) => rpcBody('eth_getTransactionReceipt', [txHashes[i % txHashes.length]]),
    {
      distinct_txs: txHashes.length,
    },
  );
  // ERC20 balanceOf of holders that received a transfer (one storage read each, different slots)
  await load(
    url,
    'eth_call_balanceOf',
    (i) =>
      rpcBody('eth_call', [
        {
          to: tokenAddress,
          data: token.encodeFunctionData('balanceOf', [
            '0x' + ((i % txHashes.length) + 1).toString(16).padStart(40, '0'),
          ]),
        },
        'latest',
      ]),
    { holders: txHashes.length },
  );
  for (const range of [100, 2000]) {
    const filter = { fromBlock: hex(latest - range + 1), toBlock: hex(latest), address: tokenAddress };
    const logs = (await call(url, 'eth_getLogs', [filter])).length;
    await load(url, `eth_getLogs_${range}_blocks`, () => rpcBody('eth_getLogs', [filter]), { logs });
  }
} finally {
  if (node) await stop(node);
  agent.destroy();
  rmSync(home, { recursive: true, force: true });
}
