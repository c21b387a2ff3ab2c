/**
 * Soak: a spawned `chaind dev` (node --expose-gc) under mixed reads and a steady transaction load
 * for N minutes; once a minute the node is sent SIGUSR2, collects its garbage and logs its heap,
 * which is printed with its RSS. A heap that is flat after the warm-up has no leak; the caches fill
 * during the first minutes (their bounds are in bytes, see ARCHITECTURE and the caches' comments).
 *
 *   npm run bench -- soak [minutes=10]
 *   SOAK_NODE_ARGS='--heapsnapshot-signal=SIGWINCH --diagnostic-dir=/tmp' npm run bench -- soak 3
 *     (node flags for the chaind process: here, a heap snapshot on `kill -WINCH <pid>`)
 *
 * Load: two senders (value transfers to 200 fixed recipients; calls of a contract that emits 20 logs)
 * and 8 readers cycling through eth_blockNumber, eth_getBlockByNumber (full txs), receipts, a 100-block
 * eth_getLogs, historical eth_getBalance, eth_call, eth_feeHistory and a callTracer trace. Recipients
 * and the log contract are fixed, so the state does not grow with time (a growing state is growth the
 * node must keep).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type BaseWallet, getCreateAddress, HDNodeWallet } from 'ethers';
import { post } from '../test/helpers/abuse.ts';
import { CHAIND, FREE_PORT_ENV } from '../test/helpers/chaind.ts';
import { report } from './report.ts';

const MINUTES = Number(process.argv[3] ?? 10);
const MNEMONIC = 'test test test test test test test test test test test junk';
const GWEI = 10n ** 9n;
/** Runtime: n = calldata[0..32]; while (n != 0) { LOG0(0, 0); n-- } (as the log-limit tests use) */
const RUNTIME = '6000355b801560155760006000a0600190036003565b00';
const INIT = '0x6017' + '80' + '600b' + '6000' + '39' + '6000' + 'f3' + RUNTIME;
const word = (n: number) => n.toString(16).padStart(64, '0');
const hex = (n: number) => '0x' + n.toString(16);

