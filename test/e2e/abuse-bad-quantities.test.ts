/**
 * Out-of-range quantities in a call object are the caller's mistake: eth_call, eth_estimateGas and
 * debug_traceCall answer -32602 (or -32000 for what only the execution refuses) naming the field, and
 * never -32603 with a stack trace logged at ERROR. A nonce of 0xffffffffffffffff once reached
 * ethereumjs's transaction constructor, which threw a plain Error: -32603 'internal error'.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { alive, BlockNumberProbe, post, spawnDev } from '../helpers/abuse.ts';

const TO = '0x00000000000000000000000000000000000000aa';
const METHODS = ['eth_call', 'eth_estimateGas', 'debug_traceCall'];

test('out-of-range quantities in eth_call, eth_estimateGas and debug_traceCall answer input errors', async (t) => {
  const node = await spawnDev(t);
  const probe = new BlockNumberProbe(t, node.http);
  const cases: { field: Record<string, unknown>; code: number; message: RegExp }[] = [
    {
      field: { nonce: '0xffffffffffffffff' },
      code: -32602,
      message:
        /^invalid argument 0: nonce: 0xffffffffffffffff is above the highest nonce a transaction may have, 2\^64-2$/,
    },
    {
      field: { nonce: '0x10000000000000000' },
      code: -32602,
      message: /^invalid argument 0: nonce: hex number > 64 bits$/,
    },
    {
      field: { gas: '0x10000000000000000' },
      code: -32602,
      message: /^invalid argument 0: gas: hex number > 64 bits$/,
    },
    {
      field: { value: '0x1' + '0'.repeat(64) },
      code: -32602,
      message: /^invalid argument 0: value: hex number > 256 bits$/,
    },
    {
      field: { maxFeePerGas: '0x1' + '0'.repeat(64) },
      code: -32602,
      message: /^invalid argument 0: maxFeePerGas: hex number > 256 bits$/,
    },
    { field: { chainId: '0xffffffffffffffffffff' }, code: -32000, message: /^chainId does not match node's/ },
  ];
  let id = 0;
  for (const c of cases) {
    for (const method of METHODS) {
      const r = await post(node.http, {
        jsonrpc: '2.0',
        id: ++id,
        method,
        params: [{ to: TO, ...c.field }, 'latest'],
      });
      const what = `${method} ${JSON.stringify(c.field)}: ${JSON.stringify(r)}`;
      assert.ok(r.error, what);
      assert.equal(r.error.code, c.code, what);
      assert.match(r.error.message, c.message, what);
    }
  }
  // the highest nonce a transaction may carry is served (calls do not check nonces, as geth's)
  for (const method of METHODS) {
    const r = await post(node.http, {
      jsonrpc: '2.0',
      id: ++id,
      method,
      params: [{ to: TO, nonce: '0xfffffffffffffffe' }, 'latest'],
    });
    assert.equal(r.error, undefined, `${method}: ${JSON.stringify(r)}`);
  }
  const report = await probe.stop();
  t.diagnostic(`eth_blockNumber meanwhile: ${JSON.stringify(report)}`);
  assert.ok(alive(node));
  assert.equal(report.failed, 0, report.errors.join('; '));
  const errors = node.proc.lines.filter((l) => l.includes('"level":"error"'));
  assert.deepEqual(errors, [], 'nothing was logged at ERROR');
});
