import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  decodeBlock,
  decodeHeader,
  decodeTxAt,
  encodeBlock,
} from '../../../../src/storage/blocks/block-codec.ts';
import { consensusInfoOfBlock } from '../../../../src/chain/consensus-info.ts';
import {
  decodeCosmosResults,
  decodeReceipt,
  encodeCosmosResults,
  encodeReceipt,
  scanReceiptLogs,
} from '../../../../src/storage/blocks/receipt-codec.ts';
import { CorruptRecordError } from '../../../../src/storage/blocks/errors.ts';
import { decodeLocation, encodeLocation } from '../../../../src/storage/blocks/keys.ts';
import { GO_ZERO_TIME, BlockIdFlag } from '../../../../src/codec/index.ts';
import type { Log, Receipt } from '../../../../src/storage/blocks/types.ts';
import { filled, makeBlock, pools, prng } from './fixtures.ts';

const shape = { evmTxs: 6, cosmosTxs: 3, logsPerTx: 2, ...pools(4, 6) };

test('block record round-trips every field, including an absent signature at Go zero time', () => {
  const { block } = makeBlock(7, filled(32, 1), shape, prng(1));
  block.lastCommit.signatures.push({
    blockIdFlag: BlockIdFlag.Absent,
    validatorAddress: new Uint8Array(),
    timestamp: GO_ZERO_TIME,
    signature: new Uint8Array(),
  });
  block.txs.push(new Uint8Array()); // an empty tx survives too
  const rec = encodeBlock(block);
  assert.equal(rec[0], 1, 'version byte first');
  assert.deepEqual(decodeBlock(rec), block);
  assert.deepEqual(decodeHeader(rec), { header: block.header, hash: block.hash });
});

test('receipt record round-trips: create/call, big quantities, zero/sparse/raw blooms', () => {
  const { receipts } = makeBlock(3, filled(32, 2), shape, prng(2));
  const huge: Receipt = {
    ...receipts[0],
    gasUsed: 0n,
    cumulativeGasUsed: (1n << 64n) + 5n,
    effectiveGasPrice: (1n << 255n) - 1n,
    logs: [],
    logsBloom: new Uint8Array(256),
  };
  const dense: Receipt = { ...receipts[1], logsBloom: new Uint8Array(256).fill(0xff) };
  for (const rc of [...receipts, huge, dense]) {
    const rec = encodeReceipt(rc);
    assert.equal(rec[0], 1);
    assert.deepEqual(decodeReceipt(rec), rc);
  }
  // a sparse bloom is far smaller than 256 bytes
  const withLogs = receipts.find((r) => r.logs.length > 0)!;
  const bare = encodeReceipt({ ...withLogs, logs: [] });
  assert.ok(bare.length < 200, `record of ${bare.length} bytes`);
});

test('scanReceiptLogs returns exactly the accepted logs, without decoding the receipt', () => {
  const { receipts } = makeBlock(3, filled(32, 2), shape, prng(3));
  for (const rc of receipts) {
    const all: Log[] = [];
    scanReceiptLogs(encodeReceipt(rc), () => true, all);
    assert.deepEqual(all, rc.logs);
    const none: Log[] = [];
    scanReceiptLogs(encodeReceipt(rc), () => false, none);
    assert.deepEqual(none, []);
    const twoTopics: Log[] = [];
    scanReceiptLogs(encodeReceipt(rc), (_b, _a, n) => n >= 2, twoTopics);
    assert.deepEqual(
      twoTopics,
      rc.logs.filter((l) => l.topics.length >= 2),
    );
  }
});

test('cosmos results round-trip', () => {
  const { results } = makeBlock(3, filled(32, 2), shape, prng(4));
  results.push({ index: 99, code: 0, codespace: '', log: 'ünïcode', gasWanted: 0n, gasUsed: 0n, events: [] });
  const rec = encodeCosmosResults(results);
  assert.equal(rec[0], 1);
  assert.deepEqual(decodeCosmosResults(rec), results);
});

test('damaged or unknown-version records are CorruptRecordError, never garbage', () => {
  const { block, receipts, results } = makeBlock(3, filled(32, 2), shape, prng(5));
  const recs: [Uint8Array, (b: Uint8Array) => unknown][] = [
    [encodeBlock(block), decodeBlock],
    [encodeReceipt(receipts[0]), decodeReceipt],
    [encodeCosmosResults(results), decodeCosmosResults],
  ];
  for (const [rec, decode] of recs) {
    assert.throws(() => decode(rec.subarray(0, rec.length - 1)), CorruptRecordError);
    assert.throws(() => decode(Uint8Array.of(...rec, 0)), CorruptRecordError);
    assert.throws(() => decode(Uint8Array.of(9, ...rec.subarray(1))), /unknown .*version 9/);
  }
});

test('a block CometBFT decided round-trips as record version 2, with its hash kept as given', () => {
  const { block } = makeBlock(3, filled(32, 2), shape, prng(6));
  const decided = { ...block, hash: filled(32, 0xcd), hashFromEngine: true as const };
  const rec = encodeBlock(decided);
  assert.equal(rec[0], 2);
  assert.deepEqual(decodeBlock(rec), decided);
  assert.equal(decodeBlock(encodeBlock(block)).hashFromEngine, undefined);
});

