/**
 * Child process of the crash test: opens the State Store (recovering), then applies the workload's
 * change sets from latest + 1 on, printing `applied <version>` after each applyChangeSet resolves and
 * pruning every PRUNE_EVERY versions, until it is killed.
 */
import { openStateStore } from '../../../src/storage/ss/index.ts';
import { silentLogger } from '../../../src/util/logger.ts';
import { changeSet, crashOptions, KEEP, PRUNE_EVERY } from './workload.ts';

const [dataDir, buffer] = process.argv.slice(2);
const ss = await openStateStore(crashOptions(dataDir, Number(buffer)), silentLogger);
process.stdout.write(`opened ${ss.latestVersion()}\n`);
for (let v = ss.latestVersion() + 1; ; v++) {
  await ss.applyChangeSet(v, changeSet(v));
  process.stdout.write(`applied ${v}\n`);
  if (v % PRUNE_EVERY === 0) void ss.prune(v - KEEP); // concurrent with the next writes, as in the node
}
