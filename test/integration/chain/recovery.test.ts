/**
 * Recovery after a crash inside a block's writes. The block store and the State Store take a block at
 * the same time, so a crash can leave the State Store one block ahead of the block store; the node
 * rolls it back and makes that block again. Real lmdb stores, an in-process node.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { bankKeys } from '../../../src/app/store-keys.ts';
import { consensusInfoOfBlock } from '../../../src/chain/consensus-info.ts';
import { stateVersion } from '../../../src/chain/state-at.ts';
import { parseGenesis } from '../../../src/app/genesis.ts';
import { loadConfig } from '../../../src/config/load.ts';
import { Lifecycle } from '../../../src/node/lifecycle.ts';
import { openStores } from '../../../src/node/stores.ts';
import { BASE_DENOM } from '../../../src/primitives/identity.ts';
import { type LogRecord, memoryLogger, silentLogger } from '../../../src/util/logger.ts';
import { makeHome, startNode, until } from '../../helpers/node.ts';

const STRANGER = Uint8Array.from({ length: 20 }, (_, i) => 0xa0 + i);

async function withStores<T>(home: string, fn: (s: Awaited<ReturnType<typeof openStores>>) => Promise<T>) {
  const { config } = loadConfig({ home, env: {}, flags: { 'state-store.ss-async-write-buffer': '0' } });
  const genesis = parseGenesis(readFileSync(join(home, 'config', 'genesis.json'), 'utf8'));
  const lc = new Lifecycle(silentLogger);
  try {
    return await fn(
      await openStores(lc, { dataDir: join(home, 'data'), config, genesis, logger: silentLogger }),
    );
  } finally {
    await lc.stop();
  }
}

const GARBAGE = { store: 'bank', key: bankKeys.balance(STRANGER, BASE_DENOM), value: Buffer.from('999') };

/**
 * Runs a node to a few blocks, then leaves its stores as a crash inside the next block's writes would
 * (`ahead` writes the next version into them), restarts it and checks that it made that block again.
 */
async function crashInsideBlock(
  t: { after(fn: () => unknown): void },
  ahead: (s: Awaited<ReturnType<typeof openStores>>, version: number) => Promise<void>,
): Promise<LogRecord[]> {
  const home = makeHome(t);
  let node = await startNode(home);
  await until(() => node.modules.chain.latestHeight >= 3);
  await node.stop();

  const stored = await withStores(home, async (s) => {
    const height = s.blocks.latestHeight()!;
    assert.equal(s.ss.latestVersion(), stateVersion(height));
    await ahead(s, stateVersion(height + 1));
    return height;
  });

  const records: LogRecord[] = [];
  node = await startNode(home, {}, memoryLogger(records));
  t.after(() => node.stop());
  await until(() => node.modules.chain.latestHeight >= stored + 2);
  await node.stop();

  await withStores(home, async ({ blocks, ss, sc }) => {
    assert.ok(blocks.latestHeight()! >= stored + 2);
    assert.equal(ss.latestVersion(), stateVersion(blocks.latestHeight()!));
    assert.equal(sc.version, stateVersion(blocks.latestHeight()!));
    assert.equal(
      await ss.get(GARBAGE.store, GARBAGE.key, stateVersion(stored + 1)),
      undefined,
      'the state the crash left is gone: block ' + (stored + 1) + ' was executed again',
    );
  });
  return records.map((r) => ({ ...r, fields: { ...r.fields, stored } }));
}

const warning = (records: LogRecord[], msg: string) => {
  const r = records.find((x) => x.msg === msg);
  assert.ok(r, `logged: ${msg}`);
  return r.fields;
};

test('a State Store one block ahead of the block store is rolled back, and the block is made again', async (t) => {
  const records = await crashInsideBlock(t, ({ ss }, version) => ss.applyChangeSet(version, [GARBAGE]));
  const w = warning(records, 'state store is one block ahead of the block store; rolling it back');
  assert.deepEqual([w.ss, w.blocks], [(w.stored as number) + 1, w.stored]);
});

test('State Commit and the State Store one block ahead of the block store are both rolled back', async (t) => {
  const records = await crashInsideBlock(t, async ({ ss, sc }, version) => {
    await ss.applyChangeSet(version, [GARBAGE]);
    sc.applyChangeSets(version, [
      { store: GARBAGE.store, pairs: [{ key: GARBAGE.key, value: GARBAGE.value }] },
    ]);
    await sc.commit();
  });
  const w = warning(records, 'state store is one block ahead of the block store; rolling it back');
  const c = warning(records, 'state commit is ahead of the block store; rolling it back');
  assert.deepEqual([w.ss, c.sc, c.blocks], [(w.stored as number) + 1, (w.stored as number) + 1, w.stored]);
});

/**
 * A dev chain's revert rolls back State Commit, then the State Store, then the block store: a crash
 * after either of the first two leaves stores below the block store, and the next start replays the
 * stored blocks back up (with the app-hash checks), to the chain as it was before the revert.
 */
for (const [what, alsoSS] of [
  ['State Commit', false],
  ['State Commit and the State Store', true],
] as const) {
  test(`a revert interrupted after ${what} went back: the next start replays the stored blocks`, async (t) => {
    const home = makeHome(t);
    let node = await startNode(home);
    await until(() => node.modules.chain.latestHeight >= 5);
    await node.stop();
    const genesis = parseGenesis(readFileSync(join(home, 'config', 'genesis.json'), 'utf8'));
    const { stored, hashes } = await withStores(home, async ({ sc, ss, blocks }) => {
      const stored = blocks.latestHeight()!;
      // the embedded engine's blocks keep its own vote for the parent with its power, which the
      // replay below hands the block hooks as the producer did
      assert.equal(blocks.blockByHeight(1)!.lastCommitPowers, undefined, 'block 1 has no votes');
      for (const h of [2, 3, 4, 5]) {
        const block = blocks.blockByHeight(h)!;
        assert.deepEqual(block.lastCommitPowers, [BigInt(genesis.validators[0].power)]);
        assert.equal(block.misbehavior, undefined);
        assert.deepEqual(consensusInfoOfBlock(block), {
          votes: [
            {
              address: block.header.proposerAddress,
              power: BigInt(genesis.validators[0].power),
              signed: true,
            },
          ],
          misbehavior: [],
        });
      }
      const hashes = [1, 2, 3, 4, 5].map((h) =>
        Buffer.from(blocks.blockByHeight(h)!.header.appHash).toString('hex'),
      );
      await sc.rollback(stateVersion(2));
      if (alsoSS) await ss.rollback(stateVersion(2));
      return { stored, hashes };
    });
    const records: LogRecord[] = [];
    node = await startNode(home, {}, memoryLogger(records));
    t.after(() => node.stop());
    assert.ok(records.filter((r) => r.msg === 'replayed block').length >= stored - 2);
    await until(() => node.modules.chain.latestHeight > stored);
    const { blocks } = node.modules;
    for (let h = 1; h <= 5; h++)
      assert.equal(Buffer.from(blocks.blockByHeight(h)!.header.appHash).toString('hex'), hashes[h - 1]);
    await node.stop();
    await withStores(home, async (s) => {
      assert.equal(s.sc.version, stateVersion(s.blocks.latestHeight()!));
      assert.equal(s.ss.latestVersion(), stateVersion(s.blocks.latestHeight()!));
    });
  });
}
