/**
 * Domain values → CometBFT 0.38 JSON. The conventions (CometBFT's `cmtjson`): int64/uint64 as
 * decimal strings, int32/uint32 as numbers, hashes (`HexBytes`) as upper-case hex, other bytes
 * (`[]byte`: txs, signatures, keys, ABCI data) as base64, times as Go's RFC3339Nano (UTC, up to nine
 * fraction digits with trailing zeros trimmed, e.g. `2026-01-01T00:00:00.25Z`).
 */
import type { BlockID, Commit, CommitSig, Header, Timestamp } from '../../codec/index.ts';
import { toHex } from '../../primitives/bytes.ts';
import { headerJson as writeHeaderJson, type HeaderJsonStyle } from '../codecs/header-json.ts';
import type { Json } from '../codecs/json.ts';
import type { BlockView, TxEventView, TxResultView, ValidatorView } from './types.ts';

export type { Json };

export const hexUpper = (b: Uint8Array): string => toHex(b).toUpperCase();
export const base64 = (b: Uint8Array): string =>
  Buffer.from(b.buffer, b.byteOffset, b.length).toString('base64');
export const int64 = (n: number | bigint): string => n.toString();

/** Go's `time.RFC3339Nano` of a protobuf timestamp: what CometBFT prints for every time. */
export function rfc3339Nano(t: Timestamp): string {
  const iso = new Date(t.seconds * 1000).toISOString(); // YYYY-MM-DDTHH:MM:SS.000Z, also for year 1
  const base = iso.slice(0, 19);
  if (t.nanos === 0) return `${base}Z`;
  return `${base}.${String(t.nanos).padStart(9, '0').replace(/0+$/, '')}Z`;
}

export function blockIdJson(id: BlockID): Json {
  return {
    hash: hexUpper(id.hash),
    parts: { total: id.partSetHeader.total, hash: hexUpper(id.partSetHeader.hash) },
  };
}

const COMETBFT_JSON: HeaderJsonStyle = { bytes: hexUpper, time: rfc3339Nano, blockId: blockIdJson };

export function headerJson(h: Header): Json {
  return writeHeaderJson(h, COMETBFT_JSON);
}

function commitSigJson(s: CommitSig): Json {
  return {
    block_id_flag: s.blockIdFlag,
    validator_address: hexUpper(s.validatorAddress),
    timestamp: rfc3339Nano(s.timestamp),
    // An absent signature is nil in Go, which cmtjson prints as null.
    signature: s.signature.length > 0 ? base64(s.signature) : null,
  };
}

export function commitJson(c: Commit): Json {
  return {
    height: int64(c.height),
    round: c.round,
    block_id: blockIdJson(c.blockId),
    signatures: c.signatures.map(commitSigJson),
  };
}

export function blockJson(b: BlockView): Json {
  return {
    header: headerJson(b.header),
    data: { txs: b.txs.map(base64) },
    evidence: { evidence: [] },
    last_commit: commitJson(b.lastCommit),
  };
}

export function blockMetaJson(b: BlockView): Json {
  return {
    block_id: blockIdJson(b.blockId),
    block_size: int64(b.size),
    header: headerJson(b.header),
    num_txs: int64(b.txs.length),
  };
}

function eventJson(e: TxEventView): Json {
  return {
    type: e.type,
    attributes: e.attributes.map((a) => ({ key: a.key, value: a.value, index: a.index })),
  };
}

export function txResultJson(r: TxResultView): Json {
  return {
    code: r.code,
    data: r.data.length > 0 ? base64(r.data) : null,
    log: r.log,
    info: '',
    gas_wanted: int64(r.gasWanted),
    gas_used: int64(r.gasUsed),
    events: r.events.map(eventJson),
    codespace: r.codespace,
  };
}

export function pubKeyJson(key: Uint8Array): Json {
  return { type: 'tendermint/PubKeyEd25519', value: base64(key) };
}

export function validatorJson(v: ValidatorView): Json {
  return {
    address: hexUpper(v.address),
    pub_key: pubKeyJson(v.pubKey),
    voting_power: int64(v.votingPower),
    proposer_priority: '0',
  };
}
