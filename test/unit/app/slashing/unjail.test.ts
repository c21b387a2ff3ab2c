import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MsgUnjail } from 'cosmjs-types/cosmos/slashing/v1beta1/tx';
import { CosmosTxError } from '../../../../src/app/cosmos-errors.ts';
import { afterValidatorBonded } from '../../../../src/app/slashing/bonded.ts';
import { DOUBLE_SIGN_JAIL_END, SigningInfos } from '../../../../src/app/slashing/signing-info.ts';
import {
  decodeMsgUnjail,
  deliverMsgUnjail,
  MSG_UNJAIL_TYPE_URL,
} from '../../../../src/app/slashing/unjail.ts';
import { toValoperAddress } from '../../../../src/crypto/accounts.ts';
import { CountingState, FakeStaking } from './fake-staking.ts';

const CONS = new Uint8Array(20).fill(0xaa);
const OPERATOR = new Uint8Array(20).fill(0x11);
const VALOPER = toValoperAddress(OPERATOR);
const any = (validatorAddr: string) => ({
  typeUrl: MSG_UNJAIL_TYPE_URL,
  value: MsgUnjail.encode({ validatorAddr }).finish(),
});

function setup() {
  const state = new CountingState();
  const staking = new FakeStaking();
  const validator = staking.add({
    consAddress: CONS,
    operator: OPERATOR,
    jailed: true,
    minSelfDelegation: 5n,
  });
  afterValidatorBonded(state, CONS, 0);
  const infos = new SigningInfos(state);
  infos.set({ ...infos.get(CONS)!, jailedUntil: { seconds: 1_000, nanos: 500 } });
  const unjail = (seconds: number, nanos = 0) =>
    deliverMsgUnjail(
      decodeMsgUnjail(any(VALOPER), OPERATOR),
      state,
      { height: 9, time: { seconds, nanos } },
      staking,
    );
  return { state, staking, validator, infos, unjail };
}

/** Asserts the call throws the SDK error of `codespace`/`code` whose log matches `log`. */
function refused(fn: () => unknown, codespace: string, code: number, log: RegExp) {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof CosmosTxError, String(err));
    assert.equal(err.codespace, codespace);
    assert.equal(err.abciCode, code);
    assert.match(err.message, log);
    return true;
  });
}

test('decoding: the validator address must be a valoper and its operator must sign', () => {
  assert.deepEqual(decodeMsgUnjail(any(VALOPER), OPERATOR), { validatorAddr: VALOPER, operator: OPERATOR });
  refused(() => decodeMsgUnjail(any(''), OPERATOR), 'sdk', 7, /empty validator address/);
  refused(() => decodeMsgUnjail(any('chain1xyz'), OPERATOR), 'sdk', 7, /validator address "chain1xyz"/);
  refused(() => decodeMsgUnjail(any(VALOPER), CONS), 'sdk', 4, /must be signed by its operator/);
  refused(
    () => decodeMsgUnjail({ typeUrl: MSG_UNJAIL_TYPE_URL, value: Uint8Array.of(0x0a, 0x05) }, OPERATOR),
    'sdk',
    2,
    /MsgUnjail/,
  );
});

test('MsgUnjail refuses an unknown validator, a missing or low self-delegation, and a validator not jailed', () => {
  const { staking, validator, unjail } = setup();
  staking.selfDelegation.delete(Buffer.from(OPERATOR).toString('hex'));
  refused(() => unjail(2_000), 'slashing', 6, /no self-delegation/);
  staking.selfDelegation.set(Buffer.from(OPERATOR).toString('hex'), 4n);
  refused(
    () => unjail(2_000),
    'slashing',
    7,
    /^4 less than 5: validator's self delegation less than minimum/,
  );
  staking.selfDelegation.set(Buffer.from(OPERATOR).toString('hex'), 5n);
  validator.jailed = false;
  refused(() => unjail(2_000), 'slashing', 5, /validator not jailed/);
  staking.validators.pop();
  refused(() => unjail(2_000), 'slashing', 2, /address is not associated with any known validator/);
});

test('MsgUnjail refuses a tombstoned validator, and one before its jail time is over', () => {
  const { staking, infos, unjail, validator } = setup();
  refused(() => unjail(999), 'slashing', 4, /jailed until .*: validator still jailed/);
  refused(() => unjail(1_000, 499), 'slashing', 4, /validator still jailed/);
  infos.set({ ...infos.get(CONS)!, tombstoned: true, jailedUntil: DOUBLE_SIGN_JAIL_END });
  refused(() => unjail(1_000, 500), 'slashing', 4, /tombstoned: validator still jailed/);
  assert.equal(validator.jailed, true);
  assert.equal(staking.validators[0].jailed, true);
});

test('MsgUnjail unjails once the jail time is over, and a validator never bonded at any time', () => {
  const { validator, unjail, state, staking } = setup();
  assert.deepEqual(unjail(1_000, 500), []);
  assert.equal(validator.jailed, false);
  const other = staking.add({
    consAddress: new Uint8Array(20).fill(2),
    operator: new Uint8Array(20).fill(3),
    jailed: true,
  });
  deliverMsgUnjail(
    decodeMsgUnjail(any(toValoperAddress(other.operator)), other.operator),
    state,
    { height: 9, time: { seconds: 0, nanos: 0 } },
    staking,
  );
  assert.equal(other.jailed, false);
});
