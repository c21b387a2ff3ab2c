/**
 * State that disagrees with the stored blocks, as an operator meets it: a State Commit from another
 * copy of the chain, or a replay that executes differently from the run that stored the blocks. Every
 * start refuses with the same `wrong Block.Header.AppHash` line and leaves the data directory byte for
 * byte as it was; `chaind rollback` refuses a height whose state still disagrees and rewinds to one
 * that agrees, from where the node produces again.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { JsonRpcProvider, Wallet } from 'ethers';
import { openBlockStore } from '../../src/storage/blocks/store.ts';
import { ChaindProcess, FREE_PORT_ENV, runChaind, tempHome } from '../helpers/chaind.ts';

const DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
// snapshots every 4 versions, all kept: rollback can reach back to any of them
const ENV = {
  CHAIND_STATE_COMMIT_SC_SNAPSHOT_INTERVAL: '4',
  CHAIND_STATE_COMMIT_SC_KEEP_RECENT: '1000',
};
const FLAGS = ['--log_format', 'json', '--consensus.timeout-commit', '20ms'];
/** How long a node may take to start or to commit a few blocks: generous, for a machine loaded by other work. */
const DEADLINE = 120_000;

const records = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));

const isCommitted = (min: number) => (l: string) =>
  l.includes('"committed block"') && JSON.parse(l).height >= min;

/**
 * Digest of every file under `dir` but the lock files: chaind's `LOCK` and lmdb's `lock.mdb` (its
 * reader table, rewritten by every open). A failed start must not change any other byte.
 */
function digest(dir: string): string {
  const h = createHash('sha256');
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name !== 'LOCK' && e.name !== 'lock.mdb')
        h.update(relative(dir, p)).update('\0').update(readFileSync(p));
    }
  };
  walk(dir);
  return h.digest('hex');
}

async function blockInfo(home: string) {
  const blocks = await openBlockStore({ dataDir: join(home, 'data') });
  try {
    const latest = blocks.latestHeight() ?? 0;
    const appHashOf = (h: number) =>
      Buffer.from(blocks.blockByHeight(h)!.header.appHash).toString('hex').toUpperCase();
    const hashOf = (h: number) => Buffer.from(blocks.blockByHeight(h)!.hash).toString('hex').toUpperCase();
    const heights = Array.from({ length: latest }, (_, i) => i + 1);
    return {
      latest,
      appHash: new Map(heights.map((h) => [h, appHashOf(h)])),
      hash: new Map(heights.map((h) => [h, hashOf(h)])),
    };
  } finally {
    await blocks.close();
  }
}

/**
 * Starts the node twice; each start must fail with one mismatch line, the same both times, and leave
 * the data directory as it was. Returns the logged lines and the CLI's error lines.
 */
function startTwice(home: string, before: string) {
  const seen: { level: string; msg: string; block_id: string; height: number }[] = [];
  const errors: string[] = [];
  for (let attempt = 0; attempt < 2; attempt++) {
    const r = runChaind(['start', '--home', home, ...FLAGS], { ...FREE_PORT_ENV, ...ENV });
    assert.equal(r.code, 1, `attempt ${attempt}: expected exit 1; stderr: ${r.stderr}`);
    const logged = records(r.stdout).filter((x) => x.msg.startsWith('wrong Block.Header.AppHash'));
    assert.equal(logged.length, 1, `attempt ${attempt}: one mismatch line; stdout: ${r.stdout}`);
    const { level, msg, block_id, height } = logged[0];
    seen.push({ level, msg, block_id, height });
    const error = r.stderr.trim().split('\n').at(-1)!;
    assert.ok(error.startsWith(`error: ${msg} (height ${height}, block_id ${block_id})`), error);
    errors.push(error);
    assert.equal(digest(join(home, 'data')), before, `attempt ${attempt} changed the data directory`);
  }
  assert.deepEqual(seen[1], seen[0], 'the second attempt reports what the first did');
  assert.equal(errors[1], errors[0]);
  return [seen[0], errors[0]] as const;
}

