/**
 * What a chaos run checks, while it runs and at the end:
 * - one chain: every node has the same block hash and app hash at every height it has;
 * - no lost tx: every tx whose receipt any node served is, at the end, in the same block with the
 *   same receipt on every node;
 * - one state: reads at a committed height (a block, a balance, a storage slot, a call, logs) answer
 *   the same on every node that has that height, and no node serves a height it does not have;
 * - liveness: with at most one validator impaired, heights keep coming (the longest gap is
 *   reported); after each heal a node catches up (the slowest catch-up is reported);
 * - honest health: a node left behind (or halted) never says it is current on any health signal.
 * Every violation is kept with when and where it happened; a run passes with none.
 */
import { Interface } from 'ethers';
import { artifacts } from '../dev-chain.ts';
import { DEV_ACCOUNTS } from '../node.ts';
import type { ChaosCluster, ChaosNode } from './cluster.ts';
import { lookup, type SeenTx } from './load.ts';
import { get, hex, jsonRpc, sleep } from './rpc.ts';

export interface Violation {
  invariant: 'one-chain' | 'no-lost-tx' | 'one-state' | 'liveness' | 'catch-up' | 'honest-health';
  at: number;
  node?: string;
  detail: string;
}

/** Health signals of one node at one moment. */
export interface HealthSample {
  height: number;
  /** What the health endpoints said; absent when one did not answer within 2 s. */
  health?: {
    /** eth_syncing said false. */
    syncingFalse: boolean;
    /** /status said catching_up false. */
    notCatchingUp: boolean;
    /**
     * /lag_status answered 200 with a lag of at most 2 blocks (it answers 200 up to `[rpc]
     * lag-threshold` blocks of lag, as Sei's does, and says the lag in its body: a body that gives
     * the real lag is honest).
     */
    lagOk: boolean;
    /** <ns>_consensus_height_status was 1. */
    heightStatusOne: boolean;
  };
}

const token = new Interface(artifacts.TestToken.abi);
const hexKey = (k: Uint8Array) => '0x' + Buffer.from(k).toString('hex');
const RECIPIENT = hexKey(DEV_ACCOUNTS[9].evmAddress);

export interface ObserverBounds {
  /** A node this many blocks behind the network is behind. */
  behindBlocks: number;
  /**
   * How long a behind node whose height stands still may still say it is current: the engine's
   * stall detection and its polls. A node cut off with a peer as far behind as itself (a minority
   * partition) has nothing else to tell it.
   */
  healthGraceMs: number;
  /** How long a behind node that still advances may say it is current. */
  behindAdvancingMs: number;
  /** Longest allowed gap between heights while at most one validator is impaired. */
  livenessMs: number;
  /** Longest allowed catch-up after a heal. */
  catchUpMs: number;
}

export class ChaosObserver {
  readonly violations: Violation[] = [];
  /** Highest height any node has reported. */
  networkHeight = 0;
  /** Longest time the network height stood still while at most one validator was impaired. */
  longestGapMs = 0;
  private gapStartedAt = Date.now();
  private gapReported = false;
  /** Whether more than one validator is impaired now (then the chain may stop). */
  private quorumAtRisk = false;
  readonly catchUps: { node: string; ms: number; after: string }[] = [];
  readonly heights = new Map<string, number>();
  private readonly behindSince = new Map<string, number>();
  /** When each node's height last changed. */
  private readonly movedAt = new Map<string, { height: number; at: number }>();
  private readonly pending: Promise<void>[] = [];
  private stopped = false;
  private loop: Promise<void> | undefined;
  /** How many times each check ran, so a run that checked nothing cannot pass unnoticed. */
  readonly checks = { samples: 0, health: 0, reads: 0 };

  private readonly cluster: ChaosCluster;
  private readonly bounds: ObserverBounds;
  private readonly tokenAddress: () => string;

  constructor(cluster: ChaosCluster, bounds: ObserverBounds, tokenAddress: () => string) {
    this.cluster = cluster;
    this.bounds = bounds;
    this.tokenAddress = tokenAddress;
  }

