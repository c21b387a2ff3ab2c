/**
 * Slashing's queries against a running node: the REST gateway's shapes and errors, and the same
 * answers through abci_query as CosmJS's slashing extension reads them. The genesis validator has
 * a signing info from height 0 (its genesis bonding).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { QueryClient, setupSlashingExtension } from '@cosmjs/stargate';
import { Comet38Client } from '@cosmjs/tendermint-rpc';
import { toBech32 } from '../../../src/crypto/accounts.ts';
import { sha256 } from '../../../src/crypto/hash.ts';
import { until } from '../../helpers/node.ts';
import { get, startRestNode } from './helpers.ts';

test('slashing queries: params, signing infos, errors; REST and abci_query agree', async (t) => {
  const n = await startRestNode(t);
  const key = Buffer.from(n.genesisValidators[0].consensus_pubkey.key, 'base64');
  const valcons = toBech32('chainvalcons', sha256(key).subarray(0, 20));
  await until(() => n.node.modules.chain.latestHeight >= 2);

  const params = await get(n.url, '/cosmos/slashing/v1beta1/params');
  assert.equal(params.status, 200);
  assert.deepEqual(params.body, {
    params: {
      signed_blocks_window: '100',
      min_signed_per_window: '0.500000000000000000',
      downtime_jail_duration: '600s',
      slash_fraction_double_sign: '0.050000000000000000',
      slash_fraction_downtime: '0.010000000000000000',
    },
  });

  const one = await get(n.url, `/cosmos/slashing/v1beta1/signing_infos/${valcons}`, {
    'x-cosmos-block-height': '2',
  });
  assert.equal(one.status, 200);
  assert.deepEqual(one.body, {
    val_signing_info: {
      address: valcons,
      start_height: '0',
      index_offset: '2',
      jailed_until: '1970-01-01T00:00:00Z',
      tombstoned: false,
      missed_blocks_counter: '0',
    },
  });
  const all = await get(n.url, '/cosmos/slashing/v1beta1/signing_infos?pagination.limit=1', {
    'x-cosmos-block-height': '2',
  });
  assert.deepEqual(all.body, {
    info: [one.body.val_signing_info],
    pagination: { next_key: null, total: '1' },
  });

  const unknown = toBech32('chainvalcons', new Uint8Array(20).fill(7));
  const missing = await get(n.url, `/cosmos/slashing/v1beta1/signing_infos/${unknown}`);
  assert.equal(missing.status, 404);
  assert.match(missing.body.message, new RegExp(`SigningInfo not found for validator ${unknown}`));
  const bad = await get(n.url, '/cosmos/slashing/v1beta1/signing_infos/chain1notvalcons');
  assert.equal(bad.status, 400);
  assert.match(bad.body.message, /invalid address "chain1notvalcons"/);

  // abci_query, through CosmJS
  const rpcPort = n.node.modules.consensusRpc!.address.port;
  const comet = await Comet38Client.connect(`http://127.0.0.1:${rpcPort}`);
  t.after(() => comet.disconnect());
  const q = QueryClient.withExtensions(comet, setupSlashingExtension);
  const p = await q.slashing.params();
  assert.equal(p.params.signedBlocksWindow, 100n);
  assert.equal(Buffer.from(p.params.minSignedPerWindow).toString(), '500000000000000000');
  assert.equal(p.params.downtimeJailDuration.seconds, 600n);
  const info = await q.slashing.signingInfo(valcons);
  assert.equal(info.valSigningInfo.address, valcons);
  assert.equal(info.valSigningInfo.startHeight, 0n);
  assert.equal((await q.slashing.signingInfos()).info.length, 1);
});
