/**
 * REST module queries (staking, bank, auth) through HTTP against a running node: exact
 * grpc-gateway shapes, pagination, the status filter, 404/400 error bodies, the height header.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AuthReader } from '../../../src/app/auth.ts';
import type { StakingValidator } from '../../../src/app/genesis.ts';
import { fromBech32, toAccAddress, toValoperAddress } from '../../../src/crypto/accounts.ts';
import { DEV_ACCOUNTS, until } from '../../helpers/node.ts';
import { get, type RestNode, startRestNode } from './helpers.ts';

const PUBKEY = (fill: number) => Buffer.alloc(32, fill).toString('base64');

function stakingValidator(
  operator: Uint8Array,
  fill: number,
  over: Partial<StakingValidator>,
): StakingValidator {
  return {
    operator_address: toValoperAddress(operator),
    consensus_pubkey: { '@type': '/cosmos.crypto.ed25519.PubKey', key: PUBKEY(fill) },
    jailed: false,
    status: 'BOND_STATUS_BONDED',
    tokens: '5000000',
    delegator_shares: '5000000.5',
    description: {
      moniker: `v${fill}`,
      identity: 'ID',
      website: 'https://example.org',
      security_contact: 'sec@example.org',
      details: 'details',
    },
    commission: {
      commission_rates: { rate: '0.05', max_rate: '0.5', max_change_rate: '0.01' },
      update_time: '2026-01-02T03:04:05.5Z',
    },
    min_self_delegation: '7',
    ...over,
  };
}

// jailed, so not bonded: a bonded validator that is jailed would leave the set at the end of the first block
const SECOND = stakingValidator(DEV_ACCOUNTS[1].cosmosAddress, 1, {
  jailed: true,
  status: 'BOND_STATUS_UNBONDED',
});
// below one unit of power, so the end of a block does not bond it
const THIRD = stakingValidator(DEV_ACCOUNTS[2].cosmosAddress, 2, {
  status: 'BOND_STATUS_UNBONDED',
  tokens: '999999',
});

/** What the gateway prints for SECOND: decimals with 18 digits, timestamps in RFC 3339, defaults present. */
const SECOND_JSON = {
  operator_address: SECOND.operator_address,
  consensus_pubkey: { '@type': '/cosmos.crypto.ed25519.PubKey', key: PUBKEY(1) },
  jailed: true,
  status: 'BOND_STATUS_UNBONDED',
  tokens: '5000000',
  delegator_shares: '5000000.500000000000000000',
  description: {
    moniker: 'v1',
    identity: 'ID',
    website: 'https://example.org',
    security_contact: 'sec@example.org',
    details: 'details',
  },
  unbonding_height: '0',
  unbonding_time: '1970-01-01T00:00:00Z',
  commission: {
    commission_rates: {
      rate: '0.050000000000000000',
      max_rate: '0.500000000000000000',
      max_change_rate: '0.010000000000000000',
    },
    update_time: '2026-01-02T03:04:05.500Z',
  },
  min_self_delegation: '7',
  unbonding_on_hold_ref_count: '0',
  unbonding_ids: [],
};

/** Operator addresses in store order (by address bytes), as the SDK lists validators. */
const byOperator = (vs: { operator_address: string }[]) =>
  vs
    .map((v) => v.operator_address)
    .sort((a, b) => Buffer.compare(fromBech32(a, 'chainvaloper'), fromBech32(b, 'chainvaloper')));

const VALIDATORS = '/cosmos/staking/v1beta1/validators';

