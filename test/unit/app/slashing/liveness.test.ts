import assert from 'node:assert/strict';
import { test } from 'node:test';
import { beginBlock } from '../../../../src/app/block-hooks.ts';
import { slashingBeginBlock } from '../../../../src/app/slashing/begin-block.ts';
import { afterValidatorBonded } from '../../../../src/app/slashing/bonded.ts';
import { maxMissedPerWindow } from '../../../../src/app/slashing/liveness.ts';
import { parseSlashingParams, writeSlashingParams } from '../../../../src/app/slashing/params.ts';
import { consAddressBech32, SigningInfoReader } from '../../../../src/app/slashing/signing-info.ts';
import { parseDec } from '../../../../src/app/staking/dec.ts';
import { slashingKeys, STORES } from '../../../../src/app/store-keys.ts';
import { CountingState, FakeStaking } from './fake-staking.ts';

const SHORT = parseSlashingParams({
  signed_blocks_window: '10',
  min_signed_per_window: '0.5',
  downtime_jail_duration: '5s',
  slash_fraction_double_sign: '0.05',
  slash_fraction_downtime: '0.01',
});

const A = new Uint8Array(20).fill(0xaa);
const B = new Uint8Array(20).fill(0xbb);

function setup() {
  const state = new CountingState();
  writeSlashingParams(state, SHORT);
  const staking = new FakeStaking();
  staking.add({ consAddress: A });
  afterValidatorBonded(state, A, 0);
  state.setCalls = 0;
  const block = (height: number, signed: boolean, addr = A) =>
    slashingBeginBlock(
      state,
      { height, time: { seconds: 1_000 + height, nanos: 7 } },
      { votes: [{ address: addr, power: 10n, signed }], misbehavior: [] },
      () => staking,
    );
  const info = () => new SigningInfoReader(state).get(A)!;
  return { state, staking, block, info };
}

test('the threshold is window − round(min_signed × window), as the SDK', () => {
  assert.equal(maxMissedPerWindow(SHORT), 5);
  assert.equal(maxMissedPerWindow({ ...SHORT, signedBlocksWindow: 100 }), 50);
  // 0.55 × 11 = 6.05 → 6 signed needed, 5 may be missed
  assert.equal(
    maxMissedPerWindow({ ...SHORT, signedBlocksWindow: 11, minSignedPerWindow: parseDec('0.55') }),
    5,
  );
});

test('a validator that signs every block writes nothing, and a block without votes reads nothing', () => {
  const { state, block, info } = setup();
  for (let h = 1; h <= 35; h++) assert.deepEqual(block(h, true), []);
  assert.equal(state.setCalls, 0);
  assert.equal(info().missedBlocksCounter, 0);
  const empty = new CountingState();
  assert.deepEqual(
    slashingBeginBlock(
      empty,
      { height: 1, time: { seconds: 1, nanos: 0 } },
      { votes: [], misbehavior: [] },
      () => {
        throw new Error('staking must not be asked for a block without votes');
      },
    ),
    [],
  );
  assert.equal(empty.setCalls, 0);
});

test('a missed block sets its bit once; when the window wraps, signing that position clears it', () => {
  const { state, block, info } = setup();
  const events = block(3, false);
  assert.deepEqual(
    events.map((e) => [e.type, Object.fromEntries(e.attributes.map((a) => [a.key, a.value]))]),
    [['liveness', { address: consAddressBech32(A), missed_blocks: '1', height: '3' }]],
  );
  assert.equal(info().missedBlocksCounter, 1);
  assert.ok(state.get(STORES.slashing, slashingKeys.missedBlocks(A)));
  const writes = state.setCalls;
  block(4, true);
  assert.equal(state.setCalls, writes, 'signing a position that was not missed writes nothing');
  // height 13 is position 3 again: the miss of height 3 leaves the window
  block(13, true);
  assert.equal(info().missedBlocksCounter, 0);
  assert.equal(
    state.get(STORES.slashing, slashingKeys.missedBlocks(A)),
    undefined,
    'an all-clear bitmap is deleted',
  );
  // missing the same position in the next window again counts it again
  block(23, false);
  block(33, false);
  assert.equal(info().missedBlocksCounter, 1, 'a position missed in two windows counts once');
});

test('jailed exactly when the misses pass the threshold after the first window, and not before', () => {
  const { staking, block, info } = setup();
  // six misses within the first window: above the threshold, but the first window never jails
  for (let h = 1; h <= 6; h++) block(h, false);
  assert.equal(info().missedBlocksCounter, 6);
  for (let h = 7; h <= 10; h++) block(h, true);
  assert.equal(staking.slashes.length, 0);
  // height 11 (position 1) signs: 5 missed, at the threshold, not above
  block(11, true);
  assert.equal(info().missedBlocksCounter, 5);
  assert.equal(staking.slashes.length, 0);
  assert.equal(staking.validators[0].jailed, false);
  // height 17 (position 7) misses: 6 > 5
  const events = block(17, false);
  assert.equal(staking.validators[0].jailed, true);
  assert.deepEqual(staking.slashes, [
    { consAddress: A, infractionHeight: 15, power: 10n, fraction: parseDec('0.01') },
  ]);
  const slash = events.find((e) => e.type === 'slash')!;
  assert.deepEqual(Object.fromEntries(slash.attributes.map((a) => [a.key, a.value])), {
    address: consAddressBech32(A),
    power: '10',
    reason: 'missing_signature',
    jailed: consAddressBech32(A),
    burned_coins: '100000',
  });
  const i = info();
  assert.equal(i.missedBlocksCounter, 0);
  assert.deepEqual(i.jailedUntil, { seconds: 1_017 + 5, nanos: 7 });
  // a jailed validator's votes change nothing
  block(18, false);
  assert.equal(info().missedBlocksCounter, 0);
  assert.equal(staking.slashes.length, 1);
});

test('the window starts again, empty, when the validator bonds again', () => {
  const { state, block, info } = setup();
  block(2, false);
  afterValidatorBonded(state, A, 40);
  assert.equal(info().startHeight, 40);
  assert.equal(info().missedBlocksCounter, 0);
  assert.equal(state.get(STORES.slashing, slashingKeys.missedBlocks(A)), undefined);
  // a validator without a signing info gets one
  afterValidatorBonded(state, B, 7);
  assert.equal(new SigningInfoReader(state).get(B)!.startHeight, 7);
});

test('votes of unknown validators, or of validators without a signing info, are skipped', () => {
  const { state, staking, block } = setup();
  assert.deepEqual(block(12, false, B), []);
  staking.add({ consAddress: B });
  assert.deepEqual(block(13, false, B), []);
  assert.equal(state.setCalls, 0);
});

test('block-hooks beginBlock runs slashing (staking asked only when the block has votes)', () => {
  const state = new CountingState();
  assert.deepEqual(
    beginBlock(state, { height: 1, time: { seconds: 1, nanos: 0 } }, { votes: [], misbehavior: [] }),
    [],
  );
  assert.equal(state.setCalls, 0);
});