  violate(v: Omit<Violation, 'at'>): void {
    const full = { ...v, at: Date.now() };
    this.violations.push(full);
    console.error(`[chaos] violation: ${JSON.stringify(full)}`);
  }

  /** Called by the campaign whenever the set of impaired validators changes. */
  setImpairedValidators(count: number): void {
    const atRisk = count > 1;
    if (atRisk === this.quorumAtRisk) return;
    this.quorumAtRisk = atRisk;
    // a gap is measured only over time with a quorum: restart the clock when the quorum returns
    if (!atRisk) {
      this.gapStartedAt = Date.now();
      this.gapReported = false;
    }
  }

  start(): void {
    this.loop = (async () => {
      let round = 0;
      while (!this.stopped) {
        await this.sample();
        if (round++ % 4 === 0) await this.compareReads();
        await sleep(500);
      }
    })();
  }

  /** Stops sampling once every catch-up being waited for has ended (they read the samples). */
  async stop(): Promise<void> {
    await Promise.all(this.pending);
    this.stopped = true;
    await this.loop;
  }

  private live(): ChaosNode[] {
    return this.cluster.nodes.filter((n) => n.running && !n.paused);
  }

  /**
   * The node's height (eth_blockNumber, the cheapest answer, which liveness reads alone) and, when its
   * health endpoints all answer within 2 s, what they say. A slow health endpoint on a loaded machine
   * is not a lie, so it leaves the health out without hiding the height.
   */
  private async health(n: ChaosNode): Promise<HealthSample | undefined> {
    const [bn, syncing, status, lag, metrics] = await Promise.allSettled([
      jsonRpc(this.cluster.evmUrl(n), 'eth_blockNumber', [], 2_000),
      jsonRpc(this.cluster.evmUrl(n), 'eth_syncing', [], 2_000),
      get(`${this.cluster.rpcUrl(n)}/status`, 2_000),
      get(`${this.cluster.rpcUrl(n)}/lag_status`, 2_000),
      get(this.cluster.metricsUrl(n), 2_000),
    ]);
    if (bn.status === 'rejected' || bn.value.result === undefined) return undefined; // down, paused, cut off or starting
    const height = Number(bn.value.result);
    if (
      syncing.status === 'rejected' ||
      status.status === 'rejected' ||
      lag.status === 'rejected' ||
      metrics.status === 'rejected'
    )
      return { height };
    try {
      const m = /^\w+_consensus_height_status(?:\{[^}]*\})? (\S+)$/m.exec(metrics.value.text);
      return {
        height,
        health: {
          syncingFalse: syncing.value.result === false,
          notCatchingUp:
            status.value.status === 200 &&
            JSON.parse(status.value.text).result?.sync_info?.catching_up === false,
          lagOk: lag.value.status === 200 && Number(JSON.parse(lag.value.text).result?.lag ?? 0) <= 2,
          heightStatusOne: m !== null && Number(m[1]) === 1,
        },
      };
    } catch {
      return { height }; // an answer cut short
    }
  }

  private async sample(): Promise<void> {
    const samples = await Promise.all(this.live().map(async (n) => [n, await this.health(n)] as const));
    const now = Date.now();
    for (const [n, s] of samples) {
      if (!s) continue;
      this.checks.samples++;
      this.heights.set(n.name, s.height);
      if (this.movedAt.get(n.name)?.height !== s.height)
        this.movedAt.set(n.name, { height: s.height, at: now });
      if (s.height > this.networkHeight) {
        this.networkHeight = s.height;
        this.gapStartedAt = now;
        this.gapReported = false;
      }
    }
    if (!this.quorumAtRisk) {
      const gap = now - this.gapStartedAt;
      if (gap > this.longestGapMs) this.longestGapMs = gap;
      if (gap > this.bounds.livenessMs && !this.gapReported) {
        this.gapReported = true;
        this.violate({
          invariant: 'liveness',
          detail: `no new height for ${Math.round(gap / 1000)} s at ${this.networkHeight} with at most one validator impaired`,
        });
      }
    }
    for (const [n, s] of samples) {
      if (!s) continue;
      const behind = this.networkHeight - s.height >= this.bounds.behindBlocks;
      if (!behind) {
        this.behindSince.delete(n.name);
        continue;
      }
      const since = this.behindSince.get(n.name) ?? now;
      this.behindSince.set(n.name, since);
      const still = now - (this.movedAt.get(n.name)?.at ?? now);
      if (still < this.bounds.healthGraceMs && now - since < this.bounds.behindAdvancingMs) continue;
      const h = s.health;
      if (!h) continue;
      this.checks.health++;
      const claims = [
        h.syncingFalse && 'eth_syncing false',
        h.notCatchingUp && '/status catching_up false',
        h.lagOk && '/lag_status 200 with lag ≤ 2',
        h.heightStatusOne && 'height_status 1',
      ].filter(Boolean);
      if (claims.length > 0)
        this.violate({
          invariant: 'honest-health',
          node: n.name,
          detail: `at ${s.height} for ${Math.round(still / 1000)} s, ${this.networkHeight - s.height} blocks behind for ${Math.round((now - since) / 1000)} s, it says current: ${claims.join(', ')}`,
        });
    }
  }

  /** The reads of one committed height, as one string per kind, on one node. */
  private async readsAt(n: ChaosNode, h: number): Promise<Record<string, string> | undefined> {
    const url = this.cluster.evmUrl(n);
    const tag = hex(h);
    try {
      const calls: [string, string, unknown[]][] = [
        ['block', 'eth_getBlockByNumber', [tag, false]],
        ['balance', 'eth_getBalance', [RECIPIENT, tag]],
        ['logs', 'eth_getLogs', [{ fromBlock: tag, toBlock: tag }]],
      ];
      if (this.tokenAddress()) {
        calls.push(['storage', 'eth_getStorageAt', [this.tokenAddress(), '0x2', tag]]);
        calls.push([
          'call',
          'eth_call',
          [{ to: this.tokenAddress(), data: token.encodeFunctionData('balanceOf', [RECIPIENT]) }, tag],
        ]);
      }
      const out: Record<string, string> = {};
      for (const [k, method, params] of calls) {
        const a = await jsonRpc(url, method, params, 5_000);
        // an error (pruned, not yet there) is not an answer to compare; a wrong value would be
        if (a.error) return undefined;
        out[k] = JSON.stringify(
          k === 'block' ? { hash: a.result?.hash, stateRoot: a.result?.stateRoot } : a.result,
        );
      }
      return out;
    } catch {
      return undefined;
    }
  }

  /** Compares the reads of a height every live node has; checks none serves a height beyond its own. */
  private async compareReads(): Promise<void> {
    const nodes = this.live().filter((n) => this.heights.has(n.name));
    if (nodes.length < 2) return;
    const h = Math.min(...nodes.map((n) => this.heights.get(n.name)!)) - 1;
    if (h < 1) return;
    const answers = await Promise.all(nodes.map(async (n) => [n.name, await this.readsAt(n, h)] as const));
    const got = answers.filter(([, a]) => a !== undefined) as [string, Record<string, string>][];
    if (got.length >= 2) this.checks.reads++;
    for (const [name, a] of got.slice(1))
      for (const k of Object.keys(a))
        if (a[k] !== got[0][1][k])
          this.violate({
            invariant: 'one-state',
            node: name,
            detail: `${k} at height ${h}: ${a[k]} here, ${got[0][1][k]} on ${got[0][0]}`,
          });
    // a height far beyond anything committed: nobody may answer for it
    for (const n of nodes) {
      const beyond = hex(this.networkHeight + 1_000);
      try {
        const b = await jsonRpc(this.cluster.evmUrl(n), 'eth_getBlockByNumber', [beyond, false], 3_000);
        const bal = await jsonRpc(this.cluster.evmUrl(n), 'eth_getBalance', [RECIPIENT, beyond], 3_000);
        if (b.result || bal.result !== undefined)
          this.violate({
            invariant: 'one-state',
            node: n.name,
            detail: `answered for height ${this.networkHeight + 1_000}, which no node has`,
          });
      } catch {
        // went away meanwhile
      }
    }
  }

  /**
   * After a heal, restart or resume of `name`: waits in the background until it reaches the height
   * the network had at that moment, and records how long that took.
   */
  expectCatchUp(name: string, after: string): void {
    const target = this.networkHeight;
    const started = Date.now();
    this.pending.push(
      (async () => {
        for (;;) {
          const n = this.cluster.node(name);
          if (!n.running && Date.now() - started > 5_000) return; // perturbed again: a later heal measures it
          if ((this.heights.get(name) ?? -1) >= target && Date.now() > started) break;
          if (Date.now() - started > this.bounds.catchUpMs) {
            this.violate({
              invariant: 'catch-up',
              node: name,
              detail: `not back at height ${target} within ${this.bounds.catchUpMs / 1000} s of ${after} (at ${this.heights.get(name)})`,
            });
            return;
          }
          await sleep(250);
        }
        this.catchUps.push({ node: name, ms: Date.now() - started, after });
      })(),
    );
  }
}

