/**
 * Child process of the crash test: commits deterministic blocks to a real (lmdb) commit store forever,
 * printing `{version, appHash}` after each commit returns, until the parent kills it with SIGKILL.
 * argv: dir seed perStore snapshotInterval [asyncCommitBuffer]
 */
import { CommitStore } from '../../../src/storage/sc/commit-store.ts';
import { toHex } from '../../../src/primitives/bytes.ts';
import { blocks, STORES } from './blocks.ts';

const [dir, seed, perStore, interval, asyncBuffer] = process.argv.slice(2);
const sc = await CommitStore.open({
  dir,
  stores: STORES,
  snapshotInterval: Number(interval),
  asyncCommitBuffer: Number(asyncBuffer ?? 0),
  keepRecent: 1,
});
let v = sc.version;
for (const cs of blocks(Number(seed), Number(perStore))) {
  sc.applyChangeSets(++v, cs);
  const { version, appHash } = await sc.commit();
  process.stdout.write(JSON.stringify({ version, appHash: toHex(appHash) }) + '\n');
}
