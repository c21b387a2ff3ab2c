/**
 * A chaos campaign: a network of validators and RPC nodes under a steady mixed load, perturbed every
 * few seconds (SIGKILL and restart, SIGSTOP/SIGCONT, a partition of one node or of a minority and its
 * heal, a restart after `chaind rollback -n 1`), sometimes two at once, while the observer checks the
 * invariants; at the end every node runs again, catches up, and the whole chain and every confirmed
 * tx are compared across nodes. The schedule comes from the seed: the same seed makes the same
 * choices of kind, target and timing (what the machine's speed makes of them differs).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claimPortBlock } from '../network.ts';
import { ChaosCluster, type ChaosNode } from './cluster.ts';
import { checkEnd, ChaosObserver, type Violation } from './invariants.ts';
import { ChaosLoad, type LoadStats } from './load.ts';
import { NetnsLab } from './netns.ts';
import { Rng } from './rng.ts';
import { get, jsonRpc, sleep } from './rpc.ts';
import { runChaindAsync } from '../chaind-async.ts';
import { mountSmallDataDir, type SmallDisk, smallDiskUnavailable } from '../disk.ts';

export const PERTURBATIONS = [
  'kill',
  'pause',
  'partition-one',
  'partition-minority',
  'rollback',
  'snapshot-pruned',
  'disk-full',
] as const;
export type PerturbationKind = (typeof PERTURBATIONS)[number];

export interface CampaignOptions {
  minutes: number;
  seed: number;
  validators?: number;
  rpcNodes?: number;
  /** Perturbations taken in this order (cycling), each held for its seconds or a random time; random kinds when absent. */
  steps?: { kind: PerturbationKind; holdSeconds?: number }[];
  /** Range of a perturbation's random hold, in seconds. */
  holdSeconds?: [number, number];
  /**
   * A tx recorded as confirmed that no node has: the end check must report it on every node (a
   * positive control showing the check can fail).
   */
  plantMissingTx?: boolean;
  /** Seconds between perturbation starts. */
  everySeconds?: [number, number];
  /** At most this many perturbations at once. */
  overlap?: number;
  /**
   * Validators take a state-sync snapshot every this many blocks, and `snapshot-pruned` is one of
   * the perturbations: an RPC node is wiped and state-syncs while the snapshot it chose is deleted
   * on every provider. 0: no snapshots.
   */
  snapshotInterval?: number;
  /**
   * The RPC node `rpc0` keeps its data directory on a tmpfs of this many MB, and `disk-full` is one
   * of the perturbations: a ballast fills it until the node halts with its out-of-disk line, then is
   * deleted and the node restarted. Needs root; 0: no small disk.
   */
  smallDiskMb?: number;
  /** Progress lines on stderr. */
  log?: (line: string) => void;
  /** Keeps the homes and logs (their directory is in the result). */
  keep?: boolean;
}

export interface CampaignResult {
  dir: string;
  partitions: boolean;
  /** Why partitions were left out, when they were. */
  partitionsSkipped?: string;
  perturbations: Record<string, number>;
  load: LoadStats;
  violations: Violation[];
  longestGapMs: number;
  slowestCatchUp?: { node: string; ms: number; after: string };
  catchUps: number;
  finalHeight: number;
  heightsChecked: number;
  txsChecked: number;
  checks: { samples: number; health: number; reads: number };
  unexpectedExits: { name: string; code: number | null; signal: string | null }[];
}

const FLAGS = ['--consensus.timeout-commit', '300ms', '--consensus.timeout-propose', '1s'];