test('a State Commit from a diverged copy: every start refuses alike and changes nothing; rollback to where the copies agree', async (t) => {
  const home = tempHome(t);
  const fork = tempHome(t);
  // 1. a chain, stopped; a copy of it that diverges by one transfer
  let node = new ChaindProcess(['dev', '--home', home, '--state-commitment', 'iavl', ...FLAGS], ENV);
  t.after(() => node.stop('SIGKILL'));
  await node.waitForLine(isCommitted(6), DEADLINE);
  assert.equal((await node.stop('SIGTERM')).code, 0);
  cpSync(home, fork, { recursive: true });

  const other = new ChaindProcess(['start', '--home', fork, ...FLAGS], ENV);
  t.after(() => other.stop('SIGKILL'));
  const url = JSON.parse(
    await other.waitForLine((l) => l.includes('JSON-RPC server listening'), DEADLINE),
  ).address;
  const provider = new JsonRpcProvider(url, undefined, { pollingInterval: 50, cacheTimeout: -1 });
  t.after(() => provider.destroy());
  const sent = await new Wallet(DEV_KEY, provider).sendTransaction({
    to: Wallet.createRandom().address,
    value: 1n,
    gasLimit: 21000,
  });
  // The block that includes it is the fork's first block with a tx (nobody else sends to the fork):
  // the fork's state differs after it. Not `sent.wait()`: ethers polls the receipt once per new block
  // without awaiting the polls, so one still queued when the provider is destroyed rejects with
  // "provider destroyed; cancelled request" in no one's hands, failing the test (seen under load).
  const included = JSON.parse(
    await other.waitForLine((l) => l.includes('"committed block"') && JSON.parse(l).txs > 0, DEADLINE),
  );
  const diverged: number = included.height;
  await other.waitForLine(isCommitted(diverged + 2), DEADLINE);
  // the tx is the one in that block, and it succeeded (what `wait()` checked); every request awaited
  const receipt = await provider.getTransactionReceipt(sent.hash);
  assert.deepEqual([receipt?.blockNumber, receipt?.status], [diverged, 1]);
  provider.destroy();
  assert.equal((await other.stop('SIGTERM')).code, 0);
  const forkHeight = (await blockInfo(fork)).latest;
  const forkAppHash = records(other.lines.join('\n')).find(
    (r) => r.msg === 'committed block' && r.height === forkHeight,
  )?.app_hash;
  assert.ok(forkAppHash, `the fork logged its block ${forkHeight}`);

  // 2. the original chain goes on past the fork's height; then it gets the fork's State Commit
  node = new ChaindProcess(['start', '--home', home, ...FLAGS], ENV);
  t.after(() => node.stop('SIGKILL'));
  await node.waitForLine(isCommitted(forkHeight + 4), DEADLINE);
  assert.equal((await node.stop('SIGTERM')).code, 0);
  const chain = await blockInfo(home);
  rmSync(join(home, 'data', 'state_commit'), { recursive: true });
  cpSync(join(fork, 'data', 'state_commit'), join(home, 'data', 'state_commit'), { recursive: true });
  const before = digest(join(home, 'data'));

  // 3. every start refuses at the same height with the same hashes, and changes nothing
  const mismatchHeight = forkHeight + 1; // the fork's State Commit holds the state block forkHeight + 1 commits to
  const expected = chain.appHash.get(mismatchHeight)!;
  assert.notEqual(expected, forkAppHash, 'the fork disagrees with the chain');
  const [refusal] = startTwice(home, before);
  assert.deepEqual(refusal, {
    level: 'error',
    msg: `wrong Block.Header.AppHash. Expected ${expected}, got ${forkAppHash}`,
    block_id: chain.hash.get(mismatchHeight),
    height: mismatchHeight,
  });

  // 4. rollback refuses a height whose state still disagrees (nothing changes) ...
  const refused = runChaind(['rollback', '--home', home, '-n', String(chain.latest - diverged)], ENV);
  assert.equal(refused.code, 1, refused.stdout);
  assert.match(
    refused.stderr,
    new RegExp(`error: cannot roll back to height ${diverged}: .*app hash .* block ${diverged + 1}`),
  );
  assert.equal(digest(join(home, 'data')), before, 'a refused rollback changed the data directory');

  // ... and rewinds to the last height both chains share
  const target = diverged - 1;
  const rolled = runChaind(['rollback', '--home', home, '-n', String(chain.latest - target)], ENV);
  assert.equal(rolled.code, 0, rolled.stderr);
  assert.deepEqual(JSON.parse(rolled.stdout), { height: target, app_hash: chain.appHash.get(target + 1) });

  node = new ChaindProcess(['start', '--home', home, ...FLAGS], ENV);
  t.after(() => node.stop('SIGKILL'));
  const opened = JSON.parse(await node.waitForLine((l) => l.includes('"chain opened"'), DEADLINE));
  assert.deepEqual([opened.height, opened.app_hash], [target, chain.appHash.get(target + 1)]);
  await node.waitForLine(isCommitted(target + 2), DEADLINE);
  assert.equal((await node.stop('SIGTERM')).code, 0);
});

