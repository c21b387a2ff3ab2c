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
