/**
 * `npm run bench -- chaos [minutes] [seed]`: a 4-validator + 2-RPC-node network on this machine
 * (each node in its own network namespace when run as root, so partitions are possible; loopback
 * otherwise, without partitions), a steady mixed load (EVM transfers, ERC20 transfers, Cosmos bank
 * sends) sent to both RPC nodes, and a random perturbation every few seconds, sometimes two at once:
 * SIGKILL and restart, SIGSTOP/SIGCONT, a partition of one node or of a minority and its heal, a
 * restart after `chaind rollback -n 1`, an RPC node state-syncing while its snapshot is deleted on
 * every provider (validators snapshot every CHAOS_SNAPSHOT_INTERVAL = 20 blocks; 0 leaves it out), a
 * full disk on rpc0 (a tmpfs of CHAOS_SMALL_DISK_MB = 256 MB as root; 0 leaves it out) and its
 * release. Prints one JSON line per figure and exits 1 on any violated invariant
 * (test/helpers/chaos/invariants.ts lists them). CHAOS_KEEP=1 keeps the homes and logs.
 */
import { runCampaign } from '../test/helpers/chaos/campaign.ts';
import { report } from './report.ts';

const minutes = Number(process.argv[3] ?? 5);
const seed = Number(process.argv[4] ?? 1);
if (!(minutes > 0) || !Number.isInteger(seed)) {
  console.error('usage: npm run bench -- chaos [minutes > 0] [integer seed]');
  process.exit(2);
}
// so that the campaign's exit hook removes what it started
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
const started = Date.now();
const r = await runCampaign({
  minutes,
  seed,
  snapshotInterval: Number(process.env.CHAOS_SNAPSHOT_INTERVAL ?? 20),
  smallDiskMb: Number(process.env.CHAOS_SMALL_DISK_MB ?? 256),
  log: (l) => console.error(l),
  keep: process.env.CHAOS_KEEP === '1',
});
const labels = { seed, minutes, partitions: r.partitions };
for (const [kind, n] of Object.entries(r.perturbations))
  report('chaos', 'perturbations', n, 'count', { ...labels, kind });
for (const [kind, n] of Object.entries(r.load.sent)) {
  report('chaos', 'txs_sent', n, 'count', { ...labels, kind });
  report('chaos', 'txs_confirmed', r.load.confirmed[kind] ?? 0, 'count', { ...labels, kind });
}
report('chaos', 'violations', r.violations.length, 'count', labels);
report('chaos', 'longest_liveness_gap', r.longestGapMs / 1000, 's', labels);
if (r.slowestCatchUp)
  report('chaos', 'slowest_catch_up', r.slowestCatchUp.ms / 1000, 's', {
    ...labels,
    node: r.slowestCatchUp.node,
    after: r.slowestCatchUp.after,
  });
report('chaos', 'catch_ups', r.catchUps, 'count', labels);
report('chaos', 'final_height', r.finalHeight, 'blocks', labels);
report('chaos', 'heights_compared', r.heightsChecked, 'count', labels);
report('chaos', 'txs_compared', r.txsChecked, 'count', labels);
report('chaos', 'health_checks', r.checks.health, 'count', labels);
report('chaos', 'read_comparisons', r.checks.reads, 'count', labels);
report('chaos', 'unexpected_exits', r.unexpectedExits.length, 'count', labels);
report('chaos', 'wall_time', (Date.now() - started) / 1000, 's', labels);
if (r.partitionsSkipped) console.error(`[chaos] partitions left out: ${r.partitionsSkipped}`);
for (const v of r.violations) console.error(`[chaos] violation ${JSON.stringify(v)}`);
for (const e of r.unexpectedExits) console.error(`[chaos] unexpected exit ${JSON.stringify(e)}`);
if (r.violations.length > 0 || r.unexpectedExits.length > 0) process.exit(1);
