/**
 * REST `cosmos.base.tendermint.v1beta1` endpoints (node info, syncing, blocks) and the router's
 * answers to unknown routes and wrong methods.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { toBech32 } from '../../../src/crypto/accounts.ts';
import { ed25519FromJson, nodeIdOf } from '../../../src/crypto/node-keys.ts';
import { until } from '../../helpers/node.ts';
import { get, post, startRestNode } from './helpers.ts';

const BASE = '/cosmos/base/tendermint/v1beta1';
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

test('REST tendermint service and routing', async (t) => {
  const n = await startRestNode(t);
  await until(() => n.node.modules.chain.latestHeight >= 3);

  await t.test('node_info', async () => {
    const r = await get(n.url, `${BASE}/node_info`);
    assert.equal(r.status, 200);
    const key = ed25519FromJson(
      JSON.parse(readFileSync(join(n.home, 'config', 'node_key.json'), 'utf8')),
      'node_key.json',
    );
    // The consensus RPC's bound address when the node runs it, else the configured default.
    const rpcAddress = n.node.modules.consensusRpc?.url ?? 'tcp://127.0.0.1:26657';
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
    assert.deepEqual(r.body, {
      default_node_info: {
        protocol_version: { p2p: '8', block: '11', app: '0' },
        default_node_id: nodeIdOf(key.publicKey),
        listen_addr: 'none',
        network: 'it-1',
        version: '0.38.17',
        channels: 'QCAhIiMwOGBhAA==',
        moniker: 'it',
        other: { tx_index: 'on', rpc_address: rpcAddress },
      },
      application_version: {
        name: 'chaind',
        app_name: 'chaind',
        version: pkg.version,
        git_commit: '',
        build_tags: '',
        go_version: `node ${process.version}`,
        build_deps: [],
        cosmos_sdk_version: '',
      },
    });
  });

  await t.test('syncing', async () => {
    const r = await get(n.url, `${BASE}/syncing`);
    assert.deepEqual([r.status, r.body], [200, { syncing: false }]);
  });

  await t.test('blocks/{height}: the stored block in gateway form, chained by block id', async () => {
    const two = await get(n.url, `${BASE}/blocks/2`);
    const three = await get(n.url, `${BASE}/blocks/3`);
    assert.equal(two.status, 200);
    const stored = n.node.modules.blocks.blockByHeight(2)!;
    const h = two.body.block.header;
    assert.deepEqual(Object.keys(two.body), ['block_id', 'block', 'sdk_block']);
    assert.deepEqual(Object.keys(two.body.block), ['header', 'data', 'evidence', 'last_commit']);
    assert.deepEqual(h.version, { block: '11', app: '0' });
    assert.equal(h.chain_id, 'it-1');
    assert.equal(h.height, '2');
    assert.match(h.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3}|\.\d{6}|\.\d{9})?Z$/);
    assert.equal(h.app_hash, b64(stored.header.appHash));
    assert.equal(h.data_hash, b64(stored.header.dataHash));
    assert.equal(h.proposer_address, b64(stored.header.proposerAddress));
    assert.equal(
      two.body.sdk_block.header.proposer_address,
      toBech32('chainvalcons', stored.header.proposerAddress),
    );
    assert.deepEqual(two.body.block.data, { txs: [] });
    assert.deepEqual(two.body.block.evidence, { evidence: [] });
    assert.deepEqual(three.body.block.header.last_block_id, two.body.block_id, 'block 3 points at block 2');
    const sig = two.body.block.last_commit.signatures[0];
    assert.deepEqual(Object.keys(sig), ['block_id_flag', 'validator_address', 'timestamp', 'signature']);
    assert.equal(sig.block_id_flag, 'BLOCK_ID_FLAG_COMMIT');
    assert.equal(two.body.block.last_commit.height, '1');
    assert.equal(two.body.block.last_commit.round, 0);
    assert.equal(typeof two.body.block_id.part_set_header.total, 'number');
  });

  await t.test('blocks/latest is the latest committed block', async () => {
    const before = n.node.modules.chain.latestHeight;
    const r = await get(n.url, `${BASE}/blocks/latest`);
    assert.equal(r.status, 200);
    const height = Number(r.body.block.header.height);
    assert.ok(height >= before && height <= n.node.modules.chain.latestHeight, `${height}`);
    const same = await get(n.url, `${BASE}/blocks/${height}`);
    assert.deepEqual(same.body, r.body);
  });

  await t.test('blocks/{height}: future, zero and malformed heights are 400 code 3', async () => {
    const future = await get(n.url, `${BASE}/blocks/99999999`);
    assert.equal(future.status, 400);
    assert.equal(future.body.code, 3);
    assert.match(
      future.body.message,
      /^requested block height is bigger then the chain length: height 99999999, latest \d+$/,
    );
    const zero = await get(n.url, `${BASE}/blocks/0`);
    assert.equal(zero.status, 400);
    assert.match(zero.body.message, /^block at height 0 is not available: the node keeps heights 1 to \d+$/);
    const bad = await get(n.url, `${BASE}/blocks/two`);
    assert.deepEqual(
      [bad.status, bad.body],
      [400, { code: 3, message: 'height: "two" is not a non-negative integer', details: [] }],
    );
  });

  await t.test('unknown routes are 404 code 5; a known path with another method 405 code 12', async () => {
    for (const path of ['/', '/cosmos/bank/v1beta1/nope', '/cosmos/staking/v1beta1/validators/a/b']) {
      const r = await get(n.url, path);
      assert.deepEqual([r.status, r.body], [404, { code: 5, message: 'Not Found', details: [] }], path);
    }
    const wrong = await post(n.url, `${BASE}/node_info`, '{}');
    assert.deepEqual(
      [wrong.status, wrong.body],
      [405, { code: 12, message: 'Method Not Allowed', details: [] }],
    );
    const getSimulate = await get(n.url, '/cosmos/tx/v1beta1/simulate');
    assert.equal(getSimulate.status, 405);
    // GET on the broadcast path is the tx search, which needs a query
    const getTxs = await get(n.url, '/cosmos/tx/v1beta1/txs');
    assert.deepEqual([getTxs.status, getTxs.body.message], [400, 'query cannot be empty']);
  });
});