const home = mkdtempSync(join(tmpdir(), 'chaind-soak-'));
const child = spawn(
  process.execPath,
  [
    ...(process.env.SOAK_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
    '--expose-gc',
    CHAIND,
    'dev',
    '--home',
    home,
    '--log_format',
    'json',
    '--consensus.timeout-commit',
    '200ms',
  ],
  { env: { ...process.env, ...FREE_PORT_ENV }, stdio: ['ignore', 'pipe', 'inherit'] },
);
const heapWaiters: ((line: any) => void)[] = [];
let url = '';
const started = new Promise<void>((resolve, reject) => {
  child.once('exit', (code) => reject(new Error(`chaind exited with ${code}`)));
  createInterface({ input: child.stdout! }).on('line', (l) => {
    if (l.includes('"JSON-RPC server listening"')) url = JSON.parse(l).address;
    if (l.includes('"node started"')) resolve();
    if (l.includes('"heap after forced gc"')) heapWaiters.shift()?.(JSON.parse(l));
  });
});

const agent = new Agent({ keepAlive: true, maxSockets: 16 });
async function rpc(method: string, params: unknown[] = []): Promise<any> {
  const r = await post(url, { jsonrpc: '2.0', id: 1, method, params }, agent, 120_000);
  if (r.error) throw new Error(`${method}: ${r.error.message}`);
  return r.result;
}

function heap(): Promise<{ heap_used: number; rss: number; heap_total: number; external: number }> {
  return new Promise((resolve) => {
    heapWaiters.push(resolve);
    child.kill('SIGUSR2');
  });
}

let running = true;
const counts = { txs: 0, reads: 0, errors: 0 };
/** the first few error messages of each minute, printed with its figures */
let errorSamples: string[] = [];
const failed = (err: unknown) => {
  counts.errors++;
  if (errorSamples.length < 3) errorSamples.push(String((err as Error).message ?? err).slice(0, 160));
};
const hashes: string[] = [];
const recipients = Array.from({ length: 200 }, (_, i) => '0x' + (0x1000 + i).toString(16).padStart(40, '0'));

async function sender(wallet: BaseWallet, tx: (i: number) => object): Promise<void> {
  const chainId = BigInt(await rpc('eth_chainId'));
  let nonce = Number(await rpc('eth_getTransactionCount', [wallet.address, 'pending']));
  for (let i = 0; running; i++) {
    try {
      const raw = await wallet.signTransaction({
        chainId,
        type: 2,
        nonce,
        maxFeePerGas: 100n * GWEI,
        maxPriorityFeePerGas: GWEI,
        ...tx(i),
      });
      const hash = await rpc('eth_sendRawTransaction', [raw]);
      nonce++;
      counts.txs++;
      hashes.push(hash);
      if (hashes.length > 2_000) hashes.splice(0, 1_000);
    } catch (err) {
      failed(err);
      nonce = Number(await rpc('eth_getTransactionCount', [wallet.address, 'pending']));
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function reader(w: number, emitter: string): Promise<void> {
  for (let i = w; running; i += 8) {
    const latest = Number(await rpc('eth_blockNumber').catch(() => '0x1'));
    const pick = <T>(a: T[]) => a[Math.floor(Math.random() * a.length)];
    const back = Math.max(1, latest - Math.floor(Math.random() * 200));
    try {
      switch (i % 8) {
        case 0:
          await rpc('eth_getBlockByNumber', [hex(back), true]);
          break;
        case 1:
          if (hashes.length) await rpc('eth_getTransactionReceipt', [pick(hashes)]);
          break;
        case 2:
          await rpc('eth_getLogs', [
            { fromBlock: hex(Math.max(1, latest - 99)), toBlock: hex(latest), address: emitter },
          ]);
          break;
        case 3:
          await rpc('eth_getBalance', [pick(recipients), hex(back)]);
          break;
        case 4:
          await rpc('eth_call', [{ to: emitter, data: '0x' + word(50) }, 'latest']);
          break;
        case 5:
          await rpc('eth_feeHistory', ['0xa', 'latest', [50]]);
          break;
        case 6:
          if (hashes.length && i % 3 === 0)
            await rpc('debug_traceTransaction', [pick(hashes), { tracer: 'callTracer' }]);
          break;
        case 7:
          await rpc('eth_getBlockByNumber', ['latest', false]);
          break;
      }
      counts.reads++;
    } catch (err) {
      failed(err);
    }
  }
}

try {
  await started;
  const [a, b] = [0, 1].map((i) => HDNodeWallet.fromPhrase(MNEMONIC, undefined, `m/44'/60'/0'/0/${i}`));
  // the log contract, deployed by b before its calls start
  const deployNonce = Number(await rpc('eth_getTransactionCount', [b.address, 'pending']));
  const deploy = await b.signTransaction({
    chainId: BigInt(await rpc('eth_chainId')),
    type: 2,
    nonce: deployNonce,
    maxFeePerGas: 100n * GWEI,
    maxPriorityFeePerGas: GWEI,
    gasLimit: 200_000,
    data: INIT,
  });
  await rpc('eth_sendRawTransaction', [deploy]);
  const emitter = getCreateAddress({ from: b.address, nonce: deployNonce });
  while ((await rpc('eth_getCode', [emitter, 'latest'])) === '0x')
    await new Promise((r) => setTimeout(r, 100));

  const before = await heap();
  report('soak', 'heap_after_gc', before.heap_used / 2 ** 20, 'MiB', {
    minute: 0,
    rss_mib: Math.round(before.rss / 2 ** 20),
  });
  const load = [
    sender(a, (i) => ({ to: recipients[i % recipients.length], value: 1n, gasLimit: 21_000 })),
    sender(b, () => ({ to: emitter, gasLimit: 100_000, data: '0x' + word(20) })),
    ...Array.from({ length: 8 }, (_, w) => reader(w, emitter)),
  ];
  for (let minute = 1; minute <= MINUTES; minute++) {
    const t0 = Date.now();
    const c0 = { ...counts };
    await new Promise((r) => setTimeout(r, 60_000));
    const h = await heap();
    const height = Number(await rpc('eth_blockNumber'));
    report('soak', 'heap_after_gc', h.heap_used / 2 ** 20, 'MiB', {
      minute,
      rss_mib: Math.round(h.rss / 2 ** 20),
      heap_total_mib: Math.round(h.heap_total / 2 ** 20),
      external_mib: Math.round(h.external / 2 ** 20),
      height,
      txs_per_s: Math.round(((counts.txs - c0.txs) * 1000) / (Date.now() - t0)),
      reads_per_s: Math.round(((counts.reads - c0.reads) * 1000) / (Date.now() - t0)),
      errors: counts.errors - c0.errors,
      error_samples: errorSamples,
    });
    errorSamples = [];
  }
  running = false;
  await Promise.allSettled(load);
} finally {
  running = false;
  agent.destroy();
  if (child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(home, { recursive: true, force: true });
}
