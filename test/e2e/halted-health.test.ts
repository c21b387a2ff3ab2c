/**
 * A node that cannot make progress says so on every health signal. The validator's signing state is
 * ahead of the chain (a home whose data/priv_validator_state.json belongs to a later chain), so the
 * producer's double-sign guard refuses every signature and the chain never moves: /status,
 * /lag_status, /commit, eth_syncing, the REST syncing route and the height-status metric are read over
 * HTTP from the spawned CLI, and the log says it once instead of at every retry.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ChaindProcess, runChaind, tempHome } from '../helpers/chaind.ts';

const REFUSAL = /refusing to sign height 1 round 0 step 3: already signed height 248 round 0 step 3/;

async function getJson(url: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.json() };
}

async function postJson(url: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** Polls `read` until `ok` holds for its value, within a bounded deadline; returns that value. */
async function until<T>(
  read: () => Promise<T>,
  ok: (v: T) => boolean,
  what: string,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not reached in time; last: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('a validator refusing to sign is reported halted by /status, /lag_status, /commit, eth_syncing, REST syncing and the metric', async (t) => {
  const home = tempHome(t);
  const init = runChaind(['init', 'n', '--chain-id', 'n-1', '--home', home]);
  assert.equal(init.code, 0, init.stderr);
  writeFileSync(
    join(home, 'data', 'priv_validator_state.json'),
    JSON.stringify({ height: '248', round: 0, step: 3 }),
  );
  const started = Date.now();
  const node = new ChaindProcess([
    'start',
    '--home',
    home,
    '--log_format',
    'json',
    '--consensus.timeout-commit',
    '50ms',
  ]);
  t.after(() => node.stop('SIGKILL'));
  const address = async (msg: string) =>
    JSON.parse(await node.waitForLine((l) => l.includes(`"msg":"${msg}"`))).address as string;
  const rpc = (await address('consensus RPC listening')).replace(/^tcp:/, 'http:');
  const evm = await address('JSON-RPC server listening');
  const rest = (await address('REST API listening')).replace(/^tcp:/, 'http:');
  const metrics = `http://${await address('metrics listening')}/metrics`;

  // /status: catching_up is what CometBFT clients check; halted and halt_reason say why.
  const status = await until(
    () => getJson(`${rpc}/status`),
    (s) => s.body.result.sync_info.halted === true,
    '/status halted',
  );
  const sync = status.body.result.sync_info;
  assert.equal(sync.catching_up, true);
  assert.equal(sync.latest_block_height, '1');
  assert.match(sync.halt_reason, REFUSAL);

  // /lag_status: 503 (GET and a single POST) with the reason, for load balancers and readiness probes.
  const lag = await getJson(`${rpc}/lag_status`);
  assert.equal(lag.status, 503);
  assert.equal(lag.body.error.message, 'Node is halted');
  assert.match(lag.body.error.data, /^current_height 1, max_peer_height 1: the node cannot make progress: /);
  assert.match(lag.body.error.data, REFUSAL);
  const lagPost = await postJson(rpc, { jsonrpc: '2.0', id: 1, method: 'lag_status', params: {} });
  assert.equal(lagPost.status, 503);
  assert.equal(lagPost.body.error.message, 'Node is halted');

  // /commit of the block the validator will never sign says why, not "not available yet".
  const commit = await getJson(`${rpc}/commit?height=1`);
  assert.equal(commit.status, 500);
  assert.match(commit.body.error.data, /^the commit of block 1 is not available: the node is halted/);
  assert.match(commit.body.error.data, REFUSAL);

  // eth_syncing: an object (geth clients read any object as "not ready"), never false.
  const syncing = await postJson(evm, { jsonrpc: '2.0', id: 1, method: 'eth_syncing', params: [] });
  const progress = syncing.body.result;
  assert.deepEqual(
    { ...progress, haltReason: undefined },
    { startingBlock: '0x1', currentBlock: '0x1', highestBlock: '0x1', halted: true, haltReason: undefined },
  );
  assert.match(progress.haltReason, REFUSAL);

  // The Cosmos REST syncing route agrees with catching_up.
  const restSync = await getJson(`${rest}/cosmos/base/tendermint/v1beta1/syncing`);
  assert.deepEqual([restSync.status, restSync.body], [200, { syncing: true }]);

  // The alerting metric: 0 while the node is not at the network's height.
  const text = await (await fetch(metrics)).text();
  assert.match(text, /^tendermint_consensus_height_status\{chain_id="n-1"\} 0$/m);

  // The log: the failure once, the halt once, not a line per retry. The reason counts the retries, so
  // wait until there have been many.
  await until(
    async () =>
      Number(
        /failed (\d+) times/.exec((await getJson(`${rpc}/status`)).body.result.sync_info.halt_reason)?.[1],
      ),
    (n) => n >= 20,
    'twenty failed attempts',
  );
  const elapsedMinutes = Math.floor((Date.now() - started) / 60_000);
  const records = node.lines.map((l) => JSON.parse(l));
  const failures = records.filter((r) => r.msg === 'block production failed');
  assert.ok(
    failures.length >= 1 && failures.length <= 1 + elapsedMinutes,
    `${failures.length} failure lines`,
  );
  assert.equal(failures[0].level, 'error');
  assert.match(failures[0].err, REFUSAL);
  const halts = records.filter((r) => r.msg === 'block production halted: the chain does not advance');
  assert.equal(halts.length, 1);
  assert.equal(halts[0].level, 'error');
  assert.match(halts[0].reason, REFUSAL);

  assert.equal((await node.stop('SIGTERM')).code, 0);
});
