/**
 * Binary record of a block. Layout, all varints LEB128, `bytes` = uvarint length ‖ bytes:
 *
 *   u8 version: 1 = a block this node built (its hash is the header's hash), 2 = a block CometBFT
 *      decided (same layout; `hash` is CometBFT's and the header holds what FinalizeBlock delivers)
 *   header:  uv version.block, uv version.app, str chainId, uv height, sv time.seconds, uv time.nanos,
 *            lastBlockId (bytes hash, uv psh.total, bytes psh.hash),
 *            bytes × 9: lastCommitHash, dataHash, validatorsHash, nextValidatorsHash, consensusHash,
 *            appHash, lastResultsHash, evidenceHash, proposerAddress
 *   bytes blockHash
 *   commit:  uv height, uv round, blockId, uv n, n × (u8 flag, bytes address, sv seconds, uv nanos,
 *            bytes signature)
 *   txs:     uv n, n × bytes
 *   consensus (only when the block has commit powers or misbehavior; a record without it ends after
 *            the txs, as every record written before it does):
 *            uv n, n × big power (one per commit signature, in order),
 *            uv m, m × (u8 kind: 1 duplicate vote, 2 light client attack, bytes address, big power,
 *            uv height, sv seconds, uv nanos, big totalVotingPower)
 *
 * The header and hash come first so a header read stops before the txs.
 */
import type { BlockID, BlockIdFlag, Commit, Header, Timestamp } from '../../codec/index.ts';
import { ByteWriter, type ByteReader } from '../../primitives/byte-io.ts';
import { recordReader } from './errors.ts';
import type { Block, BlockMisbehavior } from './types.ts';

const OWN_BLOCK = 1;
const ENGINE_BLOCK = 2;

const MISBEHAVIOR_KINDS: BlockMisbehavior['kind'][] = ['duplicate_vote', 'light_client_attack'];

function writeTime(w: ByteWriter, t: Timestamp): void {
  w.sv(t.seconds).uv(t.nanos);
}

function writeBlockId(w: ByteWriter, id: BlockID): void {
  w.bytes(id.hash).uv(id.partSetHeader.total).bytes(id.partSetHeader.hash);
}

function readTime(r: ByteReader): Timestamp {
  return { seconds: r.sv(), nanos: r.uv() };
}

function readBlockId(r: ByteReader): BlockID {
  const hash = r.bytes();
  return { hash, partSetHeader: { total: r.uv(), hash: r.bytes() } };
}

export function encodeBlock(block: Block): Uint8Array {
  const h = block.header;
  let size = 1024 + block.lastCommit.signatures.length * 128;
  for (const tx of block.txs) size += tx.length + 5;
  const w = new ByteWriter(size);
  w.u8(block.hashFromEngine ? ENGINE_BLOCK : OWN_BLOCK)
    .uv(h.version.block)
    .uv(h.version.app)
    .str(h.chainId)
    .uv(h.height);
  writeTime(w, h.time);
  writeBlockId(w, h.lastBlockId);
  for (const b of [
    h.lastCommitHash,
    h.dataHash,
    h.validatorsHash,
    h.nextValidatorsHash,
    h.consensusHash,
    h.appHash,
    h.lastResultsHash,
    h.evidenceHash,
    h.proposerAddress,
  ]) {
    w.bytes(b);
  }
  w.bytes(block.hash);
  const c = block.lastCommit;
  w.uv(c.height).uv(c.round);
  writeBlockId(w, c.blockId);
  w.uv(c.signatures.length);
  for (const s of c.signatures) {
    w.u8(s.blockIdFlag).bytes(s.validatorAddress);
    writeTime(w, s.timestamp);
    w.bytes(s.signature);
  }
  w.uv(block.txs.length);
  for (const tx of block.txs) w.bytes(tx);
  const powers = block.lastCommitPowers ?? [];
  const misbehavior = block.misbehavior ?? [];
  if (powers.length > 0 || misbehavior.length > 0) {
    w.uv(powers.length);
    for (const p of powers) w.big(p);
    w.uv(misbehavior.length);
    for (const m of misbehavior) {
      w.u8(MISBEHAVIOR_KINDS.indexOf(m.kind) + 1)
        .bytes(m.address)
        .big(m.power)
        .uv(m.height);
      writeTime(w, m.time);
      w.big(m.totalVotingPower);
    }
  }
  return w.finish();
}

