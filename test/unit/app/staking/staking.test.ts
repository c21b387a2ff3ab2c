import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PubKey as Ed25519PubKey } from 'cosmjs-types/cosmos/crypto/ed25519/keys';
import {
  MsgBeginRedelegate,
  MsgCreateValidator,
  MsgDelegate,
  MsgEditValidator,
  MsgUndelegate,
} from 'cosmjs-types/cosmos/staking/v1beta1/tx';
import { Bank } from '../../../../src/app/bank.ts';
import { endBlock } from '../../../../src/app/block-hooks.ts';
import { CosmosTxError } from '../../../../src/app/cosmos-errors.ts';
import { buildGenesis, GenesisError, parseGenesis } from '../../../../src/app/genesis.ts';
import { initChainState } from '../../../../src/app/init-chain.ts';
import { MSG_KINDS } from '../../../../src/app/msg-registry.ts';
import { DEC_ONE, parseDec } from '../../../../src/app/staking/dec.ts';
import { stakingForSlashing } from '../../../../src/app/staking/for-slashing.ts';
import { writeParams, DEFAULT_STAKING_PARAMS } from '../../../../src/app/staking/params.ts';
import { BONDED_POOL, NOT_BONDED_POOL } from '../../../../src/app/staking/pools.ts';
import { StakingReader } from '../../../../src/app/staking/reader.ts';
import { consAddressOf } from '../../../../src/app/staking/records.ts';
import { accountsFromMnemonic, toAccAddress, toValoperAddress } from '../../../../src/crypto/accounts.ts';
import { StateOverlay } from '../../../../src/state/overlay.ts';

const [opA, opB, del] = accountsFromMnemonic(
  'test test test test test test test test test test test junk',
  3,
);
const keyA = new Uint8Array(32).fill(1);
const keyB = new Uint8Array(32).fill(2);
const hexAddr = (k: Uint8Array) => Buffer.from(consAddressOf(k)).toString('hex').toUpperCase();
const valA = toValoperAddress(opA.cosmosAddress);
const valB = toValoperAddress(opB.cosmosAddress);
const DAY = 86_400;
const T0 = 1_800_000_000;

/** One genesis validator (A, 10 power), B and the delegator funded with 100 tokens each. */
function chain(params: Partial<typeof DEFAULT_STAKING_PARAMS> = {}) {
  const g = buildGenesis({
    chainId: 'c',
    moniker: 'a',
    validator: {
      address: hexAddr(keyA),
      pubKeyBase64: Buffer.from(keyA).toString('base64'),
      operatorAddress: valA,
    },
    balances: [opA, opB, del].map((a) => ({ address: toAccAddress(a.cosmosAddress), uchain: 100_000_000n })),
  });
  const s = new StateOverlay({ get: () => undefined });
  initChainState(g, s);
  writeParams(s, { ...DEFAULT_STAKING_PARAMS, ...params });
  return s;
}

type Block = { height: number; time: { seconds: number; nanos: number } };
const at = (height: number, seconds = T0 + height * 5, nanos = 0): Block => ({
  height,
  time: { seconds, nanos },
});

function send(s: StateOverlay, block: Block, signer: Uint8Array, typeUrl: string, value: Uint8Array) {
  const kind = MSG_KINDS.get(typeUrl)!;
  const msg = kind.decode(value, signer, 0);
  s.checkpoint();
  try {
    const events = kind.deliver(msg, { state: s, signer, block });
    s.commit();
    return events;
  } catch (err) {
    s.revert();
    throw err;
  }
}

const dec = (text: string) => parseDec(text).toString();
const createB = (over: Partial<MsgCreateValidator> = {}) =>
  MsgCreateValidator.encode(
    MsgCreateValidator.fromPartial({
      description: { moniker: 'b' },
      commission: { rate: dec('0.1'), maxRate: dec('0.2'), maxChangeRate: dec('0.01') },
      minSelfDelegation: '1000000',
      validatorAddress: valB,
      pubkey: {
        typeUrl: '/cosmos.crypto.ed25519.PubKey',
        value: Ed25519PubKey.encode({ key: keyB }).finish(),
      },
      value: { denom: 'uchain', amount: '20000000' },
      ...over,
    }),
  ).finish();
