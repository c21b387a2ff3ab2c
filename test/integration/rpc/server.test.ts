/**
 * The HTTP transport and the JSON-RPC envelope over a real node: routes and statuses, body limit,
 * content type, parse errors, invalid requests, notifications, batches, params validation, CORS,
 * deny_list, gzip.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { test } from 'node:test';
import { makeHome, startNode } from '../../helpers/node.ts';
import { http, rpc, rpcNode } from './rpc-helpers.ts';

const FLAGS = {
  'evm.batch_request_limit': '3',
  'evm.deny_list': 'eth_accounts,eth_syncing',
  'evm.cors_origins': 'https://app.example, https://other.example',
  'evm.max_request_body_bytes': '2048',
  'consensus.create-empty-blocks': 'false',
};
const CHAIN_ID = '0xae3f2';
const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  http(url, {
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  });
const json = async (p: Promise<{ status: number; text: string }>) => {
  const r = await p;
  assert.equal(r.status, 200);
  return JSON.parse(r.text);
};

/** A chunked POST (no content-length) of `size` bytes; resolves with the status. */
function chunkedPost(url: string, size: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    const chunk = Buffer.alloc(512, ' ');
    for (let sent = 0; sent < size; sent += chunk.length) req.write(chunk);
    req.end();
  });
}