test('a replay that executes differently: refused before anything is written; the rollback the error names gets the node producing again', async (t) => {
  const home = tempHome(t);
  const early = tempHome(t);
  let node = new ChaindProcess(['dev', '--home', home, '--state-commitment', 'iavl', ...FLAGS], ENV);
  t.after(() => node.stop('SIGKILL'));
  await node.waitForLine(isCommitted(4), DEADLINE);
  assert.equal((await node.stop('SIGTERM')).code, 0);
  const kept = (await blockInfo(home)).latest; // the State Commit kept aside holds the state after it
  cpSync(join(home, 'data', 'state_commit'), early, { recursive: true });

  node = new ChaindProcess(['start', '--home', home, ...FLAGS], ENV);
  t.after(() => node.stop('SIGKILL'));
  await node.waitForLine(isCommitted(kept + 4), DEADLINE);
  assert.equal((await node.stop('SIGTERM')).code, 0);
  const chain = await blockInfo(home);

  // The State Commit goes back to the one kept aside (as after a crash that lost its latest blocks),
  // and the genesis fee floor changes, as a build that executes differently would: replaying block
  // `kept + 1` computes another state than the one block `kept + 2` committed to.
  rmSync(join(home, 'data', 'state_commit'), { recursive: true });
  cpSync(early, join(home, 'data', 'state_commit'), { recursive: true });
  const genesisPath = join(home, 'config', 'genesis.json');
  const genesis = JSON.parse(readFileSync(genesisPath, 'utf8'));
  genesis.app_state.evm.params.base_fee.min_base_fee = '2000000000';
  writeFileSync(genesisPath, JSON.stringify(genesis, null, 2));
  const before = digest(join(home, 'data'));

  const [refusal, error] = startTwice(home, before);
  const mismatchHeight = kept + 2;
  const expected = chain.appHash.get(mismatchHeight)!;
  assert.equal(refusal.height, mismatchHeight);
  assert.equal(refusal.block_id, chain.hash.get(mismatchHeight));
  assert.match(
    refusal.msg,
    new RegExp(`^wrong Block.Header.AppHash. Expected ${expected}, got [0-9A-F]{64}$`),
  );
  assert.ok(!refusal.msg.endsWith(expected), 'a different app hash was computed');

  // the error names the rollback that discards the block replayed differently
  const n = /`chaind rollback -n (\d+)`/.exec(error)?.[1];
  assert.ok(n, error);
  const rolled = runChaind(['rollback', '--home', home, '-n', n], ENV);
  assert.equal(rolled.code, 0, rolled.stderr);
  assert.deepEqual(JSON.parse(rolled.stdout), { height: kept, app_hash: chain.appHash.get(kept + 1) });

  node = new ChaindProcess(['start', '--home', home, ...FLAGS], ENV);
  t.after(() => node.stop('SIGKILL'));
  const opened = JSON.parse(await node.waitForLine((l) => l.includes('"chain opened"'), DEADLINE));
  assert.deepEqual([opened.height, opened.app_hash], [kept, chain.appHash.get(kept + 1)]);
  await node.waitForLine(isCommitted(kept + 3), DEADLINE);
  assert.equal((await node.stop('SIGTERM')).code, 0);
});