const delegate = (val: string, amount: bigint) =>
  MsgDelegate.encode({
    delegatorAddress: toAccAddress(del.cosmosAddress),
    validatorAddress: val,
    amount: { denom: 'uchain', amount: amount.toString() },
  }).finish();
const undelegate = (val: string, amount: bigint, who = del.cosmosAddress) =>
  MsgUndelegate.encode({
    delegatorAddress: toAccAddress(who),
    validatorAddress: val,
    amount: { denom: 'uchain', amount: amount.toString() },
  }).finish();

const CREATE = '/cosmos.staking.v1beta1.MsgCreateValidator';
const DELEGATE = '/cosmos.staking.v1beta1.MsgDelegate';
const UNDELEGATE = '/cosmos.staking.v1beta1.MsgUndelegate';
const REDELEGATE = '/cosmos.staking.v1beta1.MsgBeginRedelegate';
const EDIT = '/cosmos.staking.v1beta1.MsgEditValidator';

const staking = (s: StateOverlay) => new StakingReader(s);
const bank = (s: StateOverlay) => new Bank(s);
const code =
  (re: RegExp, codespace = 'staking') =>
  (e: unknown) =>
    e instanceof CosmosTxError && e.codespace === codespace && re.test(e.message);

test('genesis: the bonded pool holds the validators tokens, counted in the supply, and last powers are the set', () => {
  const s = chain();
  assert.equal(bank(s).uchain(BONDED_POOL), 10_000_000n);
  assert.equal(bank(s).supply(), 3n * 100_000_000n + 10_000_000n);
  const d = staking(s).delegation(opA.cosmosAddress, opA.cosmosAddress)!;
  assert.equal(d.shares, '10000000.000000000000000000');
  assert.deepEqual(staking(s).lastPowers(), [
    { operator: Buffer.from(opA.cosmosAddress).toString('hex'), power: '10' },
  ]);
  // nothing changed: the first end block sends no update
  assert.deepEqual(endBlock(s, at(1)).validatorUpdates, []);
});

test('genesis: start refuses CometBFT validators that differ from the bonded set, naming both', () => {
  const g = buildGenesis({
    chainId: 'c',
    moniker: 'a',
    validator: {
      address: hexAddr(keyA),
      pubKeyBase64: Buffer.from(keyA).toString('base64'),
      operatorAddress: valA,
    },
  });
  parseGenesis(JSON.stringify(g));
  g.validators[0].power = '11';
  assert.throws(
    () => parseGenesis(JSON.stringify(g)),
    (e: unknown) =>
      e instanceof GenesisError &&
      e.message.includes(`${hexAddr(keyA)}:11`) &&
      e.message.includes(`${hexAddr(keyA)}:10`),
  );
});

test('MsgCreateValidator: an unbonded validator with its self-delegation; bonded at the end of the block', () => {
  const s = chain();
  const events = send(s, at(1), opB.cosmosAddress, CREATE, createB());
  assert.deepEqual(
    events.map((e) => e.type),
    ['coin_spent', 'coin_received', 'create_validator'],
  );
  const v = staking(s).validator(opB.cosmosAddress)!;
  assert.equal(v.status, 'BOND_STATUS_UNBONDED');
  assert.equal(v.tokens, '20000000');
  assert.equal(bank(s).uchain(NOT_BONDED_POOL), 20_000_000n);
  const end = endBlock(s, at(1));
  assert.deepEqual(end.validatorUpdates, [{ pubKey: keyB, power: 20n }]);
  assert.equal(staking(s).validator(opB.cosmosAddress)!.status, 'BOND_STATUS_BONDED');
  assert.equal(bank(s).uchain(NOT_BONDED_POOL), 0n);
  assert.equal(bank(s).uchain(BONDED_POOL), 30_000_000n);
  assert.deepEqual(
    end.events
      .filter((e) => e.type === 'transfer')
      .map((e) => e.attributes.find((a) => a.key === 'amount')!.value),
    ['20000000uchain'],
  );
});

