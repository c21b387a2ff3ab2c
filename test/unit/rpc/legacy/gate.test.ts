/** The legacy gate inside the dispatcher: what it covers, its refusals, and the served-headers context. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { p } from '../../../../src/rpc/codecs/params.ts';
import { LEGACY_HTTP_HEADERS, isLegacyName, legacyGate } from '../../../../src/rpc/legacy/gate.ts';
import { type CallContext, Dispatcher, method } from '../../../../src/rpc/server/dispatcher.ts';

const table = {
  eth_chainId: method([], () => '0x1'),
  chain_getEVMAddress: method([p.data], () => '0xabc'),
  chain_getCosmosTx: method([], () => ({ ok: true })),
};

test('covers exactly the chain_ and chain2_ prefixes', () => {
  for (const n of ['chain_x', 'chain2_x', 'chain_', 'chain2_']) assert.equal(isLegacyName(n), true, n);
  for (const n of ['eth_chainId', 'chain', 'chain3_x', 'chainx_y', 'Chain_x', 'debug_chain_x', ''])
    assert.equal(isLegacyName(n), false, n);
});

test('the dispatcher refuses before decoding, and reports served headers only for an allowed legacy method', async () => {
  const d = new Dispatcher(table, {
    gate: legacyGate([' CHAIN_getevmaddress ', 'chain_getCosmosTx'], Object.keys(table)),
    denyList: ['chain_getCosmosTx'],
  });
  const req = (id: number, m: string, params: unknown[] = []) => ({ jsonrpc: '2.0', id, method: m, params });

  let ctx: CallContext = {};
  assert.deepEqual(await d.handlePayload(req(1, 'eth_chainId'), 10, ctx), {
    jsonrpc: '2.0',
    id: 1,
    result: '0x1',
  });
  assert.equal(ctx.headers, undefined);

  // allowed; bad params are still "served" (the header goes with the error answer)
  ctx = {};
  const bad = (await d.handlePayload(req(2, 'chain_getEVMAddress', ['nothex']), 10, ctx)) as any;
  assert.equal(bad.error.code, -32602);
  assert.equal(ctx.headers, LEGACY_HTTP_HEADERS);

  // not listed: refused before its params are looked at
  ctx = {};
  const blocked = (await d.handlePayload(req(3, 'chain2_getBlockByNumber', ['garbage']), 10, ctx)) as any;
  assert.equal(blocked.error.code, -32601);
  assert.equal(blocked.error.data, 'legacy_chain_deprecated');
  assert.equal(ctx.headers, undefined);

  // listed but on the deny list: not served, no header
  ctx = {};
  const denied = (await d.handlePayload(req(4, 'chain_getCosmosTx'), 10, ctx)) as any;
  assert.equal(denied.error.code, -32601);
  assert.equal(ctx.headers, undefined);

  // a batch: the header once any element ran an allowed legacy method
  ctx = {};
  const batch = (await d.handlePayload(
    [req(5, 'chain_x'), req(6, 'chain_getEVMAddress', ['0x01'])],
    10,
    ctx,
  )) as any[];
  assert.equal(batch[0].error.data, 'legacy_chain_deprecated');
  assert.equal(batch[1].result, '0xabc');
  assert.equal(ctx.headers, LEGACY_HTTP_HEADERS);
});
