/**
 * RPC reader threads ([evm] http_reader_threads) on a real `chaind dev`: keep-alive connections land
 * on the main thread or on the reader thread (the kernel picks one per connection, SO_REUSEPORT), and
 * every connection must get the main thread's answers: the same values at latest, by number and by
 * hash, never a head older than a receipt the client already saw, and the calls a reader does not
 * serve itself (sends, eth_call, filters, mixed batches) answered through it by the main thread.
 * With `http_reader_threads = 0` the node serves as before, from the main thread only.
 */
import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { test } from 'node:test';
import { getCreateAddress, JsonRpcProvider, Wallet } from 'ethers';
import { post, spawnDev, type SpawnedNode } from '../helpers/abuse.ts';
import { devWallets } from '../helpers/dev-chain.ts';

/** Enough connections that both threads get some (all on one thread: a chance of 2 in 2^32). */
const CONNECTIONS = 32;
/** Blocks mined one by one while every connection checks that it never sees an older head. */
const BLOCKS = 20;
/** A contract whose constructor stores 42 at slot 0 and whose code is the one byte 0xfe. */
const STORE_42 = '0x602a60005560fe60005360016000f3';

type Call = (method: string, params?: unknown[]) => Promise<any>;

function connections(t: { after(fn: () => unknown): void }, node: SpawnedNode): Call[] {
  const agents = Array.from({ length: CONNECTIONS }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
  t.after(() => agents.forEach((a) => a.destroy()));
  return agents.map((agent) => async (method, params = []) => {
    const r = await post(node.http, { jsonrpc: '2.0', id: 7, method, params }, agent);
    if (r.error) throw new Error(`${method}: ${r.error.message}`);
    assert.equal(r.id, 7);
    return r.result;
  });
}

async function metrics(node: SpawnedNode): Promise<string> {
  return (await fetch(`http://127.0.0.1:${node.ports.metrics}/metrics`)).text();
}

/** The sum of a family's samples whose labels match every `labels` pair. */
function sample(text: string, family: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(family + '{')) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

/** Waits for the reader threads' metrics (sent about once a second) to show `ready`. */
async function metricsUntil(node: SpawnedNode, ready: (text: string) => boolean): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const text = await metrics(node);
    if (ready(text)) return text;
    if (Date.now() > deadline) throw new Error(`metrics never matched:\n${text}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function threadsLine(node: SpawnedNode): { threads: number; why: string } {
  const line = node.proc.lines.find((l) => l.includes('"msg":"EVM JSON-RPC reader threads"'));
  assert.ok(line, 'the startup log names the reader threads');
  return JSON.parse(line);
}

test('RPC reader threads answer like the main thread, never behind its head, and pass the rest on', async (t) => {
  // mining on demand: no block comes but for the test's own txs, so every connection's answers can match
  const node = await spawnDev(t, { 'evm.http_reader_threads': '1' }, { onDemand: true });
  t.after(() => {
    for (const l of node.proc.lines) if (/reader|"level":"(warn|error)"/.test(l)) console.log(l);
  });
  assert.equal(threadsLine(node).threads, 1);
  const conns = connections(t, node);

  await t.test('connections land on both threads', async () => {
    // the first traffic of the node: each connection asks net_version once
    for (const call of conns) assert.equal(await call('net_version'), '713714');
    const text = await metricsUntil(
      node,
      (m) => sample(m, 'chaind_rpc_requests_total', { method: 'net_version' }) === CONNECTIONS,
    );
    const onReader = sample(text, 'chaind_rpc_reader_payloads_total');
    assert.ok(onReader > 0, `the reader thread answered none of ${CONNECTIONS} connections`);
    assert.ok(onReader < CONNECTIONS, `the main thread answered none of ${CONNECTIONS} connections`);
  });

  const provider = new JsonRpcProvider(node.http, undefined, { staticNetwork: true, polling: true });
  provider.pollingInterval = 50;
  t.after(() => provider.destroy());
  const wallet = devWallets[1].connect(provider);
  // nonces counted here: ethers answers a repeated eth_getTransactionCount from its cache for 250 ms
  let nonce = await provider.getTransactionCount(wallet.address, 'pending');
  const send = async (tx: { to?: string; value?: bigint; data?: string }) =>
    (await (await wallet.sendTransaction({ ...tx, nonce: nonce++ })).wait())!;
  const deployed = await send({ data: STORE_42 });
  const contract = deployed.contractAddress!;
  const to = Wallet.createRandom().address;
  const sent = await send({ to, value: 5n });

  await t.test('every connection gets the same answers at latest, by number and by hash', async () => {
    const number = '0x' + sent.blockNumber.toString(16);
    const byHash = { blockHash: sent.blockHash };
    const calls: [string, unknown[]][] = [
      ['eth_blockNumber', []],
      ['eth_chainId', []],
      ['net_version', []],
      ['eth_getBlockByNumber', ['latest', false]],
      ['eth_getBlockByNumber', [number, true]],
      ['eth_getBlockByNumber', ['0x1', false]],
      ['eth_getBlockByHash', [sent.blockHash, true]],
      ['eth_getBalance', [to, 'latest']],
      ['eth_getBalance', [to, number]],
      ['eth_getBalance', [wallet.address, byHash]],
      ['eth_getTransactionCount', [wallet.address, 'latest']],
      ['eth_getTransactionCount', [wallet.address, number]],
      ['eth_getCode', [contract, 'latest']],
      ['eth_getCode', [contract, byHash]],
      ['eth_getStorageAt', [contract, '0x0', 'latest']],
      ['eth_getStorageAt', [contract, '0x0', number]],
    ];
    const answers = await Promise.all(
      conns.map(async (call) => {
        const out: unknown[] = [];
        for (const [m, p] of calls) out.push(await call(m, p));
        return out;
      }),
    );
    for (const a of answers) assert.deepEqual(a, answers[0]);
    const [blockNumber, , , latest, , , , balance, , , , , code, , slot] = answers[0] as any[];
    assert.equal(Number(blockNumber), sent.blockNumber);
    assert.equal(latest.hash, sent.blockHash);
    assert.equal(balance, '0x5');
    assert.equal(code, '0xfe');
    assert.equal(BigInt(slot), 42n);
    const text = await metricsUntil(
      node,
      (m) => sample(m, 'chaind_rpc_requests_total', { method: 'eth_getStorageAt' }) === 2 * CONNECTIONS,
    );
    assert.ok(sample(text, 'chaind_rpc_reader_payloads_total', { answered: 'local' }) > 0);
  });

  await t.test('after a receipt, no connection sees an older head or balance', async () => {
    const target = Wallet.createRandom().address;
    for (let k = 1; k <= BLOCKS; k++) {
      const receipt = await send({ to: target, value: 1n });
      await Promise.all(
        conns.map(async (call) => {
          const head = await call('eth_getBlockByNumber', ['latest', false]);
          assert.ok(
            Number(head.number) >= receipt.blockNumber,
            `head ${head.number} < ${receipt.blockNumber}`,
          );
          assert.ok(Number(await call('eth_blockNumber')) >= receipt.blockNumber);
          assert.equal(BigInt(await call('eth_getBalance', [target, 'latest'])), BigInt(k));
        }),
      );
    }
  });

  await t.test('sends, eth_call, filters and mixed batches work on every connection', async () => {
    const recipient = Wallet.createRandom().address;
    const feeData = await provider.getFeeData();
    for (const call of conns.slice(0, 8)) {
      const raw = await wallet.signTransaction({
        to: recipient,
        value: 1n,
        nonce: nonce++,
        gasLimit: 21_000n,
        maxFeePerGas: feeData.maxFeePerGas! * 2n,
        maxPriorityFeePerGas: feeData.maxPriorityFeePerGas!,
        chainId: 713714n,
        type: 2,
      });
      const hash = await call('eth_sendRawTransaction', [raw]);
      let receipt = null;
      while (!receipt) receipt = await call('eth_getTransactionReceipt', [hash]);
      assert.equal(receipt.status, '0x1');
    }
    for (const call of conns) {
      assert.equal(await call('eth_call', [{ to: recipient, data: '0x' }, 'latest']), '0x');
      const filter = await call('eth_newBlockFilter');
      assert.deepEqual(await call('eth_getFilterChanges', [filter]), []);
      assert.equal(await call('eth_uninstallFilter', [filter]), true);
    }
    const batch = [
      { jsonrpc: '2.0', id: 'a', method: 'eth_blockNumber' },
      { jsonrpc: '2.0', id: 'b', method: 'eth_gasPrice' },
      { jsonrpc: '2.0', id: 'c', method: 'eth_getBalance', params: [recipient, 'latest'] },
      { jsonrpc: '2.0', id: 'd', method: 'eth_nope' },
    ];
    const agents = Array.from({ length: CONNECTIONS }, () => new Agent({ keepAlive: true, maxSockets: 1 }));
    t.after(() => agents.forEach((a) => a.destroy()));
    for (const agent of agents) {
      const answers = await post(node.http, batch, agent);
      assert.deepEqual(
        answers.map((a: { id: string }) => a.id),
        ['a', 'b', 'c', 'd'],
      );
      assert.equal(answers[2].result, '0x8');
      assert.equal(answers[3].error.code, -32601);
    }
    // the reader thread's connections (some, as the first subtest showed) passed these calls on; its
    // counter reaches /metrics with its next report
    const text = await metricsUntil(
      node,
      (m) => sample(m, 'chaind_rpc_reader_payloads_total', { answered: 'forwarded' }) > 0,
    );
    // each forwarded call was counted once, by the main thread's dispatcher
    assert.equal(sample(text, 'chaind_rpc_requests_total', { method: 'eth_uninstallFilter' }), CONNECTIONS);
  });
});

test('`pending` reads on every connection see the txs waiting in the pool', async (t) => {
  // no block after the first: the deploy stays in the pool, so pending and latest differ
  const node = await spawnDev(
    t,
    {
      'evm.http_reader_threads': '1',
      'consensus.timeout-commit': '1h',
      'consensus.create-empty-blocks': 'false',
    },
    { onDemand: true },
  );
  const conns = connections(t, node);
  const wallet = devWallets[2];
  const raw = await wallet.signTransaction({
    data: STORE_42,
    nonce: 0,
    gasLimit: 100_000n,
    maxFeePerGas: 10n ** 11n,
    maxPriorityFeePerGas: 10n ** 9n,
    chainId: 713714n,
    type: 2,
  });
  await conns[0]('eth_sendRawTransaction', [raw]);
  const contract = getCreateAddress({ from: wallet.address, nonce: 0 });
  for (const [i, call] of conns.entries()) {
    assert.equal(await call('eth_getCode', [contract, 'latest']), '0x', `connection ${i}`);
    assert.equal(await call('eth_getCode', [contract, 'pending']), '0xfe', `connection ${i}`);
    assert.equal(BigInt(await call('eth_getStorageAt', [contract, '0x0', 'pending'])), 42n);
    assert.equal(await call('eth_getTransactionCount', [wallet.address, 'pending']), '0x1');
    assert.equal(await call('eth_getTransactionCount', [wallet.address, 'latest']), '0x0');
  }
  assert.equal(Number(await conns[0]('eth_blockNumber')), 1, 'nothing was mined meanwhile');
});

test('http_reader_threads = 0 serves the port from the main thread only', async (t) => {
  const node = await spawnDev(t, { 'evm.http_reader_threads': '0' });
  assert.deepEqual(threadsLine(node), { ...threadsLine(node), threads: 0 });
  assert.match(threadsLine(node).why, /http_reader_threads = 0/);
  const conns = connections(t, node);
  for (const call of conns) assert.equal(await call('eth_chainId'), '0xae3f2');
  const text = await metrics(node);
  assert.equal(sample(text, 'chaind_rpc_requests_total', { method: 'eth_chainId' }), CONNECTIONS);
  assert.ok(!text.includes('chaind_rpc_reader_payloads_total'));
});