export async function runCampaign(o: CampaignOptions): Promise<CampaignResult> {
  const log = o.log ?? (() => {});
  const why = NetnsLab.unavailable();
  const lab = why ? undefined : NetnsLab.create((o.validators ?? 4) + (o.rpcNodes ?? 2));
  const dir = mkdtempSync(join(tmpdir(), 'chaind-chaos-'));
  const ports: (() => void)[] = [];
  const basePort = await claimPortBlock(
    { after: (fn) => ports.push(fn) },
    (o.validators ?? 4) + (o.rpcNodes ?? 2),
  );
  let cluster: ChaosCluster;
  try {
    cluster = ChaosCluster.create({
      dir,
      validators: o.validators ?? 4,
      rpcNodes: o.rpcNodes ?? 2,
      basePort,
      lab,
      flags: FLAGS,
      appToml: (n, text) =>
        n.role === 'validator' && o.snapshotInterval
          ? text.replace(/^snapshot-interval = \d+$/m, `snapshot-interval = ${o.snapshotInterval}`)
          : text,
    });
  } catch (err) {
    lab?.teardown();
    for (const release of ports) release();
    throw err;
  }
  const rng = new Rng(o.seed);
  const load = new ChaosLoad(cluster, new Rng(o.seed + 1), { cosmosChainId: 'chaind-testnet' });
  const observer = new ChaosObserver(
    cluster,
    // the grace: the engine's stall detection (10 × (timeout-commit + timeout-propose)) and its poll
    {
      behindBlocks: 5,
      healthGraceMs: 20_000,
      behindAdvancingMs: 60_000,
      livenessMs: 60_000,
      catchUpMs: 180_000,
    },
    () => load.token,
  );
  const counts: Record<string, number> = {};
  const unmounts: (() => void)[] = [];
  let disk: SmallDisk | undefined;
  if (o.smallDiskMb) {
    const why = smallDiskUnavailable();
    if (why) log(`[chaos] disk-full left out: ${why}`);
    else
      disk = mountSmallDataDir(
        { after: (fn) => unmounts.push(fn) },
        cluster.node('rpc0').home,
        o.smallDiskMb,
      );
  }
  // an interrupted run (Ctrl-C, a test timeout) leaves no node, forwarder or namespace behind
  const onExit = () => {
    cluster.killAll();
    lab?.teardown();
    for (const unmount of unmounts) unmount();
  };
  process.once('exit', onExit);
  try {
    await cluster.startForwarders();
    for (const n of cluster.nodes) cluster.start(n.name);
    log(
      `[chaos] ${cluster.nodes.length} nodes in ${dir}${lab ? ' (network namespaces)' : ` (loopback: ${why})`}`,
    );
    await waitAll(cluster, 2, 180_000);
    await load.setup();
    load.start();
    observer.start();
    const kinds = PERTURBATIONS.filter(
      (k) =>
        (lab || !k.startsWith('partition')) &&
        (o.snapshotInterval || k !== 'snapshot-pruned') &&
        (disk || k !== 'disk-full'),
    );
    const schedule = o.steps?.filter((s) => kinds.includes(s.kind));
    const [lo, hi] = o.everySeconds ?? [4, 10];
    const overlap = o.overlap ?? 2;
    /** Nodes under a perturbation now. */
    const busy = new Set<string>();
    let partitioned = false;
    const impaired = new Set<string>();
    const setImpaired = (names: string[], on: boolean) => {
      for (const x of names)
        if (cluster.node(x).role === 'validator') on ? impaired.add(x) : impaired.delete(x);
      observer.setImpairedValidators(impaired.size);
    };
    const tasks = new Set<Promise<void>>();
    const end = Date.now() + o.minutes * 60_000;
    let i = 0;
    while (Date.now() < end) {
      await sleep(1_000 * rng.between(lo, hi));
      if (tasks.size >= overlap) continue;
      const step = schedule?.length ? schedule[i % schedule.length] : undefined;
      const kind = step?.kind ?? rng.pick(kinds);
      if (kind.startsWith('partition') && partitioned) continue;
      const free = cluster.nodes.filter(
        (n) =>
          !busy.has(n.name) &&
          (kind !== 'snapshot-pruned' || n.role === 'rpc') &&
          (kind !== 'disk-full' || n.name === 'rpc0'),
      );
      const size = kind === 'partition-minority' ? 2 : 1;
      if (free.length < size) continue;
      const targets: ChaosNode[] = [];
      while (targets.length < size) {
        const t = rng.pick(free.filter((n) => !targets.includes(n)));
        targets.push(t);
      }
      const names = targets.map((t) => t.name);
      const [holdLo, holdHi] = o.holdSeconds ?? [3, 25];
      const hold = 1_000 * (step?.holdSeconds ?? rng.between(holdLo, holdHi));
      i++;
      counts[kind] = (counts[kind] ?? 0) + 1;
      for (const x of names) busy.add(x);
      if (kind.startsWith('partition')) partitioned = true;
      log(
        `[chaos] ${new Date().toISOString()} ${kind} ${names.join(',')} for ${hold} ms (height ${observer.networkHeight})`,
      );
      setImpaired(names, true);
      const task = perturb(cluster, kind, names, hold, () => observer.networkHeight, log, disk, busy)
        .catch((err: Error) =>
          observer.violate({
            invariant: 'liveness',
            node: names.join(','),
            detail: `${kind} could not be carried out: ${err.message}`,
          }),
        )
        .finally(() => {
          for (const x of names) busy.delete(x);
          if (kind.startsWith('partition')) partitioned = false;
          setImpaired(names, false);
          for (const x of names) observer.expectCatchUp(x, kind);
          tasks.delete(task);
        });
      tasks.add(task);
    }
    await Promise.all(tasks);
    log(`[chaos] perturbations done at height ${observer.networkHeight}; stopping the load`);
    await load.stop();
    // every node up and caught up to the same height, then the end checks
    const target = observer.networkHeight;
    await waitAll(cluster, target, 240_000);
    await observer.stop();
    log(`[chaos] all nodes at ${target}: comparing ${target} heights and ${load.seen.size} txs`);
    const seen = [...load.seen.values()];
    if (o.plantMissingTx)
      seen.push({
        kind: 'transfer',
        hash: '0x' + 'ee'.repeat(32),
        node: 'planted',
        blockNumber: 1,
        digest: '{}',
      });
    const end2 = await checkEnd(cluster, target, seen, (v) => observer.violate(v));
    const slowest = [...observer.catchUps].sort((a, b) => b.ms - a.ms)[0];
    return {
      dir,
      partitions: lab !== undefined,
      ...(why ? { partitionsSkipped: why } : {}),
      perturbations: counts,
      load: load.stats,
      violations: observer.violations,
      longestGapMs: observer.longestGapMs,
      ...(slowest ? { slowestCatchUp: slowest } : {}),
      catchUps: observer.catchUps.length,
      finalHeight: target,
      heightsChecked: end2.heightsChecked,
      txsChecked: end2.txsChecked,
      checks: observer.checks,
      unexpectedExits: cluster.exits.filter((e) => !e.expected),
    };
  } catch (err) {
    for (const n of cluster.nodes) if (n.tail.length) log(`--- ${n.name}\n${n.tail.slice(-30).join('\n')}`);
    throw err;
  } finally {
    process.removeListener('exit', onExit);
    await cluster.shutdown();
    lab?.teardown();
    for (const unmount of unmounts) unmount();
    for (const release of ports) release();
    if (!o.keep) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  }
}