test('tx locations: Cosmos (12 bytes), EVM with block hash (48), and the earlier 16-byte EVM form', () => {
  const hash = filled(32, 5);
  assert.deepEqual(decodeLocation(encodeLocation(7, 3)), { height: 7, index: 3 });
  assert.deepEqual(decodeLocation(encodeLocation(2 ** 40, 9, { evmIndex: 4, blockHash: hash })), {
    height: 2 ** 40,
    index: 9,
    evmIndex: 4,
    blockHash: hash,
  });
  const legacy = new Uint8Array(16);
  legacy.set(encodeLocation(7, 3));
  legacy[15] = 2;
  assert.deepEqual(decodeLocation(legacy), { height: 7, index: 3, evmIndex: 2 });
});

const misbehaviorEntry = {
  kind: 'duplicate_vote' as const,
  address: filled(20, 0x33),
  power: 7_000_000n,
  height: 5,
  time: { seconds: 1_800_000_010, nanos: 123 },
  totalVotingPower: (1n << 70n) + 1n,
};

test('a block record keeps its votes’ powers and misbehavior in a trailing section; header and tx reads skip it', () => {
  const { block } = makeBlock(8, filled(32, 3), shape, prng(7));
  const withConsensus = {
    ...block,
    lastCommitPowers: block.lastCommit.signatures.map((_, i) => BigInt(i) * 1_000_000n + 1n),
    misbehavior: [misbehaviorEntry, { ...misbehaviorEntry, kind: 'light_client_attack' as const, height: 6 }],
  };
  const rec = encodeBlock(withConsensus);
  assert.ok(rec.length > encodeBlock(block).length);
  assert.deepEqual(decodeBlock(rec), withConsensus);
  assert.deepEqual(decodeHeader(rec), { header: block.header, hash: block.hash });
  assert.deepEqual(decodeTxAt(rec, block.txs.length - 1), block.txs.at(-1));
  // misbehavior alone (a first block has no votes) is a section too
  const first = {
    ...block,
    lastCommit: { ...block.lastCommit, signatures: [] },
    misbehavior: [misbehaviorEntry],
  };
  assert.deepEqual(decodeBlock(encodeBlock(first)), first);
  // nothing to keep: no section, the record is byte for byte the one written before the section existed
  const none = { ...block, lastCommitPowers: [], misbehavior: [] };
  assert.deepEqual(encodeBlock(none), encodeBlock(block));
  // a damaged section is refused, never read as garbage
  assert.throws(() => decodeBlock(rec.subarray(0, rec.length - 1)), CorruptRecordError);
  assert.throws(() => decodeBlock(Uint8Array.of(...encodeBlock(block), 0, 0)), /empty consensus section/);
  const badKind = encodeBlock(first);
  const kindAt = encodeBlock({ ...first, misbehavior: [] }).length + 2;
  assert.equal(badKind[kindAt], 1, 'the kind byte of the first misbehavior');
  badKind[kindAt] = 9;
  assert.throws(() => decodeBlock(badKind), /unknown misbehavior kind 9/);
});

/**
 * A decided block's record as the code before the consensus section wrote it (height 2, two commit
 * votes: one signed, one absent; one tx), frozen here: such records stay in block stores.
 */
const RECORD_BEFORE_CONSENSUS_SECTION =
  '020b00056f6c642d310280c8ceb40d0520010101010101010101010101010101010101010101010101010101010101010100000020020202020202020202020202020202020202020202020202020202020202020200200303030303030303030303030303030303030303030303030303030303030303002004040404040404040404040404040404040404040404040404040404040404040000140505050505050505050505050505050505050505200606060606060606060606060606060606060606060606060606060606060606010020010101010101010101010101010101010101010101010101010101010101010100000202140707070707070707070707070707070707070707ffdb8ff9ce03000001140808080808080808080808080808080808080808ffdb8ff9ce0300000102dead';

test('a block record written before the consensus section decodes, without powers or misbehavior', () => {
  const block = decodeBlock(Uint8Array.from(Buffer.from(RECORD_BEFORE_CONSENSUS_SECTION, 'hex')));
  assert.equal(block.header.height, 2);
  assert.equal(block.hashFromEngine, true);
  assert.deepEqual(block.txs, [Uint8Array.of(0xde, 0xad)]);
  assert.deepEqual(
    block.lastCommit.signatures.map((s) => [s.blockIdFlag, s.validatorAddress[0]]),
    [
      [BlockIdFlag.Commit, 7],
      [BlockIdFlag.Absent, 8],
    ],
  );
  assert.equal(block.lastCommitPowers, undefined);
  assert.equal(block.misbehavior, undefined);
  // replay hands its hooks the votes it has, with power 0 (never kept), and no misbehavior
  assert.deepEqual(consensusInfoOfBlock(block), {
    votes: [
      { address: new Uint8Array(20).fill(7), power: 0n, signed: true },
      { address: new Uint8Array(20).fill(8), power: 0n, signed: false },
    ],
    misbehavior: [],
  });
  // and it encodes back to the same bytes
  assert.equal(Buffer.from(encodeBlock(block)).toString('hex'), RECORD_BEFORE_CONSENSUS_SECTION);
});
