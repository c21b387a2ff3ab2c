import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Misbehavior } from '../../../../src/app/block-hooks.ts';
import { slashingBeginBlock } from '../../../../src/app/slashing/begin-block.ts';
import { afterValidatorBonded } from '../../../../src/app/slashing/bonded.ts';
import {
  DEFAULT_SLASHING_PARAMS,
  parseSlashingParams,
  writeEvidenceMaxAge,
  writeSlashingParams,
} from '../../../../src/app/slashing/params.ts';
import {
  consAddressBech32,
  DOUBLE_SIGN_JAIL_END,
  SigningInfoReader,
} from '../../../../src/app/slashing/signing-info.ts';
import { parseDec } from '../../../../src/app/staking/dec.ts';
import { CountingState, FakeStaking } from './fake-staking.ts';

const A = new Uint8Array(20).fill(0xaa);
const HOUR = 3_600_000_000_000n;

function setup() {
  const state = new CountingState();
  writeSlashingParams(state, parseSlashingParams(DEFAULT_SLASHING_PARAMS));
  writeEvidenceMaxAge(state, { numBlocks: 100, durationNs: HOUR });
  const staking = new FakeStaking();
  staking.add({ consAddress: A });
  afterValidatorBonded(state, A, 0);
  const evidence = (height: number, time: number, at: { height: number; time: number }, addr = A) =>
    slashingBeginBlock(
      state,
      { height: at.height, time: { seconds: at.time, nanos: 0 } },
      {
        votes: [],
        misbehavior: [
          {
            kind: 'duplicate_vote',
            address: addr,
            power: 10n,
            height,
            time: { seconds: time, nanos: 0 },
            totalVotingPower: 40n,
          } satisfies Misbehavior,
        ],
      },
      () => staking,
    );
  return { state, staking, evidence, info: () => new SigningInfoReader(state).get(A)! };
}

const attrs = (e: { attributes: { key: string; value: string }[] }) =>
  Object.fromEntries(e.attributes.map((a) => [a.key, a.value]));

test('double sign: slashed at the infraction, jailed for good, tombstoned; the second evidence changes nothing', () => {
  const { staking, evidence, info, state } = setup();
  const events = evidence(50, 10_000, { height: 52, time: 10_010 });
  assert.deepEqual(staking.slashes, [
    { consAddress: A, infractionHeight: 49, power: 10n, fraction: parseDec('0.05') },
  ]);
  assert.equal(staking.validators[0].jailed, true);
  assert.deepEqual(events.map(attrs), [
    { address: consAddressBech32(A), power: '10', reason: 'double_sign', burned_coins: '500000' },
    { jailed: consAddressBech32(A) },
  ]);
  assert.deepEqual(
    events.map((e) => e.type),
    ['slash', 'slash'],
  );
  assert.equal(info().tombstoned, true);
  assert.deepEqual(info().jailedUntil, DOUBLE_SIGN_JAIL_END);
  const writes = state.setCalls;
  assert.deepEqual(evidence(51, 10_005, { height: 53, time: 10_015 }), []);
  assert.equal(staking.slashes.length, 1);
  assert.equal(state.setCalls, writes);
});

test('a jailed validator that double signed is slashed and tombstoned, without a second jail event', () => {
  const { staking, evidence, info } = setup();
  staking.validators[0].jailed = true;
  const events = evidence(50, 10_000, { height: 52, time: 10_010 });
  assert.equal(events.length, 1);
  assert.equal(staking.slashes.length, 1);
  assert.equal(info().tombstoned, true);
});

test('evidence is too old only past both the block and the time limit', () => {
  const { staking, evidence, info } = setup();
  const t = 1_000_000;
  // 101 blocks and over an hour old: ignored
  assert.deepEqual(evidence(10, t, { height: 111, time: t + 3601 }), []);
  assert.equal(staking.slashes.length, 0);
  assert.equal(info().tombstoned, false);
  // 101 blocks but only an hour: handled
  assert.equal(evidence(10, t, { height: 111, time: t + 3600 }).length, 2);
  assert.equal(info().tombstoned, true);
});

test('evidence of an unknown or unbonded validator is ignored', () => {
  const { staking, evidence, state } = setup();
  const writes = state.setCalls;
  assert.deepEqual(evidence(50, 10_000, { height: 52, time: 10_010 }, new Uint8Array(20).fill(1)), []);
  staking.validators[0].status = 'BOND_STATUS_UNBONDED';
  assert.deepEqual(evidence(50, 10_000, { height: 52, time: 10_010 }), []);
  assert.equal(staking.slashes.length, 0);
  assert.equal(state.setCalls, writes);
  // unbonding still answers for what it signed
  staking.validators[0].status = 'BOND_STATUS_UNBONDING';
  assert.equal(evidence(50, 10_000, { height: 52, time: 10_010 }).length, 2);
});