/**
 * The end checks, once every node runs again and has caught up to `top`: one chain at every height
 * (CometBFT's block id and app hash from the consensus RPC, and the EVM block hash and state root),
 * and every tx any node ever confirmed in the same block with the same receipt on every node.
 */
export async function checkEnd(
  cluster: ChaosCluster,
  top: number,
  seen: Iterable<SeenTx>,
  violate: (v: Omit<Violation, 'at'>) => void,
): Promise<{ heightsChecked: number; txsChecked: number }> {
  const nodes = cluster.nodes;
  // a node that state-synced has no blocks below its snapshot: compare each height where it has it
  const earliest = await Promise.all(
    nodes.map(async (n) => {
      const r = await get(`${cluster.rpcUrl(n)}/status`, 20_000);
      return Number(JSON.parse(r.text).result.sync_info.earliest_block_height);
    }),
  );
  let heightsChecked = 0;
  for (let from = 1; from <= top; from += 20) {
    const to = Math.min(top, from + 19);
    const per = await Promise.all(
      nodes.map(async (n) => {
        const r = await get(`${cluster.rpcUrl(n)}/blockchain?minHeight=${from}&maxHeight=${to}`, 20_000);
        const metas = JSON.parse(r.text).result?.block_metas ?? [];
        const byHeight = new Map<number, string>();
        for (const m of metas)
          byHeight.set(Number(m.header.height), `${m.block_id.hash}/${m.header.app_hash}`);
        const evm = await fetch(cluster.evmUrl(n), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(
            Array.from({ length: to - from + 1 }, (_, i) => ({
              jsonrpc: '2.0',
              id: from + i,
              method: 'eth_getBlockByNumber',
              params: [hex(from + i), false],
            })),
          ),
          signal: AbortSignal.timeout(20_000),
        }).then((x) => x.json() as Promise<{ id: number; result?: any }[]>);
        for (const e of evm)
          byHeight.set(e.id, `${byHeight.get(e.id)}|${e.result?.hash}/${e.result?.stateRoot}`);
        return byHeight;
      }),
    );
    for (let h = from; h <= to; h++) {
      heightsChecked++;
      const holders = nodes.map((_, i) => i).filter((i) => earliest[i] <= h);
      const first = per[holders[0]].get(h);
      for (const i of holders.slice(1))
        if (per[i].get(h) !== first)
          violate({
            invariant: 'one-chain',
            node: nodes[i].name,
            detail: `height ${h}: ${per[i].get(h)} here, ${first} on ${nodes[holders[0]].name}`,
          });
    }
  }
  let txsChecked = 0;
  for (const tx of seen) {
    txsChecked++;
    for (const [i, n] of nodes.entries()) {
      if (earliest[i] > tx.blockNumber) continue;
      const digest = await lookup(cluster, n, tx).catch((e: Error) => `unreachable: ${e.message}`);
      if (digest !== tx.digest)
        violate({
          invariant: 'no-lost-tx',
          node: n.name,
          detail: `${tx.kind} tx ${tx.hash} (served by ${tx.node} in block ${tx.blockNumber}): ${digest ?? 'missing'} here, ${tx.digest} when served`,
        });
    }
  }
  return { heightsChecked, txsChecked };
}