test('MsgCreateValidator refusals', () => {
  const s = chain({ min_commission_rate: '0.050000000000000000' });
  assert.throws(() => send(s, at(1), opA.cosmosAddress, CREATE, createB()), code(/is not the signer/, 'sdk'));
  assert.throws(
    () =>
      send(
        s,
        at(1),
        opB.cosmosAddress,
        CREATE,
        createB({ commission: { rate: dec('0.3'), maxRate: dec('0.2'), maxChangeRate: dec('0.01') } }),
      ),
    code(/commission cannot be more than the max rate/),
  );
  assert.throws(
    () =>
      send(
        s,
        at(1),
        opB.cosmosAddress,
        CREATE,
        createB({ commission: { rate: dec('0.01'), maxRate: dec('0.2'), maxChangeRate: dec('0.01') } }),
      ),
    code(/less than minimum rate of 0.050000000000000000/),
  );
  assert.throws(
    () => send(s, at(1), opB.cosmosAddress, CREATE, createB({ minSelfDelegation: '30000000' })),
    code(/self delegation must be greater than their minimum/),
  );
  assert.throws(
    () =>
      send(
        s,
        at(1),
        opB.cosmosAddress,
        CREATE,
        createB({
          description: {
            moniker: 'x'.repeat(71),
            identity: '',
            website: '',
            securityContact: '',
            details: '',
          },
        }),
      ),
    code(/invalid moniker length; got: 71, max: 70/, 'sdk'),
  );
  assert.throws(
    () =>
      send(
        s,
        at(1),
        opB.cosmosAddress,
        CREATE,
        createB({ pubkey: { typeUrl: '/cosmos.crypto.secp256k1.PubKey', value: new Uint8Array(35) } }),
      ),
    code(/pubkey type is not supported/),
  );
  assert.throws(
    () =>
      send(
        s,
        at(1),
        opB.cosmosAddress,
        CREATE,
        createB({
          pubkey: {
            typeUrl: '/cosmos.crypto.ed25519.PubKey',
            value: Ed25519PubKey.encode({ key: keyA }).finish(),
          },
        }),
      ),
    code(/already exist for this pubkey/),
  );
  send(s, at(1), opB.cosmosAddress, CREATE, createB());
  assert.throws(
    () => send(s, at(1), opB.cosmosAddress, CREATE, createB()),
    code(/already exist for this operator address/),
  );
});

test('MsgEditValidator: commission once per 24 h within max_change_rate; min self delegation only grows', () => {
  const s = chain();
  send(s, at(1), opB.cosmosAddress, CREATE, createB());
  const edit = (rate: string, min = '') =>
    MsgEditValidator.encode(
      MsgEditValidator.fromPartial({
        description: {
          moniker: '[do-not-modify]',
          identity: 'id',
          website: '[do-not-modify]',
          securityContact: '[do-not-modify]',
          details: '[do-not-modify]',
        },
        validatorAddress: valB,
        commissionRate: rate,
        minSelfDelegation: min,
      }),
    ).finish();
  assert.throws(
    () => send(s, at(2), opB.cosmosAddress, EDIT, edit(dec('0.105'))),
    code(/more than once in 24h/),
  );
  const later = at(3, T0 + 5 + DAY);
  assert.throws(
    () => send(s, later, opB.cosmosAddress, EDIT, edit(dec('0.2'))),
    code(/more than max change rate/),
  );
  send(s, later, opB.cosmosAddress, EDIT, edit(dec('0.105')));
  const v = staking(s).validator(opB.cosmosAddress)!;
  assert.equal(v.commission.commission_rates.rate, '0.105000000000000000');
  assert.equal(v.description.moniker, 'b');
  assert.equal(v.description.identity, 'id');
  assert.throws(
    () => send(s, at(4, T0 + 3 * DAY), opB.cosmosAddress, EDIT, edit('', '1000000')),
    code(/cannot be decrease/),
  );
  assert.throws(
    () => send(s, at(4, T0 + 3 * DAY), opB.cosmosAddress, EDIT, edit('', '30000000')),
    code(/self delegation must be greater/),
  );
});

