/**
 * Child process of the rewind crash test: on a real (lmdb) commit store it commits blocks and, again
 * and again, a detour of a few other blocks that it then rolls back (the versions are still in
 * memory: a dev chain's evm_revert), printing `{version, appHash, inMemory}` before every commit (the
 * hash it is about to make durable: a kill may land between the two) and after every rollback,
 * until the parent kills it with SIGKILL. argv: dir seed
 */
import { CommitStore } from '../../../src/storage/sc/commit-store.ts';
import { toHex } from '../../../src/primitives/bytes.ts';
import { memoryLogger } from '../../../src/util/logger.ts';
import { blocks, STORES } from './blocks.ts';

const [dir, seed] = process.argv.slice(2);
const log = memoryLogger();
const main = blocks(Number(seed), 50);
const detours = blocks(Number(seed) + 1, 50);
const sc = await CommitStore.open({
  dir,
  stores: STORES,
  snapshotInterval: 0,
  retainVersions: 64,
  flatkvFlushInterval: 1_000,
  logger: log,
});
const inMemory = () => log.records.filter((r) => r.msg === 'state commit rewound in memory').length;
const report = (version = sc.version, appHash = sc.appHash()) =>
  process.stdout.write(JSON.stringify({ version, appHash: toHex(appHash), inMemory: inMemory() }) + '\n');
const commit = async (changes: ReturnType<typeof main.next>['value']) => {
  sc.applyChangeSets(sc.version + 1, changes!);
  report(sc.version + 1, await sc.workingHashAsync());
  await sc.commit();
};
for (let n = 0; ; n++) {
  await commit(main.next().value);
  const base = sc.version;
  for (let i = 0; i <= n % 3; i++) await commit(detours.next().value);
  await sc.rollback(base);
  report();
}
