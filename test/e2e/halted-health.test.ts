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

/** The double-sign guard's refusal of height `h` with the state file saying 248 was signed. */
const refusal = (h: number) =>
  new RegExp(`refusing to sign height ${h} round 0 step 3: already signed height 248 round 0 step 3`);

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

function initHome(t: Parameters<typeof tempHome>[0]): string {
  const home = tempHome(t);
  const init = runChaind(['init', 'n', '--chain-id', 'n-1', '--home', home, '--engine', 'embedded']);
  assert.equal(init.code, 0, init.stderr);
  return home;
}

/** The double-sign guard's state as a later chain left it: height 248 signed. */
function signedAhead(home: string): void {
  writeFileSync(
    join(home, 'data', 'priv_validator_state.json'),
    JSON.stringify({ height: '248', round: 0, step: 3 }),
  );
}

/** `chaind start` with JSON logs and 50 ms blocks, and the URLs its listeners logged. */
async function start(t: Parameters<typeof tempHome>[0], home: string) {
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
  const http = (a: string) => a.replace(/^tcp:/, 'http:');
  return {
    node,
    rpc: http(await address('consensus RPC listening')),
    evm: await address('JSON-RPC server listening'),
    rest: http(await address('REST API listening')),
    metrics: `http://${await address('metrics listening')}/metrics`,
  };
}

/** Polls /status until the node reports itself halted; returns its sync_info. */
async function haltedSyncInfo(rpc: string): Promise<any> {
  const status = await until(
    () => getJson(`${rpc}/status`),
    (s) => s.body.result.sync_info.halted === true,
    '/status halted',
  );
  return status.body.result.sync_info;
}

test('a validator whose signing state is ahead of its chain is reported halted by every health signal; /commit says why', async (t) => {
  const home = initHome(t);
  // A chain with blocks: run it to height 2 and stop it, then give it a signing state from later on.
  const first = await start(t, home);
  await first.node.waitForLine((l) => l.includes('"committed block"') && /"height":2\b/.test(l));
  assert.equal((await first.node.stop('SIGTERM')).code, 0);
  signedAhead(home);

  const { node, rpc, evm, rest, metrics } = await start(t, home);
  // /status: catching_up is what CometBFT clients check; halted and halt_reason say why.
  const sync = await haltedSyncInfo(rpc);
  const height = Number(sync.latest_block_height);
  assert.ok(height >= 2, `height ${height}`);
  const REFUSAL = refusal(height);
  assert.equal(sync.catching_up, true);
  assert.match(sync.halt_reason, REFUSAL);

  // /lag_status: 503 (GET and a single POST) with the reason, for load balancers and readiness probes.
  const lag = await getJson(`${rpc}/lag_status`);
  assert.equal(lag.status, 503);
  assert.equal(lag.body.error.message, 'Node is halted');
  assert.match(
    lag.body.error.data,
    new RegExp(`^current_height ${height}, max_peer_height ${height}: the node cannot make progress: `),
  );
  assert.match(lag.body.error.data, REFUSAL);
  const lagPost = await postJson(rpc, { jsonrpc: '2.0', id: 1, method: 'lag_status', params: {} });
  assert.equal(lagPost.status, 503);
  assert.equal(lagPost.body.error.message, 'Node is halted');

  // /commit of the latest block, which the validator will never sign, says why.
  const commit = await getJson(`${rpc}/commit?height=${height}`);
  assert.equal(commit.status, 500);
  assert.match(
    commit.body.error.data,
    new RegExp(`^the commit of block ${height} is not available: the node is halted and will not sign it: `),
  );
  assert.match(commit.body.error.data, REFUSAL);
  // an earlier block's commit is in its successor, as always
  assert.equal((await getJson(`${rpc}/commit?height=${height - 1}`)).body.result.canonical, true);

  // eth_syncing: an object (geth clients read any object as "not ready"), never false.
  const syncing = await postJson(evm, { jsonrpc: '2.0', id: 1, method: 'eth_syncing', params: [] });
  const progress = syncing.body.result;
  const hex = `0x${height.toString(16)}`;
  assert.deepEqual(
    { ...progress, haltReason: undefined },
    { startingBlock: hex, currentBlock: hex, highestBlock: hex, halted: true, haltReason: undefined },
  );
  assert.match(progress.haltReason, REFUSAL);

  // The Cosmos REST syncing route agrees with catching_up.
  const restSync = await getJson(`${rest}/cosmos/base/tendermint/v1beta1/syncing`);
  assert.deepEqual([restSync.status, restSync.body], [200, { syncing: true }]);

  // The alerting metric: 0 while the node is not at the network's height.
  const text = await (await fetch(metrics)).text();
  assert.match(text, /^tendermint_consensus_height_status\{chain_id="n-1"\} 0$/m);

  // The chain did not move while all this was read.
  assert.equal((await getJson(`${rpc}/status`)).body.result.sync_info.latest_block_height, String(height));
  assert.equal((await node.stop('SIGTERM')).code, 0);
});

test('a fresh validator refusing to sign block 1 commits no block; the failure is logged once, the halt once', async (t) => {
  const home = initHome(t);
  signedAhead(home);
  const started = Date.now();
  const { node, rpc, evm } = await start(t, home);
  const sync = await haltedSyncInfo(rpc);
  assert.equal(sync.catching_up, true);
  assert.match(sync.halt_reason, refusal(1));
  // Block 1 is refused before it is built: no block is served whose commit will never come.
  assert.equal(sync.latest_block_height, '0');
  const block1 = await getJson(`${rpc}/block?height=1`);
  assert.equal(block1.status, 500);
  const bn = await postJson(evm, { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] });
  assert.equal(bn.body.result, '0x0');

  // The reason counts the retries: wait until there have been many, then count the log lines.
  await until(
    async () =>
      Number(
        /failed (\d+) times/.exec((await getJson(`${rpc}/status`)).body.result.sync_info.halt_reason)?.[1],
      ),
    (n) => n >= 20,
    'twenty failed attempts',
  );
  // the halt is logged at the first failure after the stall bound, which a loaded machine may reach
  // only after the twentieth
  await node.waitForLine((l) => l.includes('block production halted'));
  const elapsedMinutes = Math.floor((Date.now() - started) / 60_000);
  assert.equal((await node.stop('SIGTERM')).code, 0);
  const records = node.lines.map((l) => JSON.parse(l));
  const failures = records.filter((r) => r.msg === 'block production failed');
  // once, and again at most once a minute while the same error repeats
  assert.ok(
    failures.length >= 1 && failures.length <= 1 + elapsedMinutes,
    `${failures.length} failure lines`,
  );
  assert.equal(failures[0].level, 'error');
  assert.match(failures[0].err, refusal(1));
  const halts = records.filter((r) => r.msg === 'block production halted: the chain does not advance');
  assert.equal(halts.length, 1);
  assert.equal(halts[0].level, 'error');
  assert.match(halts[0].reason, refusal(1));
});
