/**
 * eth_config (EIP-7910) over HTTP against an in-process node: Prague from genesis with nothing
 * scheduled, the fork id from this chain's own block 0, and the shape of geth's answer in the
 * execution-apis fixture (read from $EXECUTION_APIS_TESTS when set; its values describe geth's test
 * chain, so only the shape is compared).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { crc32 } from 'node:zlib';
import { CHAIN_ID, error, hex, result, rpcNode } from './rpc-helpers.ts';

const FIXTURE = join(process.env.EXECUTION_APIS_TESTS ?? '', 'tests', 'eth_config', 'get-config.io');

test('eth_config', async (t) => {
  const { url } = await rpcNode(t);
  const config = await result(url, 'eth_config', []);

  await t.test('current is Prague, active from genesis; nothing is scheduled', () => {
    assert.equal(config.next, null);
    assert.equal(config.last, null);
    const c = config.current;
    assert.equal(c.activationTime, 0);
    assert.equal(c.chainId, hex(CHAIN_ID));
    assert.equal(c.blobSchedule, null, 'the chain refuses blob txs');
    assert.deepEqual(c.systemContracts, {}, 'no system contract is deployed or called');
    assert.equal(Object.keys(c.precompiles).length, 17);
    assert.equal(c.precompiles.BLS12_PAIRING_CHECK, '0x000000000000000000000000000000000000000f');
    assert.equal(c.precompiles.P256VERIFY, undefined);
  });

  await t.test('forkId is the CRC32 of the hash of block 0', async () => {
    const genesis = await result(url, 'eth_getBlockByNumber', ['0x0', false]);
    const crc = crc32(Buffer.from(genesis.hash.slice(2), 'hex'));
    assert.equal(config.current.forkId, '0x' + crc.toString(16).padStart(8, '0'));
    assert.match(config.current.forkId, /^0x[0-9a-f]{8}$/);
  });

  await t.test('takes no parameters', async () => {
    assert.equal((await error(url, 'eth_config', [1])).code, -32602);
  });

  await t.test(
    "the shape of geth's answer in the execution-apis fixture",
    { skip: !existsSync(FIXTURE) },
    () => {
      const answer = readFileSync(FIXTURE, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('<< '))
        .map((l) => JSON.parse(l.slice(3)))[0];
      const geth = answer.result.current;
      assert.deepEqual(Object.keys(config), Object.keys(answer.result));
      assert.deepEqual(Object.keys(config.current), Object.keys(geth));
      for (const k of Object.keys(geth)) {
        if (geth[k] !== null && config.current[k] !== null)
          assert.equal(typeof config.current[k], typeof geth[k], k);
      }
      // geth's test chain runs Osaka, which adds P256VERIFY to Prague's precompiles
      const { P256VERIFY, ...prague } = geth.precompiles;
      assert.ok(P256VERIFY);
      assert.deepEqual(config.current.precompiles, prague);
      assert.deepEqual(Object.keys(config.current.precompiles), Object.keys(prague));
    },
  );
});
