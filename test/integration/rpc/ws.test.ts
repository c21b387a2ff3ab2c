/**
 * JSON-RPC over WebSocket with a raw `ws` client: the HTTP method table (single, batch, parse error),
 * eth_subscribe newHeads / logs / newPendingTransactions with exact notification envelopes, every
 * committed block reported once and in order, eth_unsubscribe, the message size limit, filters
 * shared with HTTP, and eth_subscribe refused over HTTP.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getCreateAddress, Interface } from 'ethers';
import WebSocket from 'ws';
import { artifacts } from '../../helpers/dev-chain.ts';
import { until } from '../../helpers/node.ts';
import { CHAIN_ID, error, GWEI, hex, result, rpcNode, waitReceipt, wallets } from './rpc-helpers.ts';

const token = new Interface(artifacts.TestToken.abi);
const fee = { maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI, chainId: CHAIN_ID, type: 2 };

/** A raw client: requests by id, notifications collected per subscription. */
class WsClient {
  readonly socket: WebSocket;
  readonly notifications: { subscription: string; result: any }[] = [];
  readonly others: any[] = [];
  private nextId = 1;
  private readonly waiting = new Map<unknown, (v: any) => void>();

  constructor(url: string) {
    this.socket = new WebSocket(url);
    this.socket.on('message', (data) => {
      const msg = JSON.parse(data.toString());
      if (!Array.isArray(msg) && msg.method === 'eth_subscription') {
        assert.deepEqual(Object.keys(msg), ['jsonrpc', 'method', 'params']);
        assert.equal(msg.jsonrpc, '2.0');
        assert.deepEqual(Object.keys(msg.params), ['subscription', 'result']);
        this.notifications.push(msg.params);
        return;
      }
      const id = Array.isArray(msg) ? 'batch' : msg.id;
      const w = this.waiting.get(id);
      if (w) {
        this.waiting.delete(id);
        w(msg);
      } else this.others.push(msg);
    });
  }

  open(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('error', reject);
    });
  }

  request(method: string, params: unknown[] = []): Promise<any> {
    const id = this.nextId++;
    return this.raw(JSON.stringify({ jsonrpc: '2.0', id, method, params }), id);
  }

  raw(text: string, id: unknown): Promise<any> {
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.socket.send(text);
    });
  }

  async result(method: string, params: unknown[] = []): Promise<any> {
    const r = await this.request(method, params);
    assert.equal(r.error, undefined, `${method}: ${JSON.stringify(r.error)}`);
    return r.result;
  }

  of(subscription: string): any[] {
    return this.notifications.filter((n) => n.subscription === subscription).map((n) => n.result);
  }

  close(): void {
    this.socket.close();
  }
}

