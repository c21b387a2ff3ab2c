/**
 * A CometBFT block header as JSON: its fields in the header's order under CometBFT's names, which
 * CometBFT's own JSON (the consensus RPC) and grpc-gateway's (the REST API) share. The two differ only
 * in how a value is written (hashes as upper-case hex or base64, times as Go's RFC3339Nano or
 * jsonpb's, block ids with `parts` or `part_set_header`), so each passes its writers in.
 */
import type { BlockID, Header, Timestamp } from '../../codec/index.ts';
import type { Json } from './json.ts';

export interface HeaderJsonStyle {
  /** A hash or an address. */
  bytes(b: Uint8Array): string;
  time(t: Timestamp): string;
  blockId(id: BlockID): Json;
}

/** `proposer`: the proposer address as this answer names it (by default, as its other bytes). */
export function headerJson(h: Header, style: HeaderJsonStyle, proposer?: Json): Json {
  const { bytes } = style;
  return {
    // int64s as decimal strings, in both
    version: { block: String(h.version.block), app: String(h.version.app) },
    chain_id: h.chainId,
    height: String(h.height),
    time: style.time(h.time),
    last_block_id: style.blockId(h.lastBlockId),
    last_commit_hash: bytes(h.lastCommitHash),
    data_hash: bytes(h.dataHash),
    validators_hash: bytes(h.validatorsHash),
    next_validators_hash: bytes(h.nextValidatorsHash),
    consensus_hash: bytes(h.consensusHash),
    app_hash: bytes(h.appHash),
    last_results_hash: bytes(h.lastResultsHash),
    evidence_hash: bytes(h.evidenceHash),
    proposer_address: proposer === undefined ? bytes(h.proposerAddress) : proposer,
  };
}
