/**
 * The allowlist gate of the deprecated chain_/chain2_ surface over the node's real HTTP and WebSocket
 * listeners: the default list, a custom list spelt with odd casing and spaces, mixed batches, the
 * deprecation header exactly when an allowlisted legacy method ran, and the WebSocket refusal.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import WebSocket from 'ws';
import { toAccAddress, toChecksumAddress } from '../../../src/crypto/accounts.ts';
import { DEV_ACCOUNTS, until } from '../../helpers/node.ts';
import { http, rpcNode } from '../rpc/rpc-helpers.ts';

const HEADER = 'chain-legacy-rpc-deprecation';
const HEADER_TEXT =
  'All chain_* and chain2_* JSON-RPC methods are deprecated and scheduled for removal; migrate to eth_* and debug_*.';
const alice = DEV_ACCOUNTS[0];
const aliceEvm = toChecksumAddress(alice.evmAddress);
const aliceBech = toAccAddress(alice.cosmosAddress);
const UNKNOWN_HASH = '0x' + '11'.repeat(32);

const blocked = (method: string) => ({
  code: -32601,
  message:
    `the method ${method} is not enabled on this node: the chain_* and chain2_* JSON-RPC methods are ` +
    `deprecated and scheduled for removal (prefer eth_* and debug_*); to use it anyway, add "${method}" ` +
    'to enabled_legacy_chain_apis under [evm] in app.toml',
  data: 'legacy_chain_deprecated',
});

/** POSTs a body; returns the parsed answer and the deprecation header (null when absent). */
async function post(url: string, body: unknown) {
  const res = await http(url, { body: JSON.stringify(body) });
  assert.equal(res.status, 200);
  return { answer: JSON.parse(res.text), header: res.headers.get(HEADER) };
}

const call = (id: number, method: string, params: unknown[] = []) => ({ jsonrpc: '2.0', id, method, params });

test('default allowlist: the three default methods are served with the deprecation header, every other chain_/chain2_ name is blocked with the exact error', async (t) => {
  const { url } = await rpcNode(t);

  let r = await post(url, call(1, 'chain_getChainAddress', [aliceEvm]));
  assert.deepEqual(r.answer, { jsonrpc: '2.0', id: 1, result: aliceBech });
  assert.equal(r.header, HEADER_TEXT);

  r = await post(url, call(2, 'chain_getEVMAddress', [aliceBech]));
  assert.deepEqual(r.answer, { jsonrpc: '2.0', id: 2, result: aliceEvm });
  assert.equal(r.header, HEADER_TEXT);

  // served with an error answer: the header is still there
  r = await post(url, call(3, 'chain_getCosmosTx', [UNKNOWN_HASH]));
  assert.equal(r.answer.error.code, -32000);
  assert.equal(r.answer.error.message, `EVM transaction ${UNKNOWN_HASH} not found`);
  assert.equal(r.header, HEADER_TEXT);

  for (const method of [
    'chain_getEvmTx',
    'chain_associate',
    'chain_getTransactionCount',
    'chain_getBlockByNumber',
    'chain2_getBlockByNumber',
    'chain_traceBlockByNumberExcludeTraceFail',
    'chain_noSuchMethod',
    'chain2_',
  ]) {
    const b = await post(url, call(9, method, []));
    assert.deepEqual(b.answer, { jsonrpc: '2.0', id: 9, error: blocked(method) }, method);
    assert.equal(b.header, null, `${method}: a blocked call carries no deprecation header`);
  }

  // allowlisted ignoring case, yet no legacy method has this exact name: blocked all the same
  r = await post(url, call(6, 'chain_getchainaddress', [aliceEvm]));
  assert.deepEqual(r.answer.error, {
    code: -32601,
    message:
      'the method chain_getchainaddress is not enabled on this node: no chain_* or chain2_* method has this ' +
      'name (names are case-sensitive), and the chain_* and chain2_* JSON-RPC methods are deprecated and ' +
      'scheduled for removal (prefer eth_* and debug_*)',
    data: 'legacy_chain_deprecated',
  });
  assert.equal(r.header, null);

  // eth_ and the Cosmos-sounding but unprefixed names are untouched by the gate
  r = await post(url, call(4, 'eth_chainId'));
  assert.equal(r.answer.result, '0xae3f2');
  assert.equal(r.header, null);
  r = await post(url, call(5, 'chainx_foo'));
  assert.deepEqual(r.answer.error, {
    code: -32601,
    message: 'the method chainx_foo does not exist/is not available',
  });
});