test('JSON-RPC over WebSocket: methods, subscriptions, limits', async (t) => {
  const { node, url } = await rpcNode(t, { 'evm.max_request_body_bytes': '65536' });
  const call = (method: string, ...params: unknown[]) => result(url, method, params);
  const chain = node.modules.chain;
  const producer = node.modules.engine.producer!;
  const wsUrl = node.modules.evmWs!.url;
  assert.match(wsUrl, /^ws:\/\/127\.0\.0\.1:\d+$/);
  const ws = new WsClient(wsUrl);
  await ws.open();
  t.after(() => ws.close());
  const [owner, b] = wallets;
  let nonce = 0;
  const send = async (tx: object) =>
    call('eth_sendRawTransaction', await owner.signTransaction({ ...fee, nonce: nonce++, ...tx }));

  await t.test('the HTTP method table: single requests, batches, errors', async () => {
    assert.equal(await ws.result('eth_chainId'), hex(CHAIN_ID));
    const r = await ws.result('eth_getBalance', [owner.address, 'latest']);
    assert.equal(r, await call('eth_getBalance', owner.address, 'latest'));
    const batch = await ws.raw(
      JSON.stringify([
        { jsonrpc: '2.0', id: 'a', method: 'net_version', params: [] },
        { jsonrpc: '2.0', method: 'eth_chainId', params: [] },
        { jsonrpc: '2.0', id: 'b', method: 'eth_nope', params: [] },
      ]),
      'batch',
    );
    assert.deepEqual(batch, [
      { jsonrpc: '2.0', id: 'a', result: String(CHAIN_ID) },
      {
        jsonrpc: '2.0',
        id: 'b',
        error: { code: -32601, message: 'the method eth_nope does not exist/is not available' },
      },
    ]);
    assert.deepEqual(await ws.raw('{"jsonrpc"', null), {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'parse error' },
    });
    assert.deepEqual((await ws.request('eth_getBalance', ['0x12'])).error, {
      code: -32602,
      message: 'invalid argument 0: hex string has length 2, want 40 for common.Address',
    });
  });

  await t.test('newHeads: each committed block once, in order, as geth’s header object', async () => {
    const before = chain.latestHeight;
    const id = await ws.result('eth_subscribe', ['newHeads']);
    assert.match(id, /^0x[1-9a-f][0-9a-f]{0,31}$/);
    const after = chain.latestHeight;
    await until(() => ws.of(id).length >= 4);
    await producer.stop();
    await until(() => ws.of(id).at(-1) && Number(ws.of(id).at(-1).number) === chain.latestHeight);
    const heads = ws.of(id);
    const first = Number(heads[0].number);
    // the first head is the first block the hub reports after the subscription was made (the hub may
    // still be reporting the block committed just before it)
    assert.ok(
      first >= before && first <= after + 1,
      `first head ${first}, subscribed between ${before} and ${after}`,
    );
    assert.deepEqual(
      heads.map((h) => Number(h.number)),
      heads.map((_, i) => first + i),
    );
    for (const h of heads) {
      const { size, transactions, uncles, ...header } = await call('eth_getBlockByNumber', h.number, false);
      assert.ok(size && transactions && uncles);
      assert.deepEqual(h, header);
    }
    assert.equal(await ws.result('eth_unsubscribe', [id]), true);
    assert.deepEqual((await ws.request('eth_unsubscribe', [id])).error, {
      code: -32000,
      message: 'subscription not found',
    });
    const seen = ws.of(id).length;
    producer.start();
    const h = chain.latestHeight;
    await until(() => chain.latestHeight >= h + 2);
    assert.equal(ws.of(id).length, seen, 'no notification after eth_unsubscribe');
  });

  await t.test('logs: every matching log of each committed block, in order', async () => {
    const deploy = await waitReceipt(
      url,
      await send({
        gasLimit: 2_000_000,
        data: artifacts.TestToken.bytecode + token.encodeDeploy(['Test', 'TST', 1000n]).slice(2),
      }),
    );
    const address = getCreateAddress({ from: owner.address, nonce: 0 });
    const transfer = (n: bigint) =>
      send({ to: address, gasLimit: 100_000, data: token.encodeFunctionData('transfer', [b.address, n]) });
    const id = await ws.result('eth_subscribe', ['logs', { address }]);
    const other = await ws.result('eth_subscribe', ['logs', { address: b.address }]);
    await producer.stop();
    const hashes = [await transfer(1n), await transfer(2n)];
    producer.start();
    hashes.push(await transfer(3n));
    const receipts = await Promise.all(hashes.map((h) => waitReceipt(url, h)));
    const expected = receipts.flatMap((r) => r.logs);
    await until(() => ws.of(id).length >= 3);
    assert.deepEqual(ws.of(id), expected);
    assert.deepEqual(ws.of(other), []);
    assert.ok(Number(deploy.blockNumber) < Number(expected[0].blockNumber));
    const err = (
      await ws.request('eth_subscribe', ['logs', { blockHash: deploy.blockHash, fromBlock: '0x1' }])
    ).error;
    assert.equal(err.code, -32602);
    assert.match(err.message, /cannot specify both BlockHash and FromBlock\/ToBlock/);
  });

  await t.test('newPendingTransactions: hashes, or full objects with `true`', async () => {
    const hashesId = await ws.result('eth_subscribe', ['newPendingTransactions']);
    const fullId = await ws.result('eth_subscribe', ['newPendingTransactions', true]);
    await producer.stop();
    const hash = await send({ to: b.address, value: 1n, gasLimit: 21_000 });
    await until(() => ws.of(hashesId).length >= 1 && ws.of(fullId).length >= 1);
    assert.deepEqual(ws.of(hashesId), [hash]);
    assert.deepEqual(ws.of(fullId), [await call('eth_getTransactionByHash', hash)]);
    assert.equal(ws.of(fullId)[0].blockHash, null);
    producer.start();
    await waitReceipt(url, hash);
  });

  await t.test('subscription errors; eth_subscribe is WebSocket only', async () => {
    assert.deepEqual((await ws.request('eth_subscribe', ['nope'])).error, {
      code: -32601,
      message: 'no "nope" subscription in eth namespace',
    });
    assert.equal((await ws.request('eth_subscribe', [])).error.code, -32602);
    assert.equal((await ws.request('eth_subscribe', ['newPendingTransactions', 'x'])).error.code, -32602);
    assert.deepEqual(await error(url, 'eth_subscribe', ['newHeads']), {
      code: -32601,
      message: 'the method eth_subscribe does not exist/is not available',
    });
  });

  await t.test('filters are shared between HTTP and WebSocket', async () => {
    const id = await call('eth_newBlockFilter');
    const h = chain.latestHeight;
    await until(() => chain.latestHeight >= h + 1);
    const changes = await ws.result('eth_getFilterChanges', [id]);
    assert.ok(changes.length >= 1);
    assert.equal(await ws.result('eth_uninstallFilter', [id]), true);
    assert.equal(await call('eth_uninstallFilter', id), false);
  });

  await t.test('a message over max_request_body_bytes closes the connection with 1009', async () => {
    const c = new WsClient(wsUrl);
    await c.open();
    await c.result('eth_subscribe', ['newHeads']);
    const closed = new Promise<number>((resolve) => c.socket.once('close', (code) => resolve(code)));
    c.socket.send(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'web3_sha3', params: ['0x' + 'ab'.repeat(40_000)] }),
    );
    assert.equal(await closed, 1009);
    // a message under the limit is answered
    assert.equal(
      await ws.result('web3_sha3', ['0x' + 'ab'.repeat(30_000)]),
      await call('web3_sha3', '0x' + 'ab'.repeat(30_000)),
    );
  });
});

test('ws_enabled = false serves no WebSocket; HTTP is unaffected', async (t) => {
  const { node, url } = await rpcNode(t, { 'evm.ws_enabled': 'false' });
  assert.equal(node.modules.evmWs, undefined);
  assert.equal(await result(url, 'eth_chainId'), hex(CHAIN_ID));
});
