/**
 * State a client can make the node keep: subscriptions (20,000 on one WebSocket were accepted),
 * polling filters, the pending-tx hashes of never-polled filters (10,000 of them buffered every
 * pending tx each: a gigabyte), and filter criteria. Each is capped now, with -32005 (or a lag
 * error) naming the key.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Wallet } from 'ethers';
import WebSocket from 'ws';
import { alive, BlockNumberProbe, post, spawnDev } from '../helpers/abuse.ts';

const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

/** A WebSocket JSON-RPC client: `call` resolves with the whole answer. */
async function wsClient(url: string) {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  let id = 0;
  const waiting = new Map<number, (a: any) => void>();
  ws.on('message', (m) => {
    const a = JSON.parse(String(m));
    if (a.id !== undefined) waiting.get(a.id)?.(a);
  });
  return {
    ws,
    call(method: string, params: unknown[] = []): Promise<any> {
      const n = ++id;
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: n, method, params }));
      return new Promise((resolve) => waiting.set(n, resolve));
    },
  };
}

const rpc = (url: string, method: string, params: unknown[] = []) =>
  post(url, { jsonrpc: '2.0', id: 1, method, params });

test('subscriptions, filters, pending-tx hashes and filter criteria are capped, each error naming its key', async (t) => {
  const node = await spawnDev(t, {
    'evm.max_subscriptions_per_connection': '5',
    'evm.max_subscriptions': '8',
    'evm.max_filters': '20',
    'evm.max_pending_filter_hashes': '10',
    'evm.max_log_criteria': '50',
  });
  const probe = new BlockNumberProbe(t, node.http);

  // subscriptions: per connection, then in total
  const a = await wsClient(node.ws);
  const b = await wsClient(node.ws);
  t.after(() => [a, b].forEach((c) => c.ws.terminate()));
  const subsA: string[] = [];
  for (let i = 0; i < 5; i++) subsA.push((await a.call('eth_subscribe', ['newHeads'])).result);
  assert.ok(subsA.every((s) => /^0x[0-9a-f]+$/.test(s)));
  assert.deepEqual((await a.call('eth_subscribe', ['newPendingTransactions'])).error, {
    code: -32005,
    message:
      'too many subscriptions on this connection: 5, the most [evm] max_subscriptions_per_connection allows; eth_unsubscribe one first',
  });
  for (let i = 0; i < 3; i++) assert.match((await b.call('eth_subscribe', ['newHeads'])).result, /^0x/);
  assert.deepEqual((await b.call('eth_subscribe', ['newHeads'])).error, {
    code: -32005,
    message: 'too many subscriptions: the node serves at most 8 at once ([evm] max_subscriptions)',
  });
  assert.equal((await a.call('eth_unsubscribe', [subsA[0]])).result, true);
  assert.match((await b.call('eth_subscribe', ['newHeads'])).result, /^0x/);
  // a closed connection's subscriptions are released
  a.ws.close();
  await new Promise((r) => a.ws.once('close', r));
  const c = await wsClient(node.ws);
  t.after(() => c.ws.terminate());
  const subsC: string[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await c.call('eth_subscribe', ['newHeads']);
    if (r.result) subsC.push(r.result);
  }
  assert.equal(subsC.length, 4, 'the 4 slots the closed connection held are free again');

  // criteria: a logs subscription or filter naming more addresses and topics than allowed
  const addresses = Array.from({ length: 60 }, (_, i) => '0x' + (i + 1).toString(16).padStart(40, '0'));
  assert.equal((await c.call('eth_unsubscribe', [subsC[0]])).result, true);
  const subError = (await c.call('eth_subscribe', ['logs', { address: addresses }])).error;
  assert.equal(subError.code, -32005);
  assert.match(
    subError.message,
    /^subscription criteria too large: 60 addresses and topics, with 0 of the 50 that \[evm\] max_log_criteria allows in use/,
  );
  const criteriaError = (await rpc(node.http, 'eth_newFilter', [{ address: addresses }])).error;
  assert.equal(criteriaError.code, -32005);
  assert.match(
    criteriaError.message,
    /^filter criteria too large: 60 addresses and topics, .*\[evm\] max_log_criteria/,
  );
  const within = await rpc(node.http, 'eth_newFilter', [{ address: addresses.slice(0, 40) }]);
  assert.match(within.result, /^0x/);
  assert.equal((await rpc(node.http, 'eth_uninstallFilter', [within.result])).result, true);

  // filters: at most max_filters; pending-tx filters share max_pending_filter_hashes hashes
  const filters: string[] = [];
  for (let i = 0; i < 20; i++) filters.push((await rpc(node.http, 'eth_newPendingTransactionFilter')).result);
  const refused = (await rpc(node.http, 'eth_newPendingTransactionFilter')).error;
  assert.equal(refused.code, -32000);
  assert.match(
    refused.message,
    /^too many filters: 20 are installed, the most this node keeps \(\[evm\] max_filters\)/,
  );

  const wallet = new Wallet(DEV_KEY);
  const nonce = Number((await rpc(node.http, 'eth_getTransactionCount', [wallet.address, 'pending'])).result);
  const hashes: string[] = [];
  for (let i = 0; i < 15; i++) {
    const raw = await wallet.signTransaction({
      type: 2,
      chainId: 713714,
      nonce: nonce + i,
      to: '0x000000000000000000000000000000000000dEaD',
      value: 1n,
      gasLimit: 21000,
      maxFeePerGas: 100_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    });
    hashes.push((await rpc(node.http, 'eth_sendRawTransaction', [raw])).result);
  }
  // the first poll of a filter that missed 5 of the 15 says so; the next returns the 10 kept
  const lagged = (await rpc(node.http, 'eth_getFilterChanges', [filters[0]])).error;
  assert.equal(lagged.code, -32000);
  assert.match(
    lagged.message,
    /^filter lagged: 5 pending transactions arrived since the last poll beyond the 10 kept \(\[evm\] max_pending_filter_hashes\)/,
  );
  assert.deepEqual((await rpc(node.http, 'eth_getFilterChanges', [filters[0]])).result, hashes.slice(5));
  assert.deepEqual((await rpc(node.http, 'eth_getFilterChanges', [filters[0]])).result, []);

  const report = await probe.stop();
  t.diagnostic(`eth_blockNumber during the test: ${JSON.stringify(report)}`);
  assert.ok(alive(node));
  assert.equal(report.failed, 0, report.errors.join('; '));
  assert.ok(report.answered > 0);
});
