import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Auth, decodeAccount, encodeAccount } from '../../../src/app/auth.ts';
import { Bank } from '../../../src/app/bank.ts';
import { EMPTY_CODE_HASH, Evm, FEE_COLLECTOR_ADDRESS } from '../../../src/app/evm.ts';
import { buildGenesis } from '../../../src/app/genesis.ts';
import { initChainState } from '../../../src/app/init-chain.ts';
import { StakingReader } from '../../../src/app/staking/reader.ts';
import { consAddressOf } from '../../../src/app/staking/records.ts';
import { accountsFromMnemonic, toAccAddress, toValoperAddress } from '../../../src/crypto/accounts.ts';
import { StateOverlay } from '../../../src/state/overlay.ts';

const empty = () => new StateOverlay({ get: () => undefined });
const addr = (n: number) => new Uint8Array(20).fill(n);

test('bank keeps uchain plus a wei remainder and deletes zero balances', () => {
  const s = empty();
  const bank = new Bank(s);
  bank.setWei(addr(1), 3_000_000_000_123n);
  assert.equal(bank.uchain(addr(1)), 3n);
  assert.equal(bank.wei(addr(1)), 3_000_000_000_123n);
  bank.transferWei(addr(1), addr(2), 1_000_000_000_124n);
  assert.equal(bank.wei(addr(1)), 1_999_999_999_999n);
  assert.equal(bank.uchain(addr(1)), 1n);
  assert.equal(bank.wei(addr(2)), 1_000_000_000_124n);
  assert.throws(
    () => bank.subWei(addr(2), 1_000_000_000_125n),
    /insufficient funds: balance 1000000000124 wei, need 1000000000125 wei/,
  );
  bank.subWei(addr(2), 1_000_000_000_124n);
  assert.deepEqual(
    s
      .changes()
      .find((c) => c.store === 'bank')!
      .writes.filter((w) => w.value !== undefined).length,
    2,
  );
});

test('accounts round-trip as Any(BaseAccount) and get increasing numbers', () => {
  const s = empty();
  const auth = new Auth(s);
  assert.equal(auth.ensureAccount(addr(1)).accountNumber, 0n);
  assert.equal(auth.ensureAccount(addr(2)).accountNumber, 1n);
  assert.equal(auth.ensureAccount(addr(1)).accountNumber, 0n);
  const rec = { address: addr(3), accountNumber: 7n, sequence: 9n, pubKey: new Uint8Array(33).fill(2) };
  assert.deepEqual(decodeAccount(addr(3), encodeAccount(rec)), rec);
});

test('evm storage, code and nonces; zero values leave no keys', () => {
  const s = empty();
  const evm = new Evm(s);
  assert.deepEqual(evm.codeHash(addr(1)), EMPTY_CODE_HASH);
  evm.setCode(addr(1), Uint8Array.of(0x60, 0x00));
  assert.equal(evm.hasCode(addr(1)), true);
  evm.setStorage(addr(1), new Uint8Array(32), Uint8Array.of(5));
  assert.equal(evm.storage(addr(1), new Uint8Array(32))[31], 5);
  evm.setStorage(addr(1), new Uint8Array(32), new Uint8Array(32));
  evm.setNonce(addr(1), 0n);
  const evmWrites = s.changes().find((c) => c.store === 'evm')!.writes;
  assert.equal(evmWrites.filter((w) => w.value !== undefined).length, 2, 'only code and code hash remain');
  assert.equal(FEE_COLLECTOR_ADDRESS.length, 20);
});

test('genesis import: balances, supply, associations, validators', () => {
  const [a, b] = accountsFromMnemonic('test test test test test test test test test test test junk', 2);
  const g = buildGenesis({
    chainId: 'c',
    moniker: 'm',
    validator: {
      address: Buffer.from(consAddressOf(new Uint8Array(32)))
        .toString('hex')
        .toUpperCase(),
      pubKeyBase64: Buffer.alloc(32).toString('base64'),
      operatorAddress: toValoperAddress(a.cosmosAddress),
    },
    balances: [
      { address: toAccAddress(a.cosmosAddress), uchain: 5n },
      { address: toAccAddress(b.cosmosAddress), uchain: 7n },
    ],
  });
  g.app_state.evm.address_associations = [
    { evm_address: Buffer.from(a.evmAddress).toString('hex'), cosmos_address: toAccAddress(a.cosmosAddress) },
  ];
  const s = empty();
  initChainState(g, s);
  const bank = new Bank(s);
  const evm = new Evm(s);
  assert.equal(bank.wei(a.cosmosAddress), 5n * 10n ** 12n);
  assert.equal(bank.supply(), 10_000_012n, 'the accounts and the bonded pool');
  assert.deepEqual(evm.balanceAddressOf(a.evmAddress), a.cosmosAddress);
  assert.deepEqual(evm.balanceAddressOf(b.evmAddress), b.evmAddress, 'unassociated: the cast');
  assert.equal(new StakingReader(s).validators()[0].description.moniker, 'm');
  assert.equal(new StakingReader(s).validatorByBech32(toValoperAddress(a.cosmosAddress))!.tokens, '10000000');
});
