/**
 * A node whose validator key is not the genesis validator's produces no blocks and, without P2P, has
 * nothing to follow: it can never make progress, and its health signals say so from the start.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { generateEd25519, privValidatorKeyJson } from '../../../src/crypto/node-keys.ts';
import { type LogRecord, memoryLogger } from '../../../src/util/logger.ts';
import { makeHome, startNode } from '../../helpers/node.ts';
import { get } from './helpers.ts';

test('a node that is not the genesis validator is halted on /status and /lag_status, and logs why', async (t) => {
  const home = makeHome(t);
  writeFileSync(
    join(home, 'config', 'priv_validator_key.json'),
    JSON.stringify(privValidatorKeyJson(generateEd25519())),
  );
  const logs: LogRecord[] = [];
  const node = await startNode(home, {}, memoryLogger(logs));
  t.after(() => node.stop());
  const rpc = `http://127.0.0.1:${node.modules.consensusRpc!.address.port}`;

  const sync = (await get(rpc, '/status')).body.result.sync_info;
  assert.equal(sync.latest_block_height, '0');
  assert.equal(sync.catching_up, true);
  assert.equal(sync.halted, true);
  assert.match(sync.halt_reason, /is not the genesis validator and has no peers: it produces no blocks/);
  const lag = await get(rpc, '/lag_status');
  assert.equal(lag.status, 503);
  assert.match(lag.body.error.data, /^current_height 0, max_peer_height 0: the node cannot make progress: /);
  const line = logs.find((r) => r.msg === 'this node is not the genesis validator: not producing blocks');
  assert.equal(line?.level, 'error');
});