test('custom allowlist with odd casing and spaces (set by flag); mixed batches carry the header only when an allowlisted legacy method ran', async (t) => {
  const { url } = await rpcNode(t, {
    'evm.enabled_legacy_chain_apis':
      '  CHAIN_GETEVMTX ,chain_getVMError  ,  Chain_GetTransactionCount, chain_madeUp',
  });

  let r = await post(url, call(1, 'chain_getEvmTx', ['AB'.repeat(32)]));
  assert.deepEqual(r.answer.error, {
    code: -32000,
    message: `Cosmos transaction ${'AB'.repeat(32)} not found`,
  });
  assert.equal(r.header, HEADER_TEXT);

  r = await post(url, call(2, 'chain_getVMError', [UNKNOWN_HASH]));
  assert.deepEqual(r.answer.error, { code: -32000, message: 'receipt not found' });
  assert.equal(r.header, HEADER_TEXT);

  r = await post(url, call(3, 'chain_getTransactionCount', [aliceEvm, 'latest']));
  assert.equal(r.answer.result, '0x0');
  assert.equal(r.header, HEADER_TEXT);

  // listing a name does not make it a method
  r = await post(url, call(5, 'chain_madeUp'));
  assert.equal(r.answer.error.code, -32601);
  assert.equal(r.answer.error.data, 'legacy_chain_deprecated');
  assert.match(
    r.answer.error.message,
    /^the method chain_madeUp is not enabled on this node: no chain_\* or chain2_\* method has this name/,
  );
  assert.equal(r.header, null);

  // the defaults are not implied by a custom list
  r = await post(url, call(4, 'chain_getChainAddress', [aliceEvm]));
  assert.deepEqual(r.answer.error, blocked('chain_getChainAddress'));
  assert.equal(r.header, null);

  // allowed + blocked + eth_: each element answered on its own, in order; the header is present
  r = await post(url, [
    call(10, 'chain_getTransactionCount', [aliceEvm, 'latest']),
    call(11, 'chain_getEVMAddress', [aliceBech]),
    call(12, 'eth_chainId'),
  ]);
  assert.deepEqual(r.answer, [
    { jsonrpc: '2.0', id: 10, result: '0x0' },
    { jsonrpc: '2.0', id: 11, error: blocked('chain_getEVMAddress') },
    { jsonrpc: '2.0', id: 12, result: '0xae3f2' },
  ]);
  assert.equal(r.header, HEADER_TEXT);

  // blocked + eth_ only: no allowlisted legacy method ran, so no header
  r = await post(url, [call(20, 'chain2_getBlockByNumber', ['latest', false]), call(21, 'eth_chainId')]);
  assert.deepEqual(r.answer, [
    { jsonrpc: '2.0', id: 20, error: blocked('chain2_getBlockByNumber') },
    { jsonrpc: '2.0', id: 21, result: '0xae3f2' },
  ]);
  assert.equal(r.header, null);

  // an allowlisted method whose parameters are invalid was still served (an error answer)
  r = await post(url, [call(30, 'eth_chainId'), call(31, 'chain_getEvmTx', ['0x1234'])]);
  assert.equal(r.answer[1].error.code, -32602);
  assert.equal(r.header, HEADER_TEXT);
});

test('over WebSocket every legacy method is -32601, even an allowlisted one; eth_ is served', async (t) => {
  const { node } = await rpcNode(t);
  const socket = new WebSocket(node.modules.evmWs!.url);
  t.after(() => socket.close());
  const answers = new Map<number, any>();
  socket.on('message', (data) => {
    const msg = JSON.parse(data.toString());
    answers.set(msg.id, msg);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  socket.send(JSON.stringify(call(1, 'chain_getChainAddress', [aliceEvm])));
  socket.send(JSON.stringify(call(2, 'chain2_getBlockByNumber', ['latest', false])));
  socket.send(JSON.stringify(call(3, 'eth_chainId')));
  await until(() => answers.size === 3);
  for (const [id, method] of [
    [1, 'chain_getChainAddress'],
    [2, 'chain2_getBlockByNumber'],
  ] as const) {
    assert.deepEqual(answers.get(id).error, {
      code: -32601,
      message: `the method ${method} is not available over WebSocket: the deprecated chain_* and chain2_* methods are served over HTTP only`,
    });
  }
  assert.equal(answers.get(3).result, '0xae3f2');
});
