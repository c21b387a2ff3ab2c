/**
 * Consensus metrics the operator alerts use (spec, Events): `<namespace>_consensus_height_status`,
 * `…_validator_missed_blocks` and `…_validator_status`, each per validator address where it applies.
 * Missed blocks are counted from the commit every block carries for its predecessor, as CometBFT
 * counts them: a validator listed there with an absent vote missed that block. Documented in docs/metrics.md.
 */
import { Gauge, type Registry } from 'prom-client';
import { BlockIdFlag, type Commit } from '../codec/index.ts';
import { toHex } from '../primitives/bytes.ts';

export interface ConsensusMetricsSource {
  /** Calls `listener` with every committed block; returns the unsubscribe function. */
  onBlock(listener: (committed: { block: { lastCommit: Commit } }) => void): () => void;
  /** 20-byte addresses of the validator set that signs blocks now (it changes as validators join, are jailed or leave). */
  validatorSet(): Uint8Array[];
  /** Every known validator, `active` when bonded, not jailed and in the signing set. */
  validatorStatuses(): { address: Uint8Array; active: boolean }[];
  /** Whether the node is at the network's height: not catching up and lag ≤ `[rpc] lag-threshold`. */
  atNetworkHeight(): boolean;
}

const label = (address: Uint8Array) => toHex(address).toUpperCase();

export function recordConsensusMetrics(
  registry: Registry,
  namespace: string,
  source: ConsensusMetricsSource,
): () => void {
  const registers = [registry];
  new Gauge({
    name: `${namespace}_consensus_height_status`,
    help: '1 while the node is at the network height (not catching up, lag within the threshold), else 0.',
    registers,
    collect() {
      this.set(source.atNetworkHeight() ? 1 : 0);
    },
  });
  // A gauge, as CometBFT declares it: the name operator alerts use has no `_total`, which a counter
  // must have (promtool check metrics); it only grows, so increase() over it still reads the misses.
  const missed = new Gauge({
    name: `${namespace}_consensus_validator_missed_blocks`,
    help: 'Blocks whose commit has no vote of this validator (absent), counted from the commits it is listed in.',
    labelNames: ['validator_address'],
    registers,
  });
  // A zero series per validator from the start, so an alert on increase() sees the first miss.
  for (const a of source.validatorSet()) missed.inc({ validator_address: label(a) }, 0);
  new Gauge({
    name: `${namespace}_consensus_validator_status`,
    help: '1 if the validator is bonded, not jailed and in the active set, else 0.',
    labelNames: ['validator_address'],
    registers,
    collect() {
      this.reset();
      for (const v of source.validatorStatuses())
        this.set({ validator_address: label(v.address) }, v.active ? 1 : 0);
    },
  });

  return source.onBlock(({ block }) => {
    const commit = block.lastCommit;
    if (commit.height === 0) return; // the first block carries no commit
    // The commit lists the set that signed the previous block, each with its flag. A validator
    // that joined the bonded set enters CometBFT's set two blocks later (its update delay): it is
    // judged from its first commit on, and given its zero series now.
    for (const a of source.validatorSet()) missed.inc({ validator_address: label(a) }, 0);
    for (const s of commit.signatures)
      missed.inc(
        { validator_address: label(s.validatorAddress) },
        s.blockIdFlag === BlockIdFlag.Absent ? 1 : 0,
      );
  });
}