test('REST module queries', async (t) => {
  const n: RestNode = await startRestNode(t, [SECOND, THIRD]);
  const all = byOperator(n.genesisValidators);

  await t.test('the service logs its address under module=rpc', () => {
    const line = n.logs.find((l) => l.msg === 'REST API listening');
    assert.ok(line, 'REST API listening is logged');
    assert.equal(line.fields.module, 'rpc');
    assert.match(String(line.fields.address), /^tcp:\/\/127\.0\.0\.1:\d+$/);
  });

  await t.test('validators: every field, in store order, with the pagination total', async () => {
    const r = await get(n.url, VALIDATORS);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'application/json');
    assert.deepEqual(
      r.body.validators.map((v: any) => v.operator_address),
      all,
    );
    assert.deepEqual(r.body.pagination, { next_key: null, total: '3' });
    assert.deepEqual(
      r.body.validators.find((v: any) => v.operator_address === SECOND.operator_address),
      SECOND_JSON,
    );
    const own = r.body.validators.find(
      (v: any) => v.operator_address === toValoperAddress(DEV_ACCOUNTS[0].cosmosAddress),
    );
    const g = n.genesisValidators[0];
    assert.deepEqual(own, {
      operator_address: g.operator_address,
      consensus_pubkey: { '@type': '/cosmos.crypto.ed25519.PubKey', key: g.consensus_pubkey.key },
      jailed: false,
      status: 'BOND_STATUS_BONDED',
      tokens: '10000000',
      delegator_shares: '10000000.000000000000000000',
      description: { moniker: 'it', identity: '', website: '', security_contact: '', details: '' },
      unbonding_height: '0',
      unbonding_time: '1970-01-01T00:00:00Z',
      commission: {
        commission_rates: {
          rate: '0.100000000000000000',
          max_rate: '0.200000000000000000',
          max_change_rate: '0.010000000000000000',
        },
        update_time: '2026-01-01T00:00:00Z',
      },
      min_self_delegation: '1',
      unbonding_on_hold_ref_count: '0',
      unbonding_ids: [],
    });
  });

  await t.test('validators: limit, key, offset, reverse, count_total', async () => {
    const first = await get(n.url, `${VALIDATORS}?pagination.limit=2`);
    assert.deepEqual(
      first.body.validators.map((v: any) => v.operator_address),
      all.slice(0, 2),
    );
    assert.equal(first.body.pagination.total, '3');
    assert.equal(typeof first.body.pagination.next_key, 'string');
    const next = await get(
      n.url,
      `${VALIDATORS}?pagination.limit=2&pagination.key=${encodeURIComponent(first.body.pagination.next_key)}`,
    );
    assert.deepEqual(
      next.body.validators.map((v: any) => v.operator_address),
      all.slice(2),
    );
    assert.deepEqual(next.body.pagination, { next_key: null, total: '0' }, 'total only on request');
    const counted = await get(
      n.url,
      `${VALIDATORS}?pagination.key=${encodeURIComponent(first.body.pagination.next_key)}&pagination.count_total=true`,
    );
    assert.equal(counted.body.pagination.total, '3');
    const offset = await get(n.url, `${VALIDATORS}?pagination.offset=1&pagination.limit=1`);
    assert.deepEqual(
      offset.body.validators.map((v: any) => v.operator_address),
      [all[1]],
    );
    const reverse = await get(n.url, `${VALIDATORS}?pagination.reverse=true`);
    assert.deepEqual(
      reverse.body.validators.map((v: any) => v.operator_address),
      [...all].reverse(),
    );
    const both = await get(n.url, `${VALIDATORS}?pagination.offset=1&pagination.key=AQ==`);
    assert.equal(both.status, 400);
    assert.deepEqual(both.body, {
      code: 3,
      message: 'either offset or key is expected, got both',
      details: [],
    });
    for (const bad of ['pagination.limit=ten', 'pagination.reverse=maybe', 'pagination.key=%25%25']) {
      const r = await get(n.url, `${VALIDATORS}?${bad}`);
      assert.equal(r.status, 400, bad);
      assert.equal(r.body.code, 3, bad);
      assert.match(r.body.message, new RegExp(bad.split('=')[0].replace('.', '\\.')), bad);
    }
  });

  await t.test('validators: the status filter', async () => {
    const bonded = await get(n.url, `${VALIDATORS}?status=BOND_STATUS_BONDED`);
    assert.deepEqual(
      bonded.body.validators.map((v: any) => v.operator_address),
      all.filter((a) => a !== THIRD.operator_address && a !== SECOND.operator_address),
    );
    assert.equal(bonded.body.pagination.total, '1');
    const unbonded = await get(n.url, `${VALIDATORS}?status=BOND_STATUS_UNBONDED`);
    assert.deepEqual(
      unbonded.body.validators.map((v: any) => v.operator_address),
      all.filter((a) => a === THIRD.operator_address || a === SECOND.operator_address),
    );
    const unbonding = await get(n.url, `${VALIDATORS}?status=BOND_STATUS_UNBONDING`);
    assert.deepEqual(unbonding.body, { validators: [], pagination: { next_key: null, total: '0' } });
    const bad = await get(n.url, `${VALIDATORS}?status=ACTIVE`);
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body, { code: 3, message: 'invalid validator status ACTIVE', details: [] });
  });

  await t.test('one validator; an absent one is 404 code 5; a malformed address 400 code 3', async () => {
    const one = await get(n.url, `${VALIDATORS}/${SECOND.operator_address}`);
    assert.equal(one.status, 200);
    assert.deepEqual(one.body, { validator: SECOND_JSON });
    const absent = toValoperAddress(DEV_ACCOUNTS[9].cosmosAddress);
    const missing = await get(n.url, `${VALIDATORS}/${absent}`);
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, { code: 5, message: `validator ${absent} not found`, details: [] });
    const wrongPrefix = await get(n.url, `${VALIDATORS}/${toAccAddress(DEV_ACCOUNTS[1].cosmosAddress)}`);
    assert.equal(wrongPrefix.status, 400);
    assert.equal(wrongPrefix.body.code, 3);
    assert.match(wrongPrefix.body.message, /^invalid address "chain1/);
  });

  await t.test('balances of an account, with pagination; an empty account; a bad address', async () => {
    const addr = toAccAddress(DEV_ACCOUNTS[3].cosmosAddress);
    const r = await get(n.url, `/cosmos/bank/v1beta1/balances/${addr}`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, {
      balances: [{ denom: 'uchain', amount: '10000000000' }],
      pagination: { next_key: null, total: '1' },
    });
    const byDenom = await get(n.url, `/cosmos/bank/v1beta1/balances/${addr}/by_denom?denom=uchain`);
    assert.deepEqual(byDenom.body, { balance: { denom: 'uchain', amount: '10000000000' } });
    const limited = await get(n.url, `/cosmos/bank/v1beta1/balances/${addr}?pagination.limit=1`);
    assert.deepEqual(limited.body.pagination, { next_key: null, total: '1' });
    const empty = toAccAddress(Uint8Array.from(Buffer.alloc(20, 0x77)));
    const none = await get(n.url, `/cosmos/bank/v1beta1/balances/${empty}`);
    assert.deepEqual(none.body, { balances: [], pagination: { next_key: null, total: '0' } });
    const bad = await get(n.url, '/cosmos/bank/v1beta1/balances/chain1notanaddress');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 3);
    assert.match(bad.body.message, /^invalid address "chain1notanaddress": /);
    assert.deepEqual(bad.body.details, []);
  });

  await t.test('accounts: a BaseAccount as an Any; absent 404; bad address 400', async () => {
    const acct = DEV_ACCOUNTS[4];
    const addr = toAccAddress(acct.cosmosAddress);
    const r = await get(n.url, `/cosmos/auth/v1beta1/accounts/${addr}`);
    assert.equal(r.status, 200);
    const number = new AuthReader(n.node.modules.chain.state).account(acct.cosmosAddress)!.accountNumber;
    assert.deepEqual(r.body, {
      account: {
        '@type': '/cosmos.auth.v1beta1.BaseAccount',
        address: addr,
        pub_key: null,
        account_number: String(number),
        sequence: '0',
      },
    });
    const empty = toAccAddress(Uint8Array.from(Buffer.alloc(20, 0x77)));
    const missing = await get(n.url, `/cosmos/auth/v1beta1/accounts/${empty}`);
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body, { code: 5, message: `account ${empty} not found`, details: [] });
    const bad = await get(n.url, `/cosmos/auth/v1beta1/accounts/${addr.slice(0, -1)}x`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 3);
  });

  await t.test('x-cosmos-block-height: echoed; malformed, future and zero heights', async () => {
    await until(() => n.node.modules.chain.latestHeight >= 1);
    const latest = await get(n.url, VALIDATORS);
    const served = Number(latest.headers.get('x-cosmos-block-height'));
    assert.ok(served >= 1, 'the latest height is echoed when no header is sent');
    const at = await get(n.url, VALIDATORS, { 'x-cosmos-block-height': '1' });
    assert.equal(at.status, 200);
    assert.equal(at.headers.get('x-cosmos-block-height'), '1');
    assert.equal(at.body.validators.length, 3);
    const zero = await get(n.url, VALIDATORS, { 'x-cosmos-block-height': '0' });
    assert.ok(Number(zero.headers.get('x-cosmos-block-height')) >= served, '0 means latest');
    const future = await get(n.url, VALIDATORS, { 'x-cosmos-block-height': '99999999' });
    assert.equal(future.status, 400);
    assert.equal(future.body.code, 3);
    assert.match(
      future.body.message,
      /^cannot query with height in the future; please provide a valid height: height 99999999 is above the latest height \d+$/,
    );
    const bad = await get(n.url, VALIDATORS, { 'x-cosmos-block-height': '-1' });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body, {
      code: 3,
      message: 'invalid height header "x-cosmos-block-height": "-1" is not a non-negative integer',
      details: [],
    });
  });
});
