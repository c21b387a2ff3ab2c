/**
 * Engine health: whether the node is making progress, in one engine-neutral shape that every health
 * signal reads (`/status`, `/lag_status`, `eth_syncing`, the gRPC/REST syncing answers and the
 * `<ns>_consensus_height_status` metric). Whatever engine decides blocks (the embedded single-validator
 * producer, or CometBFT in network mode) provides an `EngineHealth`; the signals never ask the engine
 * anything else.
 */

export interface SyncStatus {
  /** Behind the network and fetching blocks to reach it. */
  catchingUp: boolean;
  /** The node cannot make progress: the chain does not move here and the engine says why. */
  halted: boolean;
  /** Why the node is halted (the engine's last error, with since when); undefined while not halted. */
  reason?: string;
  /** Height of the last committed block. */
  latestHeight: number;
  /** Highest committed height the engine knows of (its own or a peer's); ≥ latestHeight. */
  bestKnownHeight: number;
  /** Where the current catch-up started (eth_syncing's startingBlock); the latest height if unknown. */
  startingHeight?: number;
  /** A state sync under way (the node is catching up meanwhile): what it waits for. */
  stateSync?: StateSyncProgress;
}

/**
 * A state sync restoring a snapshot, as every health signal reports it while it lasts: a node that
 * waits for a snapshot chunk says which, and since when, rather than anything that reads as current.
 */
export interface StateSyncProgress {
  /**
   * discovering: no snapshot accepted yet; fetching: the accepted snapshot's chunks arrive;
   * importing: every chunk is in and the state is being imported.
   */
  phase: 'discovering' | 'fetching' | 'importing';
  /** Seconds since the phase began. */
  seconds: number;
  /** The snapshot being restored (fetching, importing). */
  snapshotHeight?: number;
  chunks?: number;
  chunksReceived?: number;
  /** The chunk the restore waits for: the first not received (chunks are applied in order). */
  waitingForChunk?: number;
  /** Seconds since the last chunk arrived, or since the snapshot was accepted before the first. */
  secondsSinceLastChunk?: number;
  /** Times a provider answered that it no longer has a chunk of this snapshot. */
  missingAnswers?: number;
}

/** One line saying what a state sync waits for (halt reasons, `/lag_status`, logs). */
export function describeStateSync(p: StateSyncProgress): string {
  if (p.phase === 'discovering') return `state sync: discovering snapshots (${p.seconds} s)`;
  if (p.phase === 'importing')
    return `state sync: importing the snapshot of height ${p.snapshotHeight} (${p.chunks} chunks, ${p.seconds} s)`;
  const missing = p.missingAnswers ? `, answered missing ${p.missingAnswers} times` : '';
  return (
    `state sync: waiting for chunk ${p.waitingForChunk} of the snapshot of height ${p.snapshotHeight} ` +
    `(${p.chunksReceived}/${p.chunks} received, ${p.secondsSinceLastChunk} s since the last chunk${missing})`
  );
}

export interface EngineHealth {
  syncStatus(): SyncStatus;
}

/**
 * A node with no engine that can advance its chain (here: not the genesis validator, and no P2P to
 * follow one): halted from the start, for a reason known at startup.
 */
export function haltedEngine(latestHeight: () => number, reason: string): EngineHealth {
  return {
    syncStatus: () => {
      const h = latestHeight();
      return { catchingUp: false, halted: true, reason, latestHeight: h, bestKnownHeight: h };
    },
  };
}