test('delegate after a slash: shares with the SDK rounding; undelegate completes at the exact time', () => {
  const s = chain({ unbonding_time: '100s' });
  const sl = stakingForSlashing(s, 5);
  // a third of A's 10 power: 3_333_333 tokens burned from the bonded pool
  const burned = sl.slash(consAddressOf(keyA), 5, 10n, DEC_ONE / 3n);
  assert.equal(burned, 3_333_333n);
  assert.equal(bank(s).uchain(BONDED_POOL), 6_666_667n);
  assert.equal(bank(s).supply(), 310_000_000n - 3_333_333n);
  send(s, at(6), del.cosmosAddress, DELEGATE, delegate(valA, 1_000_001n));
  // 10_000_000 shares × 1_000_001 ÷ 6_666_667 tokens, truncated to 18 places
  const shares = staking(s).delegation(del.cosmosAddress, opA.cosmosAddress)!.shares;
  assert.equal(shares, '1500001.424999928750003562');
  assert.equal(staking(s).validator(opA.cosmosAddress)!.tokens, '7666668');

  const evs = send(s, at(7, T0 + 1000), del.cosmosAddress, UNDELEGATE, undelegate(valA, 500_000n));
  const unbond = evs.find((e) => e.type === 'unbond')!;
  assert.equal(unbond.attributes.find((a) => a.key === 'completion_time')!.value, '2027-01-15T08:18:20Z');
  const ubd = staking(s).unbondingDelegation(del.cosmosAddress, opA.cosmosAddress)!;
  assert.equal(ubd.entries.length, 1);
  const amount = BigInt(ubd.entries[0].balance);
  assert.ok(amount === 499_999n || amount === 500_000n, `unbonded ${amount}`);
  assert.equal(bank(s).uchain(NOT_BONDED_POOL), amount);
  const before = bank(s).uchain(del.cosmosAddress);
  endBlock(s, at(8, T0 + 1099, 999_999_999));
  assert.equal(bank(s).uchain(del.cosmosAddress), before, 'not yet due');
  const done = endBlock(s, at(9, T0 + 1100));
  assert.equal(bank(s).uchain(del.cosmosAddress), before + amount);
  assert.ok(done.events.some((e) => e.type === 'complete_unbonding'));
  assert.equal(staking(s).unbondingDelegation(del.cosmosAddress, opA.cosmosAddress), undefined);
});

test('MsgUndelegate: max_entries; an operator below its min self delegation is jailed and leaves the set', () => {
  const s = chain({ max_entries: 2 });
  send(s, at(1), del.cosmosAddress, DELEGATE, delegate(valA, 5_000_000n));
  send(s, at(2), del.cosmosAddress, UNDELEGATE, undelegate(valA, 1_000_000n));
  send(s, at(3), del.cosmosAddress, UNDELEGATE, undelegate(valA, 1_000_000n));
  assert.throws(
    () => send(s, at(4), del.cosmosAddress, UNDELEGATE, undelegate(valA, 1_000_000n)),
    code(/too many unbonding/),
  );
  assert.throws(
    () => send(s, at(4), del.cosmosAddress, UNDELEGATE, undelegate(valA, 9_000_000n)),
    code(/invalid shares amount/),
  );
  endBlock(s, at(4));
  // A keeps 10 + 3 power; the operator takes out all but 0.5 token of its own: below its minimum of 1
  send(s, at(5), opA.cosmosAddress, UNDELEGATE, undelegate(valA, 10_000_000n, opA.cosmosAddress));
  assert.equal(staking(s).validator(opA.cosmosAddress)!.jailed, true);
  const end = endBlock(s, at(5));
  assert.deepEqual(end.validatorUpdates, [{ pubKey: keyA, power: 0n }]);
  const v = staking(s).validator(opA.cosmosAddress)!;
  assert.equal(v.status, 'BOND_STATUS_UNBONDING');
  assert.equal(bank(s).uchain(BONDED_POOL), 0n);
});

test('end block: max_validators keeps the most power; ties by operator bytes; the validator that drops out unbonds and matures', () => {
  const s = chain({ max_validators: 1, unbonding_time: '10s' });
  send(s, at(1), opB.cosmosAddress, CREATE, createB({ value: { denom: 'uchain', amount: '10000000' } }));
  const first = endBlock(s, at(1));
  const aFirst = Buffer.compare(Buffer.from(opA.cosmosAddress), Buffer.from(opB.cosmosAddress)) < 0;
  // equal power: the lower operator bytes stay (updates in operator order)
  assert.deepEqual(
    first.validatorUpdates,
    aFirst
      ? []
      : [
          { pubKey: keyB, power: 10n },
          { pubKey: keyA, power: 0n },
        ],
  );
  send(s, at(2), del.cosmosAddress, DELEGATE, delegate(valB, 5_000_000n));
  const second = endBlock(s, at(2));
  const updates = new Map(
    second.validatorUpdates.map((u) => [Buffer.from(u.pubKey).toString('hex'), u.power]),
  );
  assert.equal(updates.get(Buffer.from(keyB).toString('hex')), 15n);
  if (aFirst) assert.equal(updates.get(Buffer.from(keyA).toString('hex')), 0n);
  assert.equal(staking(s).validator(opA.cosmosAddress)!.status, 'BOND_STATUS_UNBONDING');
  endBlock(s, at(3, T0 + 10 + 9));
  assert.equal(staking(s).validator(opA.cosmosAddress)!.status, 'BOND_STATUS_UNBONDING');
  endBlock(s, at(4, T0 + 10 + 10));
  assert.equal(staking(s).validator(opA.cosmosAddress)!.status, 'BOND_STATUS_UNBONDED');
  assert.equal(bank(s).uchain(BONDED_POOL), 15_000_000n);
  assert.equal(bank(s).uchain(NOT_BONDED_POOL), 10_000_000n);
});

