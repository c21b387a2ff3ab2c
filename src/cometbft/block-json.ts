/**
 * A block as CometBFT stores it, read from its RPC (`/block`): the whole header, the block ID and the
 * last commit with its signatures — what a block decided by CometBFT has and chaind's stored copy
 * lacks (see Block.hashFromEngine). The Cosmos REST and gRPC block endpoints answer with it in network
 * mode, so no client sees a partial header.
 */
import type { BlockID, BlockIdFlag, Commit, Header, Timestamp } from '../codec/index.ts';
import type { CometRpcClient } from './rpc-client.ts';

export interface EngineBlock {
  header: Header;
  blockId: BlockID;
  txs: Uint8Array[];
  lastCommit: Commit;
}

interface BlockIdJson {
  hash: string;
  parts: { total: number; hash: string };
}

interface BlockJson {
  block_id: BlockIdJson;
  block: {
    header: {
      version: { block: string; app?: string };
      chain_id: string;
      height: string;
      time: string;
      last_block_id: BlockIdJson;
      last_commit_hash: string;
      data_hash: string;
      validators_hash: string;
      next_validators_hash: string;
      consensus_hash: string;
      app_hash: string;
      last_results_hash: string;
      evidence_hash: string;
      proposer_address: string;
    };
    data: { txs: string[] | null };
    last_commit: {
      height: string;
      round: number;
      block_id: BlockIdJson;
      signatures: {
        block_id_flag: number;
        validator_address: string;
        timestamp: string;
        signature: string | null;
      }[];
    };
  };
}

const hex = (s: string) => new Uint8Array(Buffer.from(s, 'hex'));
const blockId = (j: BlockIdJson): BlockID => ({
  hash: hex(j.hash),
  partSetHeader: { total: j.parts.total, hash: hex(j.parts.hash) },
});

/** RFC 3339 with up to nanoseconds, as CometBFT writes times. */
export function timestampFromRfc3339(s: string): Timestamp {
  const m = /^(.*?)(?:\.(\d{1,9}))?Z$/.exec(s);
  if (!m) throw new Error(`not an RFC 3339 UTC time: ${s}`);
  const seconds = Math.floor(Date.parse(`${m[1]}Z`) / 1000);
  return { seconds, nanos: Number((m[2] ?? '0').padEnd(9, '0')) };
}

export async function engineBlock(rpc: CometRpcClient, height: number): Promise<EngineBlock | undefined> {
  let r: BlockJson;
  try {
    r = await rpc.call<BlockJson>('block', { height: String(height) }, 5_000);
  } catch (err) {
    if (/must be less than or equal|is not available|lowest height/.test((err as Error).message))
      return undefined;
    throw err;
  }
  const h = r.block.header;
  const c = r.block.last_commit;
  return {
    header: {
      version: { block: Number(h.version.block), app: Number(h.version.app ?? 0) },
      chainId: h.chain_id,
      height: Number(h.height),
      time: timestampFromRfc3339(h.time),
      lastBlockId: blockId(h.last_block_id),
      lastCommitHash: hex(h.last_commit_hash),
      dataHash: hex(h.data_hash),
      validatorsHash: hex(h.validators_hash),
      nextValidatorsHash: hex(h.next_validators_hash),
      consensusHash: hex(h.consensus_hash),
      appHash: hex(h.app_hash),
      lastResultsHash: hex(h.last_results_hash),
      evidenceHash: hex(h.evidence_hash),
      proposerAddress: hex(h.proposer_address),
    },
    blockId: blockId(r.block_id),
    txs: (r.block.data.txs ?? []).map((t) => new Uint8Array(Buffer.from(t, 'base64'))),
    lastCommit: {
      height: Number(c.height),
      round: c.round,
      blockId: blockId(c.block_id),
      signatures: c.signatures.map((s) => ({
        blockIdFlag: s.block_id_flag as BlockIdFlag,
        validatorAddress: hex(s.validator_address),
        timestamp: timestampFromRfc3339(s.timestamp),
        signature: s.signature ? new Uint8Array(Buffer.from(s.signature, 'base64')) : new Uint8Array(0),
      })),
    },
  };
}
