/**
 * The state sync of a node restoring a snapshot, as this application sees it: discovering (no
 * snapshot accepted yet), fetching the accepted snapshot's chunks (CometBFT hands them over in index
 * order, so the first one not received is the one it waits for), importing. Fed by the ABCI calls
 * (OfferSnapshot, ApplySnapshotChunk) and by CometBFT's log lines for what it does not tell the
 * application (a provider answering that a chunk is missing, a snapshot CometBFT gave up itself).
 *
 * The stall rule: while CometBFT waits for a chunk the application is not called at all, and CometBFT
 * waits 2 minutes per snapshot before it gives one up, then goes on with other snapshots of the same
 * providers, which a provider pruning faster than peers fetch has pruned too: a restore that can loop
 * for ever. So when no chunk has arrived for `STALL_MS` (3 × chunk_request_timeout: three requests
 * unanswered) the attempt is given up with one error naming the remedy, and the node stops (a restart
 * clears the attempt and discovers snapshots again, docs/adr/0017).
 */
import { describeStateSync, type StateSyncProgress } from '../chain/sync-status.ts';
import { CHUNK_REQUEST_TIMEOUT_MS } from './config.ts';

/** No chunk for this long: the restore of this snapshot is given up. */
export const STALL_MS = 3 * CHUNK_REQUEST_TIMEOUT_MS;

interface Fetching {
  height: number;
  chunks: number;
  received: boolean[];
  count: number;
  lastChunkAt: number;
  missing: number;
}

export class RestoreProgress {
  private readonly now: () => number;
  private readonly stallMs: number;
  private phase: StateSyncProgress['phase'] | undefined;
  private since = 0;
  private fetching: Fetching | undefined;
  /** Seconds since the last chunk at which the last waiting line was logged. */
  private loggedAt = 0;

  constructor(o: { now?: () => number; stallMs?: number } = {}) {
    this.now = o.now ?? Date.now;
    this.stallMs = o.stallMs ?? STALL_MS;
  }

  /** A node about to state sync: discovering until a snapshot is accepted. */
  begin(): void {
    this.enter('discovering');
    this.fetching = undefined;
  }

  accepted(height: number, chunks: number): void {
    this.enter('fetching');
    this.fetching = {
      height,
      chunks,
      received: new Array<boolean>(chunks).fill(false),
      count: 0,
      lastChunkAt: this.now(),
      missing: 0,
    };
    this.loggedAt = 0;
  }

  chunkReceived(index: number): void {
    const f = this.fetching;
    if (!f || index < 0 || index >= f.chunks) return;
    if (!f.received[index]) f.count++;
    f.received[index] = true;
    f.lastChunkAt = this.now();
    this.loggedAt = 0;
  }

  /** A chunk arrived that does not match its hash (fetched again): a provider is still answering. */
  chunkRefused(): void {
    if (this.fetching) this.fetching.lastChunkAt = this.now();
  }

  /** A provider answered that it has no chunk `index` of the snapshot at `height`. */
  missingAnswer(height: number): void {
    if (this.fetching?.height === height) this.fetching.missing++;
  }

  importing(): void {
    if (this.phase === 'fetching') this.enter('importing');
  }

  /** The snapshot was given up (by this application or by CometBFT): back to discovering. */
  rejected(height?: number): void {
    if (this.phase === undefined) return;
    if (height !== undefined && this.fetching && this.fetching.height !== height) return;
    this.begin();
  }

  /** The state is restored: no state sync any more. */
  finished(): void {
    this.phase = undefined;
    this.fetching = undefined;
  }

  status(): StateSyncProgress | undefined {
    if (!this.phase) return undefined;
    const now = this.now();
    const out: StateSyncProgress = { phase: this.phase, seconds: secondsSince(this.since, now) };
    const f = this.fetching;
    if (!f) return out;
    Object.assign(out, { snapshotHeight: f.height, chunks: f.chunks, chunksReceived: f.count });
    if (this.phase === 'fetching') {
      const waiting = f.received.indexOf(false);
      out.waitingForChunk = waiting < 0 ? f.chunks : waiting;
      out.secondsSinceLastChunk = secondsSince(f.lastChunkAt, now);
      out.missingAnswers = f.missing;
    }
    return out;
  }

  /**
   * What the watchdog does now: a line to log every chunk_request_timeout without a chunk, and once
   * no chunk came for the stall time, the error that gives the restore up.
   */
  check(): { waiting?: StateSyncProgress; stalled?: string } {
    const s = this.status();
    if (!s || s.phase !== 'fetching') return {};
    const quiet = s.secondsSinceLastChunk!;
    if (quiet * 1000 >= this.stallMs) {
      const missing = s.missingAnswers
        ? `its providers answered that they no longer have it (pruned by their [state-sync] snapshot-keep-recent, or deleted)`
        : `no provider sent it`;
      return {
        stalled:
          `state sync stalled: no chunk of the snapshot of height ${s.snapshotHeight} for ${quiet} s ` +
          `(waiting for chunk ${s.waitingForChunk}, ${s.chunksReceived}/${s.chunks} received): ${missing}. ` +
          `Raise snapshot-keep-recent on the nodes that provide snapshots, or start this node again to ` +
          `discover newer snapshots`,
      };
    }
    const step = Math.floor((quiet * 1000) / CHUNK_REQUEST_TIMEOUT_MS);
    if (step > this.loggedAt) {
      this.loggedAt = step;
      return { waiting: s };
    }
    return {};
  }

  describe(): string | undefined {
    const s = this.status();
    return s && describeStateSync(s);
  }

  private enter(phase: StateSyncProgress['phase']): void {
    this.phase = phase;
    this.since = this.now();
  }
}

function secondsSince(t: number, now: number): number {
  return Math.max(0, Math.floor((now - t) / 1000));
}