/** Carries out one perturbation and undoes it. */
async function perturb(
  cluster: ChaosCluster,
  kind: PerturbationKind,
  names: string[],
  holdMs: number,
  networkHeight: () => number,
  log: (line: string) => void,
  disk: SmallDisk | undefined,
  busy: Set<string>,
): Promise<void> {
  const [name] = names;
  switch (kind) {
    case 'disk-full':
      return diskFull(cluster, name, disk!, holdMs, log);
    case 'snapshot-pruned':
      return snapshotPrunedMidRestore(cluster, name, networkHeight, log, busy);
    case 'kill':
      await cluster.kill(name);
      await sleep(holdMs);
      cluster.start(name);
      return;
    case 'pause':
      cluster.pause(name);
      await sleep(holdMs);
      cluster.resume(name);
      return;
    case 'partition-one':
    case 'partition-minority':
      cluster.partition(names);
      await sleep(holdMs);
      cluster.heal();
      return;
    case 'rollback':
      await cluster.stop(name);
      await cluster.rollback(name, 1);
      cluster.start(name);
      return;
  }
}

/** Waits until every node runs and is at `height` or above. */
async function waitAll(cluster: ChaosCluster, height: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (const n of cluster.nodes) {
    if (!n.running) cluster.start(n.name);
    if (n.paused) cluster.resume(n.name);
  }
  cluster.heal();
  for (;;) {
    const heights = await Promise.all(
      cluster.nodes.map(async (n) => {
        try {
          const r = await fetch(cluster.evmUrl(n), {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}',
            signal: AbortSignal.timeout(3_000),
          });
          return Number(((await r.json()) as { result: string }).result);
        } catch {
          return -1;
        }
      }),
    );
    if (heights.every((h) => h >= height)) return;
    if (Date.now() > deadline)
      throw new Error(
        `not every node reached height ${height} within ${ms / 1000} s: ${cluster.nodes.map((n, i) => `${n.name}=${heights[i]}`).join(' ')}`,
      );
    await sleep(500);
  }
}

