/**
 * The node's domain data → the `cosmjs-types` messages the tendermint and tx services answer with:
 * blocks as `tendermint.types.Block` plus the SDK's `sdk_block` (proposer as a bech32 consensus
 * address), node info as CometBFT's `DefaultNodeInfo`, committed txs as `TxResponse`.
 */
import type { TxResponse } from 'cosmjs-types/cosmos/base/abci/v1beta1/abci';
import type {
  GetLatestBlockResponse,
  GetNodeInfoResponse,
} from 'cosmjs-types/cosmos/base/tendermint/v1beta1/query';
import { AuthInfo, Tx, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import type { BlockID, Commit, Header } from '../../codec/index.ts';
import { txHash } from '../../codec/index.ts';
import { toBech32 } from '../../crypto/accounts.ts';
import { BECH32_ACCOUNT_PREFIX, CLIENT_NAME } from '../../primitives/identity.ts';
import type { GrpcBlockView, GrpcNodeIdentity, GrpcTxResultView } from './types.ts';

const VALCONS_PREFIX = `${BECH32_ACCOUNT_PREFIX}valcons`;

const hexUpper = (b: Uint8Array) => Buffer.from(b).toString('hex').toUpperCase();
const ts = (t: { seconds: number; nanos: number }) => ({ seconds: BigInt(t.seconds), nanos: t.nanos });

/** A Timestamp as RFC 3339 (what TxResponse.timestamp carries). */
function rfc3339(t: { seconds: number; nanos: number }): string {
  const base = new Date(t.seconds * 1000).toISOString().slice(0, 19);
  return t.nanos === 0 ? `${base}Z` : `${base}.${String(t.nanos).padStart(9, '0').replace(/0+$/, '')}Z`;
}

const blockId = (id: BlockID) => ({
  hash: id.hash,
  partSetHeader: { total: id.partSetHeader.total, hash: id.partSetHeader.hash },
});

/**
 * The domain header has the message's own fields (codec/ follows CometBFT's protobuf), so nothing is
 * mapped as the JSON writers map it: only the integers widen to the message's int64s.
 */
function header<P>(h: Header, proposerAddress: P) {
  return {
    ...h,
    version: { block: BigInt(h.version.block), app: BigInt(h.version.app) },
    height: BigInt(h.height),
    time: ts(h.time),
    proposerAddress,
  };
}

function commit(c: Commit) {
  return {
    height: BigInt(c.height),
    round: c.round,
    blockId: blockId(c.blockId),
    signatures: c.signatures.map((s) => ({
      blockIdFlag: s.blockIdFlag as number,
      validatorAddress: s.validatorAddress,
      timestamp: ts(s.timestamp),
      signature: s.signature,
    })),
  };
}

/** GetLatestBlock / GetBlockByHeight response. */
export function blockResponse(b: GrpcBlockView): GetLatestBlockResponse {
  const rest = { data: { txs: b.txs }, evidence: { evidence: [] }, lastCommit: commit(b.lastCommit) };
  return {
    blockId: blockId(b.blockId),
    block: { header: header(b.header, b.header.proposerAddress), ...rest },
    sdkBlock: { header: header(b.header, toBech32(VALCONS_PREFIX, b.header.proposerAddress)), ...rest },
  };
}

/** GetNodeInfo response (the same facts the REST gateway and `/status` report). */
export function nodeInfoResponse(id: GrpcNodeIdentity): GetNodeInfoResponse {
  return {
    defaultNodeInfo: {
      // CometBFT 0.38's protocol versions: P2P 8, block 11; the app version is the SDK default 0.
      protocolVersion: { p2p: 8n, block: 11n, app: 0n },
      defaultNodeId: id.nodeId,
      listenAddr: id.listenAddr,
      network: id.chainId,
      version: id.version,
      // The reactor channels CometBFT advertises (blocksync, consensus, mempool, evidence, statesync).
      channels: Uint8Array.from([0x40, 0x20, 0x21, 0x22, 0x23, 0x30, 0x38, 0x60, 0x61, 0x00]),
      moniker: id.moniker,
      other: { txIndex: 'on', rpcAddress: id.rpcAddress() },
    },
    applicationVersion: {
      name: CLIENT_NAME,
      appName: CLIENT_NAME,
      version: id.appVersion,
      gitCommit: '',
      buildTags: '',
      goVersion: `node ${process.version}`,
      buildDeps: [],
      cosmosSdkVersion: '',
    },
  };
}

/** A TxRaw as the `Tx` it signs (body and auth info decoded, signatures kept). */
export function txOf(raw: Uint8Array): Tx {
  const r = TxRaw.decode(raw);
  return Tx.fromPartial({
    body: TxBody.decode(r.bodyBytes),
    authInfo: AuthInfo.decode(r.authInfoBytes),
    signatures: r.signatures,
  });
}

/** TxResponse of a committed tx. */
export function txResponse(
  raw: Uint8Array,
  tx: Tx,
  height: number,
  time: { seconds: number; nanos: number },
  r: GrpcTxResultView,
): TxResponse {
  return {
    height: BigInt(height),
    txhash: hexUpper(txHash(raw)),
    codespace: r.codespace,
    code: r.code,
    data: hexUpper(r.data),
    rawLog: r.log,
    logs: [],
    info: '',
    gasWanted: r.gasWanted,
    gasUsed: r.gasUsed,
    tx: { typeUrl: '/cosmos.tx.v1beta1.Tx', value: Tx.encode(tx).finish() },
    timestamp: rfc3339(time),
    events: r.events.map((e) => ({ type: e.type, attributes: e.attributes.map((a) => ({ ...a })) })),
  };
}

/** TxResponse of a broadcast: CheckTx's outcome only, as the SDK answers BROADCAST_MODE_SYNC. */
export function checkTxResponse(c: {
  code: number;
  codespace: string;
  log: string;
  hash: Uint8Array;
}): TxResponse {
  return {
    height: 0n,
    txhash: hexUpper(c.hash),
    codespace: c.codespace,
    code: c.code,
    data: '',
    rawLog: c.log,
    logs: [],
    info: '',
    gasWanted: 0n,
    gasUsed: 0n,
    timestamp: '',
    events: [],
  };
}
