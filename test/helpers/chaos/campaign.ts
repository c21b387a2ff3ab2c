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
import { sleep } from './rpc.ts';

export const PERTURBATIONS = ['kill', 'pause', 'partition-one', 'partition-minority', 'rollback'] as const;
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
    { behindBlocks: 5, healthGraceMs: 16_000, livenessMs: 60_000, catchUpMs: 180_000 },
    () => load.token,
  );
  const counts: Record<string, number> = {};
  // an interrupted run (Ctrl-C, a test timeout) leaves no node, forwarder or namespace behind
  const onExit = () => {
    cluster.killAll();
    lab?.teardown();
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
    const kinds = lab ? PERTURBATIONS : PERTURBATIONS.filter((k) => !k.startsWith('partition'));
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
      const free = cluster.nodes.filter((n) => !busy.has(n.name));
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
      const task = perturb(cluster, kind, names, hold)
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
): Promise<void> {
  const [name] = names;
  switch (kind) {
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
      cluster.rollback(name, 1);
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