test('MsgBeginRedelegate: no self, no transitive; slashing the source reaches the redelegation and an unbonding entry', () => {
  const s = chain({ unbonding_time: '1000s' });
  send(s, at(1), opB.cosmosAddress, CREATE, createB());
  endBlock(s, at(1));
  send(s, at(2), del.cosmosAddress, DELEGATE, delegate(valA, 10_000_000n));
  const red = (src: string, dst: string, n: bigint) =>
    MsgBeginRedelegate.encode({
      delegatorAddress: toAccAddress(del.cosmosAddress),
      validatorSrcAddress: src,
      validatorDstAddress: dst,
      amount: { denom: 'uchain', amount: n.toString() },
    }).finish();
  assert.throws(
    () => send(s, at(3), del.cosmosAddress, REDELEGATE, red(valA, valA, 1n)),
    code(/same validator/),
  );
  send(s, at(3), del.cosmosAddress, REDELEGATE, red(valA, valB, 4_000_000n));
  assert.equal(
    staking(s).redelegation(del.cosmosAddress, opA.cosmosAddress, opB.cosmosAddress)!.entries.length,
    1,
  );
  assert.throws(
    () => send(s, at(4), del.cosmosAddress, REDELEGATE, red(valB, valA, 1_000_000n)),
    code(/already in progress/),
  );
  send(s, at(4), del.cosmosAddress, UNDELEGATE, undelegate(valA, 2_000_000n));

  const supply = bank(s).supply();
  // 10% of A's power at height 3 (20 power): 2_000_000 due; 400_000 from the redelegation, 200_000
  // from the unbonding entry, the rest from A
  const burned = stakingForSlashing(s, 6, BigInt(T0 + 30) * 1_000_000_000n).slash(
    consAddressOf(keyA),
    3,
    20n,
    DEC_ONE / 10n,
  );
  const ubd = staking(s).unbondingDelegation(del.cosmosAddress, opA.cosmosAddress)!;
  assert.equal(ubd.entries[0].balance, '1800000');
  assert.equal(staking(s).validator(opA.cosmosAddress)!.tokens, String(14_000_000 - 1_400_000));
  assert.equal(staking(s).validator(opB.cosmosAddress)!.tokens, String(24_000_000 - 400_000));
  assert.equal(burned, 2_000_000n);
  assert.equal(bank(s).supply(), supply - 2_000_000n);
});

test('stakingForSlashing: lookups, self-delegation tokens, jail and unjail', () => {
  const s = chain();
  const sl = stakingForSlashing(s, 2);
  const v = sl.validatorByConsAddr(consAddressOf(keyA))!;
  assert.deepEqual(v.operator, opA.cosmosAddress);
  assert.equal(v.status, 'BOND_STATUS_BONDED');
  assert.equal(sl.selfDelegationTokens(opA.cosmosAddress), 10_000_000n);
  assert.equal(sl.validatorByConsAddr(consAddressOf(keyB)), undefined);
  assert.equal(sl.slash(consAddressOf(keyB), 1, 10n, DEC_ONE), 0n);
  sl.jail(consAddressOf(keyA));
  assert.equal(sl.validatorByOperator(opA.cosmosAddress)!.jailed, true);
  sl.unjail(opA.cosmosAddress);
  assert.equal(sl.validatorByOperator(opA.cosmosAddress)!.jailed, false);
});