test('JSON-RPC over HTTP: routes, limits, envelope, batches, params, CORS, deny list, gzip', async (t) => {
  const { url, node } = await rpcNode(t, FLAGS);

  await t.test('the listening address is logged and bound on 127.0.0.1 at a picked port', () => {
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(node.modules.evmHttp!.port, 0);
  });

  await t.test('GET / is the health check; other paths 404; other methods 405; wrong type 415', async () => {
    const health = await http(url, { method: 'GET', headers: {} });
    assert.equal(health.status, 200);
    assert.deepEqual(JSON.parse(health.text), { status: 'ok' });
    assert.equal((await http(url, { method: 'GET', headers: {}, path: '/status' })).status, 404);
    assert.equal((await http(url, { path: '/rpc', body: '{}' })).status, 404);
    const put = await http(url, { method: 'PUT', body: '{}' });
    assert.equal(put.status, 405);
    assert.equal(put.headers.get('allow'), 'GET, POST, OPTIONS');
    assert.equal((await http(url, { method: 'DELETE' })).status, 405);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId' });
    const plain = await http(url, { headers: { 'content-type': 'text/plain' }, body });
    assert.equal(plain.status, 415);
    assert.equal(plain.text, 'content type "text/plain": want application/json');
    assert.equal((await http(url, { headers: {}, body: Buffer.from(body) })).status, 415);
    const charset = await post(url, body, { 'content-type': 'application/json; charset=utf-8' });
    assert.deepEqual(JSON.parse(charset.text), { jsonrpc: '2.0', id: 1, result: CHAIN_ID });
  });

  await t.test('a body over max_request_body_bytes is 413, with or without content-length', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'web3_sha3',
      params: ['0x' + 'ab'.repeat(1100)],
    });
    assert.ok(big.length > 2048);
    const r = await post(url, big);
    assert.equal(r.status, 413);
    assert.equal(r.text, 'request body larger than max_request_body_bytes (2048)');
    assert.equal(await chunkedPost(url, 4096), 413);
    // just under the limit is served
    const ok = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'web3_sha3',
      params: ['0x' + 'ab'.repeat(900)],
    });
    assert.ok(ok.length <= 2048);
    assert.equal((await post(url, ok)).status, 200);
  });

  await t.test('parse errors and invalid requests', async () => {
    assert.deepEqual(await json(post(url, '{"jsonrpc":')), {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'parse error' },
    });
    assert.deepEqual(await json(post(url, '1')), {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request', data: 'not a JSON-RPC request object' },
    });
    assert.deepEqual(await json(post(url, { jsonrpc: '1.0', id: 7, method: 'eth_chainId' })), {
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32600, message: 'Invalid Request', data: 'jsonrpc must be "2.0"' },
    });
    assert.deepEqual(await json(post(url, { jsonrpc: '2.0', id: 'x' })), {
      jsonrpc: '2.0',
      id: 'x',
      error: { code: -32600, message: 'Invalid Request', data: 'method must be a non-empty string' },
    });
    assert.deepEqual(await json(post(url, { jsonrpc: '2.0', id: { a: 1 }, method: 'eth_chainId' })), {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request', data: 'id must be a string, a number or null' },
    });
    assert.deepEqual(await json(post(url, { jsonrpc: '2.0', id: 2, method: 'eth_getBalance', params: {} })), {
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32602, message: 'non-array args: params must be an array of positional arguments' },
    });
    // id null is a request (answered), not a notification
    assert.deepEqual(await json(post(url, { jsonrpc: '2.0', id: null, method: 'eth_chainId' })), {
      jsonrpc: '2.0',
      id: null,
      result: CHAIN_ID,
    });
  });

  await t.test('unknown and deny-listed methods are -32601', async () => {
    assert.deepEqual((await rpc(url, 'eth_foo')).error, {
      code: -32601,
      message: 'the method eth_foo does not exist/is not available',
    });
    assert.deepEqual((await rpc(url, 'eth_accounts')).error, {
      code: -32601,
      message: "the method eth_accounts is not available: it is in this node's deny_list",
    });
  });

  await t.test('params are validated before the handler: count, presence, type, hex', async () => {
    const addr = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
    const cases: [string, unknown[], string][] = [
      ['eth_chainId', [1], 'too many arguments, want at most 0'],
      ['eth_getBalance', [addr, 'latest', 'extra'], 'too many arguments, want at most 2'],
      ['eth_getBalance', [addr], 'missing value for required argument 1'],
      ['eth_getBalance', [], 'missing value for required argument 0'],
      ['eth_getBalance', [addr, null], 'missing value for required argument 1'],
      ['eth_getBalance', [addr.slice(2), 'latest'], 'invalid argument 0: hex string without 0x prefix'],
      [
        'eth_getBalance',
        [addr + '00', 'latest'],
        'invalid argument 0: hex string has length 42, want 40 for common.Address',
      ],
      ['eth_getBalance', ['0x' + 'zz'.repeat(20), 'latest'], 'invalid argument 0: invalid hex string'],
      [
        'eth_getBalance',
        [42, 'latest'],
        'invalid argument 0: json: cannot unmarshal number into Go value of type common.Address',
      ],
      ['eth_getBalance', [addr, '0x01'], 'invalid argument 1: hex number with leading zero digits'],
      ['eth_getBalance', [addr, 'newest'], 'invalid argument 1: hex string without 0x prefix'],
      [
        'eth_getBalance',
        [addr, 7],
        'invalid argument 1: invalid block reference 7: want a hex number, a tag, a block hash or an EIP-1898 object',
      ],
      [
        'eth_getBlockByNumber',
        ['0x1', 'yes'],
        'invalid argument 1: json: cannot unmarshal string into Go value of type bool',
      ],
      ['eth_getBlockByNumber', ['0x'], 'invalid argument 0: hex string "0x"'],
      [
        'eth_getBlockByNumber',
        ['0x8000000000000000', false],
        'invalid argument 0: block number larger than int64',
      ],
      ['eth_getBlockByNumber', ['0x10000000000000000', false], 'invalid argument 0: hex number > 64 bits'],
      ['eth_sendRawTransaction', ['0xabc'], 'invalid argument 0: hex string of odd length'],
      [
        'eth_getTransactionByHash',
        ['0x1234'],
        'invalid argument 0: hex string has length 4, want 64 for common.Hash',
      ],
    ];
    for (const [method, params, message] of cases) {
      assert.deepEqual(
        (await rpc(url, method, params)).error,
        { code: -32602, message },
        `${method} ${JSON.stringify(params)}`,
      );
    }
  });

  await t.test('notifications get no answer; a batch is answered in order without them', async () => {
    const n = await post(url, { jsonrpc: '2.0', method: 'eth_chainId' });
    assert.equal(n.status, 200);
    assert.equal(n.text, '');
    // A failing notification is not answered either.
    assert.equal((await post(url, { jsonrpc: '2.0', method: 'eth_nope' })).text, '');

    const batch = await json(
      post(url, [
        { jsonrpc: '2.0', id: 'a', method: 'eth_chainId' },
        { jsonrpc: '2.0', method: 'eth_blockNumber' },
        { jsonrpc: '2.0', id: 2, method: 'eth_nope' },
      ]),
    );
    assert.deepEqual(batch, [
      { jsonrpc: '2.0', id: 'a', result: CHAIN_ID },
      {
        jsonrpc: '2.0',
        id: 2,
        error: { code: -32601, message: 'the method eth_nope does not exist/is not available' },
      },
    ]);
    const invalidMember = await json(post(url, [1, { jsonrpc: '2.0', id: 3, method: 'net_version' }]));
    assert.deepEqual(invalidMember, [
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request', data: 'not a JSON-RPC request object' },
      },
      { jsonrpc: '2.0', id: 3, result: '713714' },
    ]);
    const onlyNotifications = await post(url, [
      { jsonrpc: '2.0', method: 'eth_chainId' },
      { jsonrpc: '2.0', method: 'net_version' },
    ]);
    assert.equal(onlyNotifications.text, '');
  });

  await t.test('empty and oversize batches are one -32600 error; the limit itself is served', async () => {
    assert.deepEqual(await json(post(url, [])), {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'empty batch' },
    });
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'eth_chainId' });
    assert.deepEqual(await json(post(url, [call(1), call(2), call(3), call(4)])), {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'batch too large: 4 requests, batch_request_limit is 3' },
    });
    const three = await json(post(url, [call(3), call(1), call(2)]));
    assert.deepEqual(
      three.map((r: { id: number }) => r.id),
      [3, 1, 2],
    );
  });

  await t.test('CORS: allowed origins are echoed, others get no header; preflight', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId' });
    const allowed = await post(url, body, { origin: 'https://other.example' });
    assert.equal(allowed.headers.get('access-control-allow-origin'), 'https://other.example');
    assert.equal(allowed.headers.get('vary'), 'Origin');
    const denied = await post(url, body, { origin: 'https://evil.example' });
    assert.equal(denied.status, 200);
    assert.equal(denied.headers.get('access-control-allow-origin'), null);
    const preflight = await http(url, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://app.example');
    assert.equal(preflight.headers.get('access-control-allow-methods'), 'POST, GET, OPTIONS');
    assert.equal(preflight.headers.get('access-control-allow-headers'), 'content-type');
    const foreign = await http(url, { method: 'OPTIONS', headers: { origin: 'https://evil.example' } });
    assert.equal(foreign.status, 204);
    assert.equal(foreign.headers.get('access-control-allow-origin'), null);
  });

  await t.test('large answers are gzipped when the client accepts it', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_getBlockByNumber',
      params: ['0x0', false],
    });
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip' },
      body,
    });
    assert.equal(res.headers.get('content-encoding'), 'gzip');
    assert.equal(((await res.json()) as { result: { number: string } }).result.number, '0x0');
    const small = await post(url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId' }), {
      'accept-encoding': 'gzip',
    });
    assert.equal(small.headers.get('content-encoding'), null);
  });
});

test('the server is off with http_enabled = false, and a taken port stops startup', async (t) => {
  const off = await startNode(makeHome(t), { 'evm.http_enabled': 'false', 'evm.http_port': '0' });
  t.after(() => off.stop());
  assert.equal(off.modules.evmHttp, undefined);
  const { node } = await rpcNode(t);
  const port = node.modules.evmHttp!.port;
  await assert.rejects(startNode(makeHome(t), { 'evm.http_port': String(port) }), {
    name: 'ChainError',
    message: `the JSON-RPC server cannot listen on 127.0.0.1:${port} ([evm] http_port): listen EADDRINUSE: address already in use 127.0.0.1:${port}`,
  });
});
