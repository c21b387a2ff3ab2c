import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { CommitSig as PbCommitSig } from 'cosmjs-types/tendermint/types/types';
import { SimpleValidator as PbSimpleValidator } from 'cosmjs-types/tendermint/types/validator';
import {
  BlockIdFlag,
  commitHash,
  encodeCommitSig,
  precommitSignBytes,
  SignedMsgType,
  voteSignBytes,
  type CommitSig,
} from '../../../src/codec/commit.ts';
import { EMPTY_BLOCK_ID, GO_ZERO_TIME } from '../../../src/codec/cometbft.ts';
import { merkleRoot } from '../../../src/codec/merkle.ts';
import {
  simpleValidatorBytes,
  sortValidatorSet,
  validatorAddress,
  validatorSetHash,
} from '../../../src/codec/validators.ts';
import { toHex, utf8 } from '../../../src/primitives/bytes.ts';

const sha = (b: Uint8Array) => new Uint8Array(createHash('sha256').update(b).digest());
const ZERO_TIME_TS = [0x0b, 0x08, 0x80, 0x92, 0xb8, 0xc3, 0x98, 0xfe, 0xff, 0xff, 0xff, 0x01];

test('vote sign bytes reproduce CometBFT TestVoteSignBytesTestVectors', () => {
  const empty = {
    type: 0 as SignedMsgType,
    height: 0,
    round: 0,
    blockId: EMPTY_BLOCK_ID,
    timestamp: GO_ZERO_TIME,
  };
  assert.deepEqual(voteSignBytes('', empty), Uint8Array.of(0x0d, 0x2a, ...ZERO_TIME_TS));
  const h1r1 = [0x11, 1, 0, 0, 0, 0, 0, 0, 0, 0x19, 1, 0, 0, 0, 0, 0, 0, 0];
  assert.deepEqual(
    voteSignBytes('', { ...empty, type: SignedMsgType.Precommit, height: 1, round: 1 }),
    Uint8Array.of(0x21, 0x08, 0x02, ...h1r1, 0x2a, ...ZERO_TIME_TS),
  );
  assert.deepEqual(
    voteSignBytes('', { ...empty, type: SignedMsgType.Prevote, height: 1, round: 1 }),
    Uint8Array.of(0x21, 0x08, 0x01, ...h1r1, 0x2a, ...ZERO_TIME_TS),
  );
  assert.deepEqual(
    voteSignBytes('test_chain_id', { ...empty, height: 1, round: 1 }),
    Uint8Array.of(0x2e, ...h1r1, 0x2a, ...ZERO_TIME_TS, 0x32, 0x0d, ...utf8('test_chain_id')),
  );
});

test('precommit sign bytes for a block id include the canonical block id, and an Ed25519 signature verifies', () => {
  const blockId = {
    hash: new Uint8Array(32).fill(0xab),
    partSetHeader: { total: 1, hash: new Uint8Array(32).fill(0xcd) },
  };
  const ts = { seconds: 1_700_000_000, nanos: 5 };
  const got = precommitSignBytes('chaind-1', 7, 0, blockId, ts);
  const psh = [0x08, 0x01, 0x12, 0x20, ...blockId.partSetHeader.hash];
  const cbid = [0x0a, 0x20, ...blockId.hash, 0x12, psh.length, ...psh];
  // seconds 1_700_000_000 = varint 80 e2 cf aa 06; nanos 5
  const tsb = [0x08, 0x80, 0xe2, 0xcf, 0xaa, 0x06, 0x10, 0x05];
  const body = [
    0x08,
    0x02,
    0x11,
    7,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
    0x22,
    cbid.length,
    ...cbid,
    0x2a,
    tsb.length,
    ...tsb,
    0x32,
    8,
    ...utf8('chaind-1'),
  ];
  assert.deepEqual(got, Uint8Array.of(body.length, ...body));
  const priv = new Uint8Array(32).fill(1);
  const sig = ed25519.sign(got, priv);
  assert.ok(ed25519.verify(sig, got, ed25519.getPublicKey(priv)));
});

test('commit sig encoding equals cosmjs-types; commit hash is the Merkle root of the encodings', () => {
  const sigs: CommitSig[] = [
    {
      blockIdFlag: BlockIdFlag.Commit,
      validatorAddress: new Uint8Array(20).fill(3),
      timestamp: { seconds: 1_600_000_000, nanos: 123 },
      signature: new Uint8Array(64).fill(4),
    },
    {
      blockIdFlag: BlockIdFlag.Absent,
      validatorAddress: new Uint8Array(),
      timestamp: GO_ZERO_TIME,
      signature: new Uint8Array(),
    },
  ];
  for (const s of sigs) {
    const pb = PbCommitSig.encode({
      blockIdFlag: s.blockIdFlag,
      validatorAddress: s.validatorAddress,
      timestamp: { seconds: BigInt(s.timestamp.seconds), nanos: s.timestamp.nanos },
      signature: s.signature,
    }).finish();
    assert.deepEqual(encodeCommitSig(s), pb);
  }
  // absent signature: flag 1 and the zero-time timestamp only
  assert.deepEqual(encodeCommitSig(sigs[1]), Uint8Array.of(0x08, 0x01, 0x1a, ...ZERO_TIME_TS));
  const leaf = (b: Uint8Array) => sha(Uint8Array.of(0, ...b));
  const expected = sha(
    Uint8Array.of(1, ...leaf(encodeCommitSig(sigs[0])), ...leaf(encodeCommitSig(sigs[1]))),
  );
  assert.equal(toHex(commitHash(sigs)), toHex(expected));
  assert.equal(toHex(commitHash([])), toHex(sha(new Uint8Array())));
});

test('validator set hash uses SimpleValidator{ed25519 pub key, power} leaves, as cosmjs-types encodes them', () => {
  const keys = [1, 2, 3].map((i) => ed25519.getPublicKey(new Uint8Array(32).fill(i)));
  const vals = [
    { pubKey: keys[0], votingPower: 10n },
    { pubKey: keys[1], votingPower: 100n },
    { pubKey: keys[2], votingPower: 10n },
  ];
  for (const v of vals) {
    const pb = PbSimpleValidator.encode({
      pubKey: { ed25519: v.pubKey },
      votingPower: v.votingPower,
    }).finish();
    assert.deepEqual(simpleValidatorBytes(v), pb);
  }
  const sorted = sortValidatorSet(vals);
  assert.equal(sorted[0], vals[1]);
  const [a, b] = [vals[0], vals[2]];
  const aFirst = toHex(validatorAddress(a.pubKey)) < toHex(validatorAddress(b.pubKey));
  assert.deepEqual(sorted.slice(1), aFirst ? [a, b] : [b, a]);
  assert.equal(toHex(validatorSetHash(sorted)), toHex(merkleRoot(sorted.map(simpleValidatorBytes))));
  // single validator: the leaf hash of its bytes
  assert.equal(
    toHex(validatorSetHash([vals[0]])),
    toHex(sha(Uint8Array.of(0, ...simpleValidatorBytes(vals[0])))),
  );
  assert.equal(validatorAddress(keys[0]).length, 20);
});
