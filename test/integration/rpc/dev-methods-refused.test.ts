/**
 * A node that is not a dev chain (`chaind start`, here the embedded engine without `dev`) answers
 * every dev-chain method -32601 saying it is one, whatever its params; eth_accounts stays the empty
 * list of a node without keys, and web3_clientVersion names chaind.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEV_ONLY_METHODS } from '../../../src/rpc/dev/index.ts';
import { error, result, rpcNode } from './rpc-helpers.ts';

test('dev-chain methods are refused with a reason on a node that is not a dev chain', async (t) => {
  const { url } = await rpcNode(t);
  assert.ok(DEV_ONLY_METHODS.length >= 20);
  for (const name of DEV_ONLY_METHODS) {
    for (const params of [[], ['0x1', true, { from: '0x' + '11'.repeat(20) }]]) {
      assert.deepEqual(await error(url, name, params), {
        code: -32601,
        message: `the method ${name} is a dev-chain method: only a local dev chain (\`chaind dev\`, \`npm start\`) serves it`,
      });
    }
  }
  assert.deepEqual(await result(url, 'eth_accounts'), []);
  assert.match(await result(url, 'web3_clientVersion'), /^chaind\/v/);
  // a name nobody serves keeps the plain answer
  assert.deepEqual(await error(url, 'evm_nothing'), {
    code: -32601,
    message: 'the method evm_nothing does not exist/is not available',
  });
});