const msgIs = (msg: string) => (line: string) => line.includes(`"msg":"${msg}`);

/**
 * The flags of a node that state-syncs from the validators, trusting a block 5 below the network's
 * height. Its two RPC servers (CometBFT's light client verifies against them, and a start fails when
 * one does not answer) are validators that answer now and no perturbation holds; they are added to
 * `busy` so that none starts on them while the restore needs them: the caller releases them.
 */
async function stateSyncFlags(
  cluster: ChaosCluster,
  networkHeight: number,
  busy: Set<string>,
  reserved: string[],
): Promise<string[]> {
  const trustHeight = Math.max(1, networkHeight - 5);
  const deadline = Date.now() + 90_000;
  for (;;) {
    const candidates = cluster.validators.filter((v) => v.running && !v.paused && !busy.has(v.name));
    const answering = (
      await Promise.all(
        candidates.map((v) =>
          get(`${cluster.rpcUrl(v)}/block?height=${trustHeight}`, 3_000)
            .then((r) => ({ v, block: JSON.parse(r.text) }))
            .catch(() => undefined),
        ),
      )
    ).filter((a): a is { v: ChaosNode; block: any } => Boolean(a?.block?.result?.block_id?.hash));
    if (answering.length >= 2) {
      const servers = answering.slice(0, 2);
      for (const { v } of servers) {
        busy.add(v.name);
        reserved.push(v.name);
      }
      return [
        '--statesync.enable',
        'true',
        '--statesync.rpc-servers',
        servers.map(({ v }) => cluster.rpcUrl(v)).join(','),
        '--statesync.trust-height',
        String(trustHeight),
        '--statesync.trust-hash',
        servers[0]!.block.result.block_id.hash as string,
        '--statesync.discovery-time',
        '5s',
      ];
    }
    if (Date.now() > deadline)
      throw new Error(
        `state sync needs two validators answering for block ${trustHeight}; found ${answering.length}`,
      );
    await sleep(1_000);
  }
}

/** Resolves when `name` serves `height` or above; undefined after `ms`. */
async function reaches(
  cluster: ChaosCluster,
  name: string,
  height: number,
  ms: number,
): Promise<true | undefined> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const n = cluster.node(name);
    if (!n.running) return undefined;
    try {
      const r = await jsonRpc(cluster.evmUrl(n), 'eth_blockNumber', [], 2_000);
      if (Number(r.result) >= height) return true;
    } catch {
      // not serving yet
    }
    await sleep(500);
  }
  return undefined;
}

