/**
 * A dev chain on a throwaway home (removed on exit) commits its blocks without fsyncs: nothing will
 * ever read that home after a crash, so durability would cost every block for nothing. A kept home
 * fsyncs as before. The fs sync calls are counted through node:fs's exports, patched before any
 * store module is loaded (lmdb's own syncs are native and not counted here).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';

const syncCalls = { count: 0 };
for (const name of ['fsync', 'fdatasync', 'fsyncSync', 'fdatasyncSync'] as const) {
  const original = fs[name] as (...args: unknown[]) => unknown;
  (fs as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
    syncCalls.count++;
    return original(...args);
  };
}
syncBuiltinESMExports();

const { ChainNode } = await import('../../../src/node/node.ts');
const { loadConfig } = await import('../../../src/config/load.ts');
const { parseGenesis } = await import('../../../src/app/genesis.ts');
const { silentLogger } = await import('../../../src/util/logger.ts');
const { FREE_PORT_FLAGS, makeHome, until } = await import('../../helpers/node.ts');

/** fs sync calls while the chain commits 4 blocks (after block 2, so startup's are not counted). */
async function syncsOver4Blocks(t: { after(fn: () => void): void }, ephemeral: boolean): Promise<number> {
  const home = makeHome(t);
  const { config } = loadConfig({
    home,
    env: {},
    flags: { 'consensus.engine': 'embedded', 'consensus.timeout-commit': '20ms', ...FREE_PORT_FLAGS },
  });
  const genesis = parseGenesis(fs.readFileSync(join(home, 'config', 'genesis.json'), 'utf8'));
  const node = new ChainNode({
    home,
    config,
    genesis,
    logger: silentLogger,
    dev: { logs: false, ephemeral },
  });
  await node.start();
  try {
    const { chain } = node.modules;
    await until(() => chain.latestHeight >= 2);
    const from = chain.latestHeight;
    const before = syncCalls.count;
    await until(() => chain.latestHeight >= from + 4);
    return syncCalls.count - before;
  } finally {
    await node.stop();
  }
}

test('a throwaway dev home commits blocks without fsync; a kept home fsyncs each block', async (t) => {
  assert.equal(await syncsOver4Blocks(t, true), 0);
  // the control: the same chain on a kept home syncs its logs and signing state every block
  assert.ok((await syncsOver4Blocks(t, false)) >= 4);
});
