/** `chaind dev` as an operator runs it: the REST API is part of the node and closes with it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChaindProcess, tempHome } from '../../helpers/chaind.ts';

test('chaind dev serves REST on the logged address; the port closes on SIGTERM', async (t) => {
  const home = tempHome(t);
  // The helper gives every spawned node CHAIND_API_ADDRESS=tcp://127.0.0.1:0: a free port, logged.
  const node = new ChaindProcess(['dev', '--home', home, '--log_format', 'json']);
  t.after(() => node.stop('SIGKILL'));
  const line = JSON.parse(await node.waitForLine((l) => l.includes('REST API listening')));
  assert.equal(line.module, 'rpc');
  assert.equal(line.level, 'info');
  assert.match(line.address, /^tcp:\/\/127\.0\.0\.1:\d+$/);
  const url = line.address.replace('tcp://', 'http://');

  const res = await fetch(`${url}/cosmos/staking/v1beta1/validators?pagination.limit=1`);
  assert.equal(res.status, 200);
  const body: any = await res.json();
  assert.equal(body.validators.length, 1);
  assert.equal(typeof body.validators[0].description.moniker, 'string');
  assert.equal(body.validators[0].status, 'BOND_STATUS_BONDED');

  assert.equal((await node.stop('SIGTERM')).code, 0);
  await assert.rejects(fetch(url), 'the port is closed after shutdown');
});