/**
 * An RPC node wiped and state-synced from the validators while the snapshot it discovered is deleted
 * on every provider. It must not hang: either the restore completes (it had fetched enough), or it
 * stops with the stalled-restore error naming the remedy, and started again it restores a newer one.
 */
async function snapshotPrunedMidRestore(
  cluster: ChaosCluster,
  name: string,
  networkHeight: () => number,
  log: (line: string) => void,
  busy: Set<string>,
): Promise<void> {
  const reserved: string[] = [];
  try {
    const flags = await stateSyncFlags(cluster, networkHeight(), busy, reserved);
    await cluster.stop(name);
    cluster.wipe(name);
    try {
      await restoreWhileDeleted(cluster, name, flags, networkHeight, log, busy, reserved);
    } catch (err) {
      // the campaign goes on with the node back (by block sync from genesis): the failure is reported
      await cluster.stop(name);
      cluster.start(name);
      throw err;
    }
  } finally {
    for (const v of reserved) busy.delete(v);
  }
}

async function restoreWhileDeleted(
  cluster: ChaosCluster,
  name: string,
  flags: string[],
  networkHeight: () => number,
  log: (line: string) => void,
  busy: Set<string>,
  reserved: string[],
): Promise<void> {
  cluster.start(name, flags);
  const discovered = await cluster.waitForLine(name, msgIs('Discovered new snapshot'), 120_000);
  if (!discovered) throw new Error(`${name} discovered no snapshot within 120 s`);
  const height = Number(JSON.parse(discovered).height);
  // not spawnSync: the observer, the load and the forwarders run in this process
  await Promise.all(
    cluster.validators.map((v) =>
      runChaindAsync(['snapshots', 'delete', '--home', v.home, '--height', String(height)]),
    ),
  );
  cluster.expectExit(name);
  const stalled = cluster.waitForLine(name, msgIs('state sync stalled'), 240_000);
  const outcome = await Promise.race([
    reaches(cluster, name, height, 240_000).then((r) => (r ? 'restored' : undefined)),
    stalled.then((line) => (line ? 'stalled' : undefined)),
  ]);
  log(
    `[chaos] ${name}: the restore of snapshot ${height}, deleted on its providers, ${outcome ?? 'neither finished nor gave up'}`,
  );
  if (outcome === 'restored') return cluster.expectExit(name, false);
  if (outcome !== 'stalled')
    throw new Error(
      `${name}'s restore of the deleted snapshot ${height} neither finished nor gave up within 240 s`,
    );
  await cluster.stop(name);
  for (const v of reserved.splice(0)) busy.delete(v);
  cluster.start(name, await stateSyncFlags(cluster, networkHeight(), busy, reserved));
  if (!(await reaches(cluster, name, height + 1, 240_000)))
    throw new Error(
      `${name}, started again after its stalled restore, did not restore a newer snapshot within 240 s`,
    );
}

/**
 * The node's small disk filled: it must stop committing with its one out-of-disk line and stay up,
 * halted (the observer checks that it never says it is current); the ballast is then deleted and the
 * node restarted, and it must catch up with nothing lost (the end checks).
 */
async function diskFull(
  cluster: ChaosCluster,
  name: string,
  disk: SmallDisk,
  holdMs: number,
  log: (line: string) => void,
): Promise<void> {
  if (!cluster.node(name).running) cluster.start(name);
  const line = cluster.waitForLine(name, msgIs('no space left on device writing'), 180_000);
  try {
    disk.fill(64 * 1024);
    const got = await line;
    if (!got) throw new Error(`${name}'s disk filled, but it did not log the out-of-disk line within 180 s`);
    log(`[chaos] ${name}: ${JSON.parse(got).msg}`);
    await sleep(holdMs);
  } finally {
    disk.release();
  }
  // a node halted by a full disk may exit 1 on its way out (its last flush has no room)
  cluster.expectExit(name);
  await cluster.stop(name);
  cluster.start(name);
}
