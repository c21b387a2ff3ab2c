import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildGenesis, GenesisError, parseGenesis, rfc3339Nano } from '../../../src/app/genesis.ts';
import { consAddressOf } from '../../../src/app/staking/records.ts';
import { toValoperAddress } from '../../../src/crypto/accounts.ts';

const PUBKEY = new Uint8Array(32);
const CONS_ADDRESS = Buffer.from(consAddressOf(PUBKEY)).toString('hex').toUpperCase();

const base = () =>
  buildGenesis({
    chainId: 'g-1',
    moniker: 'm',
    genesisTime: new Date('2026-01-02T03:04:05.678Z'),
    validator: {
      address: CONS_ADDRESS,
      pubKeyBase64: Buffer.from(PUBKEY).toString('base64'),
      operatorAddress: toValoperAddress(new Uint8Array(20).fill(7)),
    },
    balances: [
      { address: 'chain1abc', uchain: 5n },
      { address: 'chain1def', uchain: 7n },
    ],
  });

test('built genesis parses back and sums the supply', () => {
  const g = parseGenesis(JSON.stringify(base()));
  assert.equal(g.genesis_time, '2026-01-02T03:04:05.678000000Z');
  // 12 in accounts and the bonded pool's 10 power worth of tokens
  assert.deepEqual(g.app_state.bank.supply, [{ denom: 'uchain', amount: '10000012' }]);
  assert.equal(g.app_state.evm.params.chain_id, '713714');
});

test('each invalid field is named', () => {
  const cases: [(g: any) => void, RegExp][] = [
    [(g) => (g.chain_id = ''), /chain_id: must be 1-50 characters/],
    [(g) => (g.genesis_time = 'yesterday'), /genesis_time: must be an RFC 3339 time/],
    [(g) => (g.initial_height = '0'), /initial_height: must be a positive integer string/],
    [(g) => (g.validators = []), /validators: must list at least one validator/],
    [(g) => (g.validators[0].address = 'abc'), /validators\[0\]\.address: must be 40 upper-case hex/],
    [(g) => (g.validators[0].power = '0'), /validators\[0\]\.power: must be a positive integer string/],
    [(g) => delete g.app_state.bank, /app_state\.bank: is missing/],
    [
      (g) => (g.app_state.evm.params.chain_id = '0'),
      /app_state\.evm\.params\.chain_id: must be a positive integer/,
    ],
    [
      (g) => (g.app_state.bank.balances[1].coins[0].denom = 'atom'),
      /app_state\.bank\.balances\[1\]\.coins\[0\]\.denom: must be "uchain"/,
    ],
    [
      (g) => (g.consensus_params.block.max_gas = 'lots'),
      /consensus_params\.block\.max_gas: must be an integer string/,
    ],
  ];
  for (const [mutate, re] of cases) {
    const g: any = base();
    mutate(g);
    assert.throws(
      () => parseGenesis(JSON.stringify(g), 'gen.json'),
      (e: unknown) => e instanceof GenesisError && /^gen\.json: /.test(e.message) && re.test(e.message),
    );
  }
  assert.throws(() => parseGenesis('{', 'gen.json'), /^GenesisError: gen\.json: invalid JSON/);
});

test('times are written with nanosecond precision like CometBFT', () => {
  assert.equal(rfc3339Nano(new Date('2020-01-01T00:00:00Z')), '2020-01-01T00:00:00.000000000Z');
});
