/**
 * `cosmos.base.tendermint.v1beta1` answers in grpc-gateway JSON: blocks as `tendermint.types.Block`
 * (hashes and addresses as base64, enums by name) plus the SDK's `sdk_block`, whose proposer is a
 * bech32 consensus address; and the node's `DefaultNodeInfo`.
 */
import { BlockIdFlag, type BlockID, type Commit } from '../../codec/index.ts';
import { toBech32 } from '../../crypto/accounts.ts';
import { BECH32_ACCOUNT_PREFIX, CLIENT_NAME } from '../../primitives/identity.ts';
import { headerJson, type HeaderJsonStyle } from '../codecs/header-json.ts';
import { base64, type Json, timestampJson } from './json.ts';
import type { RestBlockView, RestNodeIdentity } from './types.ts';

const VALCONS_PREFIX = `${BECH32_ACCOUNT_PREFIX}valcons`;

const BLOCK_ID_FLAG: Record<number, string> = {
  [BlockIdFlag.Absent]: 'BLOCK_ID_FLAG_ABSENT',
  [BlockIdFlag.Commit]: 'BLOCK_ID_FLAG_COMMIT',
  [BlockIdFlag.Nil]: 'BLOCK_ID_FLAG_NIL',
};

export function blockIdJson(id: BlockID): Json {
  return {
    hash: base64(id.hash),
    part_set_header: { total: id.partSetHeader.total, hash: base64(id.partSetHeader.hash) },
  };
}

const GATEWAY_JSON: HeaderJsonStyle = { bytes: base64, time: timestampJson, blockId: blockIdJson };

function commitJson(c: Commit): Json {
  return {
    height: String(c.height),
    round: c.round,
    block_id: blockIdJson(c.blockId),
    signatures: c.signatures.map((s) => ({
      block_id_flag: BLOCK_ID_FLAG[s.blockIdFlag] ?? 'BLOCK_ID_FLAG_UNKNOWN',
      validator_address: base64(s.validatorAddress),
      timestamp: timestampJson(s.timestamp),
      signature: base64(s.signature),
    })),
  };
}

/** GetLatestBlock / GetBlockByHeight response. */
export function blockResponseJson(b: RestBlockView): Json {
  const body = (proposer: Json) => ({
    header: headerJson(b.header, GATEWAY_JSON, proposer),
    data: { txs: b.txs.map(base64) },
    evidence: { evidence: [] },
    last_commit: commitJson(b.lastCommit),
  });
  return {
    block_id: blockIdJson(b.blockId),
    block: body(base64(b.header.proposerAddress)),
    sdk_block: body(toBech32(VALCONS_PREFIX, b.header.proposerAddress)),
  };
}

/** GetNodeInfo response. */
export function nodeInfoJson(id: RestNodeIdentity): Json {
  return {
    default_node_info: {
      // CometBFT 0.38's protocol versions: P2P 8, block 11; the app version is the SDK default 0.
      protocol_version: { p2p: '8', block: '11', app: '0' },
      default_node_id: id.nodeId,
      listen_addr: id.listenAddr,
      network: id.chainId,
      version: id.version,
      // The reactor channels CometBFT advertises (blocksync, consensus, mempool, evidence, statesync).
      channels: base64(Uint8Array.from([0x40, 0x20, 0x21, 0x22, 0x23, 0x30, 0x38, 0x60, 0x61, 0x00])),
      moniker: id.moniker,
      other: { tx_index: 'on', rpc_address: id.rpcAddress() },
    },
    application_version: {
      name: CLIENT_NAME,
      app_name: CLIENT_NAME,
      version: id.appVersion,
      git_commit: '',
      build_tags: '',
      go_version: `node ${process.version}`,
      build_deps: [],
      cosmos_sdk_version: '',
    },
  };
}
