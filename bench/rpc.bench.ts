/**
 * EVM JSON-RPC throughput as a client sees it: a real `chaind` process, and this process as the
 * load generator over node:http with a keep-alive Agent, 64 requests in flight on 64 connections.
 *
 *   npm run bench -- rpc [seconds per figure = 3, 0: no reads] [blocks = 2100] [senders = 256] [txs per sender = 16]
 *
 * Reads. Setup: `chaind dev` produces `blocks` blocks while one ERC20 transfer is mined after another
 * (so Transfer logs are spread over the whole range), then the node is restarted with empty blocks
 * off so that block production does not compete with the measured reads. eth_call is ERC20 balanceOf
 * at latest. Figures, per method: <name>_req_per_s and <name>_p99_ms.
 *
 * eth_sendRawTransaction. The node is restarted with a 1 ms commit timeout (blocks as fast as the
 * chain executes them; none while the mempool is empty) and no mempool TTL (a tx submitted early must
 * not expire while later ones are still arriving). `senders` fresh keys are funded with gas money and
 * tokens, then each signs `txs per sender` ERC20 transfers ahead of time. The 64 connections submit
 * them, each sender's txs in nonce order over one connection. Figures:
 *   eth_sendRawTransaction_accepted_per_s   txs answered with a hash ÷ time until the last answer
 *   eth_sendRawTransaction_p99_ms           of those answers
 *   eth_sendRawTransaction_mined_per_s      txs ÷ time from the first submission until every tx
 *                                           has a receipt (end to end: admission, blocks, commit)
 *
 * The comparison with Hardhat's node is bench/rpc-vs-hardhat.bench.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { createChainCommon } from '../src/execution/chain-config.ts';
import { percentile, report } from './report.ts';
import {
  agent,
  buildChain,
  call,
  CHAIN_ID,
  CONCURRENCY,
  DEV_KEY,
  GWEI,
  HOLDER,
  load,
  post,
  readScenarios,
  rpcBody,
  startChaind,
  stop,
  token,
  waitReceipt,
} from './rpc-common.ts';

const SECONDS = Number(process.argv[3] ?? 3);
const BLOCKS = Number(process.argv[4] ?? 2100);
const SENDERS = Number(process.argv[5] ?? 256);
const PER_SENDER = Number(process.argv[6] ?? 16);

// ethers takes ~1.5 ms per signature; the native binding and ethereumjs ~0.1 ms
const common = createChainCommon({ chainId: CHAIN_ID });
const require = createRequire(import.meta.url);
const native = require('secp256k1/bindings.js') as {
  ecdsaSign(msg32: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
};
const secp = require('secp256k1') as { publicKeyCreate(key: Uint8Array, compressed: boolean): Uint8Array };
const unhex = (h: string) => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));
const hex0x = (b: Uint8Array) => '0x' + Buffer.from(b).toString('hex');

function sign(
  key: Uint8Array,
  fields: { nonce: number; to: string; data?: Uint8Array; value?: bigint; gas: bigint },
) {
  const unsigned = createFeeMarket1559Tx(
    {
      chainId: CHAIN_ID,
      nonce: BigInt(fields.nonce),
      maxPriorityFeePerGas: GWEI,
      maxFeePerGas: 100n * GWEI,
      gasLimit: fields.gas,
      to: fields.to as `0x${string}`,
      value: fields.value ?? 0n,
      data: fields.data ?? new Uint8Array(0),
    },
    { common },
  );
  const { signature, recid } = native.ecdsaSign(unsigned.getHashedMessageToSign(), key);
  const signed = unsigned.addSignature(BigInt(recid), signature.slice(0, 32), signature.slice(32));
  return { raw: hex0x(signed.serialize()), hash: hex0x(signed.hash()) };
}

/** Funds `SENDERS` fresh keys and measures the submission of their pre-signed ERC20 transfers. */
async function sendRawBench(url: URL, tokenAddress: string): Promise<void> {
  const keys = Array.from({ length: SENDERS }, (_, i) =>
    keccak_256(new TextEncoder().encode(`rpc bench sender ${i}`)),
  );
  const addresses = keys.map((k) =>
    hex0x(keccak_256(secp.publicKeyCreate(k, false).subarray(1)).subarray(12)),
  );
  // funding: gas money and tokens from the dev account, one tx after another on one connection
  const dev = unhex(DEV_KEY);
  let nonce = Number(await call(url, 'eth_getTransactionCount', [HOLDER, 'pending']));
  let last = '';
  for (const a of addresses) {
    for (const tx of [
      { to: a, value: 10n ** 18n, gas: 21_000n },
      { to: tokenAddress, gas: 100_000n, data: unhex(token.encodeFunctionData('transfer', [a, 10n ** 21n])) },
    ]) {
      const { raw } = sign(dev, { nonce: nonce++, ...tx });
      last = await call(url, 'eth_sendRawTransaction', [raw]);
    }
  }
  await waitReceipt(url, last, 20);

  const signed = keys.map((k, s) =>
    Array.from({ length: PER_SENDER }, (_, n) =>
      sign(k, {
        nonce: n,
        to: tokenAddress,
        gas: 100_000n,
        data: unhex(
          token.encodeFunctionData('transfer', [
            '0x' + (0x10000000 + s * PER_SENDER + n).toString(16).padStart(40, '0'),
            1n,
          ]),
        ),
      }),
    ),
  );
  const total = SENDERS * PER_SENDER;
  const startHeight = Number(await call(url, 'eth_blockNumber'));
  const latencies: number[] = [];
  const t0 = performance.now();
  const worker = async (w: number) => {
    const mine = signed.filter((_, s) => s % CONCURRENCY === w);
    for (let n = 0; n < PER_SENDER; n++) {
      for (const txs of mine) {
        const started = performance.now();
        const r = await post(url, rpcBody('eth_sendRawTransaction', [txs[n].raw]));
        if (r.error) throw new Error(`eth_sendRawTransaction: ${r.error.message}`);
        if (r.result !== txs[n].hash)
          throw new Error(`eth_sendRawTransaction answered ${r.result}, want ${txs[n].hash}`);
        latencies.push(performance.now() - started);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
  const accepted = performance.now() - t0;
  // a sender's txs are mined in nonce order: its last one having a receipt means all of them do
  let waiting = signed.map((txs) => txs[PER_SENDER - 1].hash);
  while (waiting.length > 0) {
    const receipts = await Promise.all(waiting.map((h) => call(url, 'eth_getTransactionReceipt', [h])));
    const failed = receipts.find((r) => r && r.status !== '0x1');
    if (failed) throw new Error(`transfer ${failed.transactionHash} failed`);
    waiting = waiting.filter((_, i) => !receipts[i]);
    if (waiting.length > 0) await new Promise((r) => setTimeout(r, 20));
  }
  const mined = performance.now() - t0;
  const blocks = Number(await call(url, 'eth_blockNumber')) - startHeight;
  const labels = { concurrency: CONCURRENCY, txs: total, senders: SENDERS, per_sender: PER_SENDER };
  report('rpc', 'eth_sendRawTransaction_accepted_per_s', (total / accepted) * 1000, 'tx/s', labels);
  report('rpc', 'eth_sendRawTransaction_p99_ms', percentile(latencies, 99), 'ms', labels);
  report('rpc', 'eth_sendRawTransaction_mined_per_s', (total / mined) * 1000, 'tx/s', {
    ...labels,
    seconds: mined / 1000,
    blocks,
  });
}

const home = mkdtempSync(join(tmpdir(), 'chaind-bench-rpc-'));
let node: ChildProcess | undefined;
try {
  const dev = await startChaind(['dev', '--home', home, '--consensus.timeout-commit', '1ms']);
  node = dev.child;
  const { tokenAddress, txs, seconds } = await buildChain(dev.url, BLOCKS);
  report('rpc', 'setup_blocks', Number(await call(dev.url, 'eth_blockNumber')), 'blocks', {
    txs: txs.length,
    seconds,
  });
  await stop(node);
  const quiet = await startChaind(['start', '--home', home, '--consensus.create-empty-blocks', 'false']);
  node = quiet.child;
  const hashes = txs.slice(1).map((t) => t.hash);
  // 0 seconds: only the eth_sendRawTransaction figures
  for (const s of SECONDS > 0 ? await readScenarios(quiet.url, tokenAddress, hashes) : []) {
    const r = await load(quiet.url, s.name, s.body, SECONDS);
    const labels = { concurrency: CONCURRENCY, requests: r.requests, ...s.labels };
    report('rpc', `${s.name}_req_per_s`, r.reqPerS, 'req/s', labels);
    report('rpc', `${s.name}_p99_ms`, r.p99Ms, 'ms', labels);
  }
  await stop(node);
  const busy = await startChaind([
    'start',
    '--home',
    home,
    '--consensus.create-empty-blocks',
    'false',
    '--consensus.timeout-commit',
    '1ms',
    '--mempool.ttl-duration',
    '0s',
    '--mempool.ttl-num-blocks',
    '0',
    '--mempool.size',
    String(Math.max(5000, 2 * SENDERS * PER_SENDER)),
  ]);
  node = busy.child;
  await sendRawBench(busy.url, tokenAddress);
} finally {
  if (node) await stop(node);
  agent.destroy();
  rmSync(home, { recursive: true, force: true });
}