function readConsensus(r: ByteReader): Pick<Block, 'lastCommitPowers' | 'misbehavior'> {
  if (r.remaining === 0) return {};
  const nPowers = r.uv();
  const powers: bigint[] = [];
  for (let i = 0; i < nPowers; i++) powers.push(r.big());
  const nMisbehavior = r.uv();
  const misbehavior: BlockMisbehavior[] = [];
  for (let i = 0; i < nMisbehavior; i++) {
    const code = r.u8();
    const kind = MISBEHAVIOR_KINDS[code - 1];
    if (kind === undefined) r.fail(`unknown misbehavior kind ${code}`);
    misbehavior.push({
      kind,
      address: r.bytes(),
      power: r.big(),
      height: r.uv(),
      time: readTime(r),
      totalVotingPower: r.big(),
    });
  }
  // never written empty: trailing bytes that decode to nothing are damage, not a section
  if (powers.length === 0 && misbehavior.length === 0) r.fail('empty consensus section');
  return {
    ...(powers.length > 0 && { lastCommitPowers: powers }),
    ...(misbehavior.length > 0 && { misbehavior }),
  };
}

interface HeaderAndHash {
  header: Header;
  hash: Uint8Array;
  hashFromEngine?: true;
}

function readHeaderAndHash(r: ByteReader): HeaderAndHash {
  const version = r.u8();
  if (version !== OWN_BLOCK && version !== ENGINE_BLOCK) r.fail(`unknown block record version ${version}`);
  const header: Header = {
    version: { block: r.uv(), app: r.uv() },
    chainId: r.str(),
    height: r.uv(),
    time: readTime(r),
    lastBlockId: readBlockId(r),
    lastCommitHash: r.bytes(),
    dataHash: r.bytes(),
    validatorsHash: r.bytes(),
    nextValidatorsHash: r.bytes(),
    consensusHash: r.bytes(),
    appHash: r.bytes(),
    lastResultsHash: r.bytes(),
    evidenceHash: r.bytes(),
    proposerAddress: r.bytes(),
  };
  const hash = r.bytes();
  return version === ENGINE_BLOCK ? { header, hash, hashFromEngine: true } : { header, hash };
}

export function decodeHeader(buf: Uint8Array): HeaderAndHash {
  return readHeaderAndHash(recordReader(buf, 'block'));
}

function readCommit(r: ByteReader): Commit {
  const commit: Commit = { height: r.uv(), round: r.uv(), blockId: readBlockId(r), signatures: [] };
  const nSigs = r.uv();
  for (let i = 0; i < nSigs; i++) {
    commit.signatures.push({
      blockIdFlag: r.u8() as BlockIdFlag,
      validatorAddress: r.bytes(),
      timestamp: readTime(r),
      signature: r.bytes(),
    });
  }
  return commit;
}

/** Tx `index` of a block record, skipping over the others; undefined past the last tx. */
export function decodeTxAt(buf: Uint8Array, index: number): Uint8Array | undefined {
  const r = recordReader(buf, 'block');
  readHeaderAndHash(r);
  readCommit(r);
  const nTxs = r.uv();
  if (!Number.isInteger(index) || index < 0 || index >= nTxs) return undefined;
  for (let i = 0; i < index; i++) r.skip(r.uv());
  return r.bytes();
}

export function decodeBlock(buf: Uint8Array): Block {
  const r = recordReader(buf, 'block');
  const head = readHeaderAndHash(r);
  const commit = readCommit(r);
  const nTxs = r.uv();
  const txs: Uint8Array[] = new Array(nTxs);
  for (let i = 0; i < nTxs; i++) txs[i] = r.bytes();
  const consensus = readConsensus(r);
  r.end();
  return { ...head, txs, lastCommit: commit, ...consensus };
}
