/**
 * What an RPC reader thread answers itself and what it passes to the main thread: a real Dispatcher
 * over a small local table; the main thread is a function that records what reached it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { p } from '../../../../src/rpc/codecs/params.ts';
import { Dispatcher, method } from '../../../../src/rpc/server/dispatcher.ts';
import { RpcMetrics } from '../../../../src/rpc/server/metrics.ts';
import { ReaderPayloads } from '../../../../src/rpc/server/reader-payloads.ts';
import { ChainError } from '../../../../src/util/errors.ts';

function reader(o: { ready?: boolean; maxResponseBytes?: number } = {}) {
  const local = new Dispatcher({
    eth_blockNumber: method([], () => '0x7'),
    eth_getBlockByNumber: method([p.quantity], (n) => (n > 7n ? null : { number: '0x' + n.toString(16) })),
    eth_getBalance: method([p.address], () => {
      throw new ChainError('UNSUPPORTED', 'answered by the main thread');
    }),
  });
  const forwarded: unknown[] = [];
  const registry = new Registry();
  const payloads = new ReaderPayloads({
    local,
    localMethods: new Set(['eth_blockNumber', 'eth_getBlockByNumber', 'eth_getBalance']),
    ready: () => o.ready ?? true,
    forward: async (payload) => {
      forwarded.push(payload);
      return { json: '"from main"', headers: { 'x-from': 'main' } };
    },
    metrics: new RpcMetrics(registry),
    maxResponseBytes: o.maxResponseBytes,
  });
  return { payloads, forwarded, registry };
}

const req = (id: number | string, method: string, params?: unknown[]) => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});

test('local requests and all-local batches are answered by the reader, in order, with their ids', async () => {
  const { payloads, forwarded, registry } = reader();
  assert.equal(
    await payloads.handlePayloadText(req(1, 'eth_blockNumber'), 10),
    '{"jsonrpc":"2.0","id":1,"result":"0x7"}',
  );
  const batch = [req('a', 'eth_getBlockByNumber', ['0x3']), req('b', 'eth_blockNumber')];
  assert.deepEqual(JSON.parse((await payloads.handlePayloadText(batch, 10))!), [
    { jsonrpc: '2.0', id: 'a', result: { number: '0x3' } },
    { jsonrpc: '2.0', id: 'b', result: '0x7' },
  ]);
  assert.deepEqual(forwarded, []);
  const counted = (await registry.getSingleMetricAsString('chaind_rpc_requests_total')).split('\n');
  assert.ok(counted.includes('chaind_rpc_requests_total{method="eth_blockNumber",outcome="ok"} 2'));
});

test('everything the reader cannot answer truthfully goes to the main thread whole', async () => {
  const cases: [string, unknown, { ready?: boolean; maxResponseBytes?: number }?][] = [
    ['a method it does not serve', req(1, 'eth_call', [])],
    ['a local call that fails', req(1, 'eth_getBalance', ['0x' + '11'.repeat(20)])],
    ['a local call that finds nothing', req(1, 'eth_getBlockByNumber', ['0x9'])],
    ['bad params', req(1, 'eth_getBlockByNumber', ['latest!'])],
    ['a notification', { jsonrpc: '2.0', method: 'eth_blockNumber' }],
    ['not a request', 42],
    ['an empty batch', []],
    ['a batch over the limit', Array.from({ length: 11 }, (_, i) => req(i, 'eth_blockNumber'))],
    ['a batch mixing local and other calls', [req(1, 'eth_blockNumber'), req(2, 'eth_gasPrice')]],
    [
      'a batch with a local call that finds nothing',
      [req(1, 'eth_blockNumber'), req(2, 'eth_getBlockByNumber', ['0x9'])],
    ],
    ['a view that does not hold the published head', req(1, 'eth_blockNumber'), { ready: false }],
    [
      'an answer over max_response_bytes',
      [req(1, 'eth_blockNumber'), req(2, 'eth_blockNumber')],
      { maxResponseBytes: 60 },
    ],
  ];
  for (const [what, payload, options] of cases) {
    const { payloads, forwarded, registry } = reader(options);
    const ctx: { headers?: Record<string, string> } = {};
    assert.equal(await payloads.handlePayloadText(payload, 10, ctx), '"from main"', what);
    assert.deepEqual(forwarded, [payload], what);
    assert.deepEqual(ctx.headers, { 'x-from': 'main' }, what);
    // the main thread's dispatcher counts a forwarded call; the reader does not count it again
    assert.ok(
      !(await registry.getSingleMetricAsString('chaind_rpc_requests_total')).includes('outcome="'),
      what,
    );
  }
});
