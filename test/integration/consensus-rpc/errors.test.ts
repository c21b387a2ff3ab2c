/**
 * Consensus RPC failures in both forms: unknown routes, bad parameters (each named with the reason),
 * heights outside the stored range, JSON-RPC envelope errors, batches and the body limit. The node
 * makes no empty blocks, so after the one tx it stays at height 1 and the messages are exact.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { b64, evmTransferTxRaw } from './fixtures.ts';
import { get, post, type RpcNode, startRpcNode } from './helpers.ts';

let n: RpcNode;

/** GET and POST of a bad call: the error object, with the GET's HTTP status. */
async function failing(route: string, query: string, params: unknown, httpStatus: number) {
  const g = await get(n.rpc, `/${route}${query ? `?${query}` : ''}`);
  const p = await post(n.rpc, route, params, 5);
  assert.equal(g.status, httpStatus, JSON.stringify(g.body));
  assert.equal(p.status, 200, 'JSON-RPC errors are HTTP 200');
  assert.equal(p.body.id, 5);
  assert.equal(g.body.result, undefined);
  assert.deepEqual(p.body.error, g.body.error);
  return g.body.error;
}

async function badCalls() {
  assert.deepEqual(await failing('nope', '', {}, 404), {
    code: -32601,
    message: 'Method not found',
    data: 'unknown route "nope"',
  });
  assert.deepEqual(await failing('block', 'height=abc', { height: 'abc' }, 400), {
    code: -32602,
    message: 'Invalid params',
    data: 'height: expected an integer, got "abc"',
  });
  assert.equal(
    (await failing('block', 'height=-1', { height: -1 }, 400)).data,
    'height must be greater than 0, but got -1',
  );
  assert.equal(
    (await failing('block', 'hieght=1', { hieght: 1 }, 400)).data,
    'unknown parameter "hieght" (this route takes: height)',
  );
  assert.deepEqual(await failing('block', 'height=99', { height: 99 }, 500), {
    code: -32603,
    message: 'Internal error',
    data: 'height 99 must be less than or equal to the current blockchain height 1',
  });
  assert.equal(
    (await failing('tx', 'hash=0x00', { hash: 'AA==' }, 400)).data,
    'hash must be 32 bytes, got 1',
  );
  assert.equal(
    (await get(n.rpc, '/tx?hash=zz')).body.error.data,
    'hash: expected 0x-prefixed hex or a quoted string, got "zz"',
  );
  assert.equal((await post(n.rpc, 'tx', { hash: '!!' })).body.error.data, 'hash: expected base64, got "!!"');
  assert.equal(
    (await failing('tx', `hash=0x${'11'.repeat(32)}`, { hash: b64(new Uint8Array(32).fill(0x11)) }, 500))
      .data,
    `tx (${'11'.repeat(32)}) not found`,
  );
  assert.equal(
    (await failing('tx_search', 'query="message.sender<\'x\'"', { query: "message.sender<'x'" }, 400)).data,
    "query: message.sender < needs a number, got 'x'",
  );
  assert.equal(
    (await failing('abci_query', 'path="/x"&data=ZZ', { path: '/x', data: 'ZZ' }, 400)).data,
    'data: expected hex, got "ZZ"',
  );
  assert.equal((await failing('broadcast_tx_sync', '', {}, 400)).data, 'tx is required');
  assert.equal(
    (await failing('unconfirmed_txs', 'limit=0', { limit: 0 }, 400)).data,
    'limit must be positive, got 0',
  );
  assert.equal(
    (await failing('blockchain', 'minHeight=2&maxHeight=1', { minHeight: 2, maxHeight: 1 }, 400)).data,
    "min height 2 can't be greater than max height 1",
  );
  assert.equal(
    (await failing('validators', 'page=9', { page: 9 }, 400)).data,
    'page should be within [1, 1] range, given 9',
  );
  const positional = await post(n.rpc, 'block', [1, 2]);
  assert.equal(positional.body.error.data, 'expected at most 1 positional params (height), got 2');
}

async function envelopes() {
  const raw = (body: string): Promise<{ status: number; body: any }> =>
    fetch(n.rpc + '/', { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(
      async (r) => ({
        status: r.status,
        body: await r.json(),
      }),
    );
  const parse = await raw('{"jsonrpc":');
  assert.equal(parse.status, 200);
  assert.equal(parse.body.error.code, -32700);
  assert.equal((await raw('{"jsonrpc":"1.0","id":1,"method":"health"}')).body.error.code, -32600);
  const batch = await raw(
    JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'health', params: {} },
      { jsonrpc: '2.0', id: 2, method: 'nope', params: {} },
    ]),
  );
  assert.deepEqual(batch.body, [
    { jsonrpc: '2.0', id: 1, result: {} },
    {
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32601, message: 'Method not found', data: 'unknown route "nope"' },
    },
  ]);
  const tooMany = await raw(
    JSON.stringify(Array.from({ length: 1001 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'health' }))),
  );
  assert.deepEqual(tooMany.body.error, {
    code: -32600,
    message: 'Invalid Request',
    data: 'batch of 1001 requests exceeds the limit of 1000',
  });
  assert.equal((await raw('[]')).body.error.data, 'empty batch');
  const big = await raw(
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'health', params: { x: 'a'.repeat(1_000_001) } }),
  );
  assert.equal(big.status, 413);
  assert.equal(big.body.error.data, 'request body exceeds 1000000 bytes');
  // Unknown routes answer 404 in the POST path form too; other methods 405.
  assert.equal((await fetch(n.rpc + '/status', { method: 'POST', body: '{}' })).status, 404);
  assert.equal((await fetch(n.rpc + '/status', { method: 'DELETE' })).status, 405);
  assert.equal(await (await get(n.rpc, '/status')).status, 200);
}

test('consensus RPC errors', async (t) => {
  n = await startRpcNode(t, { 'consensus.create-empty-blocks': 'false' });
  const committed = await post(n.rpc, 'broadcast_tx_commit', { tx: b64(await evmTransferTxRaw(0, 1, 0)) });
  assert.equal(committed.body.result.height, '1');
  await t.test('unknown routes and bad params are clear errors', badCalls);
  await t.test('JSON-RPC envelope errors, batches and the body limit', envelopes);
});
