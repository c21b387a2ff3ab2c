/**
 * Network-mode engine health, read from the CometBFT child: catching up while it block-syncs or
 * while peers are ahead, halted when the child is gone, when this node's state disagrees with the
 * chain (an app-hash mismatch), or when no block has been committed for a long time although the
 * chain should make empty blocks (consensus has lost its quorum). Every health signal of the node
 * reads it through `SyncStatus`.
 */
import type { EngineHealth, StateSyncProgress, SyncStatus } from '../chain/sync-status.ts';
import type { Logger } from '../util/logger.ts';
import type { AppHashMismatch } from './log-lines.ts';
import type { CometRpcClient, CometStatus } from './rpc-client.ts';

export interface CometHealthOptions {
  /** Calls CometBFT's RPC (which exists once the child has started). */
  call: CometRpcClient['call'];
  /** This node's committed height (the block pipeline's). */
  latestHeight(): number;
  /** No block for this long while blocks are expected: halted. */
  stallAfterMs: number;
  /** create-empty-blocks: an idle chain without empty blocks is not stalled. */
  expectBlocks: boolean;
  mismatch(): AppHashMismatch | undefined;
  /** The state sync under way, if any: the node is catching up while it lasts, whatever peers say. */
  stateSync?(): StateSyncProgress | undefined;
  logger: Logger;
  pollMs?: number;
  now?: () => number;
}

interface PeerRoundState {
  peer_state?: { round_state?: { height?: string } };
}

export class CometHealth implements EngineHealth {
  private readonly o: CometHealthOptions;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private cometCatchingUp = true;
  private bestKnown = 0;
  private startingHeight: number | undefined;
  private lastHeight = -1;
  private lastAdvanceAt: number;
  private died: string | undefined;
  private polling = false;
  private reachable = false;
  /**
   * Set when the height moves again after a stall: the peers' heights known then are from before
   * it (a partitioned node's peers stop reporting), so the node is not current until a poll begun
   * after the move has read them again.
   */
  private resumedAt: number | undefined;

  constructor(o: CometHealthOptions) {
    this.o = o;
    this.now = o.now ?? Date.now;
    this.lastAdvanceAt = this.now();
  }

  start(): void {
    this.lastAdvanceAt = this.now();
    this.timer = setInterval(() => void this.poll(), this.o.pollMs ?? 500);
    this.timer.unref();
    void this.poll();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The child exited: nothing advances this node any more. */
  engineDied(reason: string): void {
    this.died = reason;
  }

  /** Notes when the committed height last moved (checked at every poll and every read). */
  private noteHeight(): number {
    const latestHeight = this.o.latestHeight();
    if (latestHeight !== this.lastHeight) {
      const now = this.now();
      const stalled = this.o.expectBlocks && now - this.lastAdvanceAt >= this.o.stallAfterMs / 2;
      if (this.lastHeight >= 0 && stalled) this.resumedAt = now;
      this.lastHeight = latestHeight;
      this.lastAdvanceAt = now;
    }
    return latestHeight;
  }

  syncStatus(): SyncStatus {
    const latestHeight = this.noteHeight();
    const bestKnownHeight = Math.max(latestHeight, this.bestKnown);
    const stateSync = this.o.stateSync?.();
    const reason = this.haltReason(latestHeight, stateSync !== undefined);
    const behind = bestKnownHeight - latestHeight > 2;
    const stale = this.resumedAt !== undefined;
    const catchingUp =
      !reason && (stateSync !== undefined || this.cometCatchingUp || behind || !this.reachable || stale);
    if (catchingUp && this.startingHeight === undefined) this.startingHeight = latestHeight;
    if (!catchingUp) this.startingHeight = undefined;
    return {
      catchingUp,
      halted: reason !== undefined,
      reason,
      latestHeight,
      bestKnownHeight,
      ...(this.startingHeight !== undefined ? { startingHeight: this.startingHeight } : {}),
      ...(stateSync ? { stateSync } : {}),
    };
  }

  private haltReason(latestHeight: number, stateSyncing: boolean): string | undefined {
    if (this.died) return this.died;
    const m = this.o.mismatch();
    if (m)
      return `wrong Block.Header.AppHash. Expected ${m.expected}, got ${m.got} (height ${m.height}): this node's state disagrees with the chain; stop it and roll back, or restore a snapshot`;
    const idle = this.now() - this.lastAdvanceAt;
    // a restore commits no block until it is done: its own stall rule is restore-progress.ts's
    if (this.o.expectBlocks && !this.cometCatchingUp && !stateSyncing && idle >= this.o.stallAfterMs)
      return `no block committed for ${Math.round(idle / 1000)} s at height ${latestHeight}: consensus is not advancing (too few validators online?)`;
    return undefined;
  }

  private async poll(): Promise<void> {
    this.noteHeight();
    if (this.polling || this.died) return;
    this.polling = true;
    const startedAt = this.now();
    try {
      const status = await this.o.call<CometStatus>('status', {}, 2_000);
      this.reachable = true;
      this.cometCatchingUp = status.sync_info.catching_up;
      let best = Number(status.sync_info.latest_block_height);
      const dump = await this.o.call<{ peers: PeerRoundState[] }>('dump_consensus_state', {}, 2_000);
      for (const p of dump.peers ?? []) {
        // a peer working on height h has committed h - 1
        const h = Number(p.peer_state?.round_state?.height ?? 0) - 1;
        if (h > best) best = h;
      }
      this.bestKnown = best;
      if (this.resumedAt !== undefined && startedAt > this.resumedAt) this.resumedAt = undefined;
    } catch (err) {
      // CometBFT's RPC starts after its handshake with the application; until then it is unknown
      this.o.logger.debug({ err: (err as Error).message }, 'cometbft status not available');
    } finally {
      this.polling = false;
    }
  }
}
