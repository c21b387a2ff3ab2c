/**
 * What the operator types: amounts, rates and gas prices; the key files; and the defaults a home
 * gives (node URL, gas price). Each bad input is refused with a message naming the flag.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  feeFor,
  parseCoin,
  parseGasPrice,
  parsePositiveInteger,
  parseRate,
} from '../../../../src/cli/tx/amounts.ts';
import { homeDefaults } from '../../../../src/cli/tx/node-settings.ts';
import { keyAddresses, loadOperatorKey } from '../../../../src/cli/tx/operator-key.ts';
import { accountsFromMnemonic, toAccAddress } from '../../../../src/crypto/accounts.ts';

const MNEMONIC = 'test test test test test test test test test test test junk';

test('rates are LegacyDec atomics (18 places) between 0 and 1', () => {
  assert.equal(parseRate('0.1', 'r'), '100000000000000000');
  assert.equal(parseRate('0.10', 'r'), '100000000000000000');
  assert.equal(parseRate('1', 'r'), '1000000000000000000');
  assert.equal(parseRate('0', 'r'), '0');
  assert.equal(parseRate('0.000000000000000001', 'r'), '1');
  assert.throws(() => parseRate('1.01', '--commission-rate'), /--commission-rate: a rate is at most 1/);
  assert.throws(() => parseRate('0.0000000000000000001', '--x'), /--x: expected a decimal with at most 18/);
  assert.throws(() => parseRate('-0.1', '--x'), /--x: expected a decimal/);
  assert.throws(() => parseRate('10%', '--x'), /--x: expected a decimal/);
});

test('amounts are positive integers of uchain; fees round up', () => {
  assert.equal(parseCoin('1000000uchain', '--amount'), 1_000_000n);
  assert.throws(() => parseCoin('1000000', '--amount'), /--amount: expected a positive amount of uchain/);
  assert.throws(() => parseCoin('1.5uchain', '--amount'), /--amount/);
  assert.throws(() => parseCoin('0uchain', '--amount'), /--amount/);
  assert.throws(() => parseCoin('5stake', '--amount'), /--amount/);
  assert.equal(parsePositiveInteger('1', 'm'), '1');
  assert.throws(() => parsePositiveInteger('0', '--min-self-delegation'), /--min-self-delegation/);
  const price = parseGasPrice('0.001uchain', '--gas-prices');
  assert.equal(feeFor(200_000n, price), 200n);
  assert.equal(feeFor(200_001n, price), 201n);
  assert.equal(feeFor(5n, parseGasPrice('0uchain', 'p')), 0n);
  assert.throws(() => parseGasPrice('0.001stake', '--gas-prices'), /--gas-prices: expected a gas price/);
});

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'chaind-cli-tx-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('the operator key from a hex key file or a mnemonic file on an HD path', (t) => {
  const dir = tempDir(t);
  const dev = accountsFromMnemonic(MNEMONIC, 2);
  writeFileSync(join(dir, 'mnemonic'), `  ${MNEMONIC}\n`);
  writeFileSync(join(dir, 'key'), `0x${Buffer.from(dev[1].privateKey).toString('hex')}\n`);
  const fromMnemonic = loadOperatorKey({ mnemonicFile: join(dir, 'mnemonic') });
  assert.deepEqual(fromMnemonic.cosmosAddress, dev[0].cosmosAddress);
  const second = loadOperatorKey({ mnemonicFile: join(dir, 'mnemonic'), hdPath: "m/44'/60'/0'/0/1" });
  assert.deepEqual(second.cosmosAddress, dev[1].cosmosAddress);
  assert.deepEqual(loadOperatorKey({ keyFile: join(dir, 'key') }).cosmosAddress, dev[1].cosmosAddress);
  const shown = keyAddresses(fromMnemonic);
  assert.equal(shown.address, toAccAddress(dev[0].cosmosAddress));
  assert.match(shown.valoper, /^chainvaloper1/);
  assert.equal(shown.evm_address, '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');

  assert.throws(() => loadOperatorKey({}), /exactly one of --from-key-file/);
  assert.throws(
    () => loadOperatorKey({ keyFile: join(dir, 'key'), mnemonicFile: join(dir, 'mnemonic') }),
    /exactly one of/,
  );
  assert.throws(
    () => loadOperatorKey({ keyFile: join(dir, 'missing') }),
    /--from-key-file .*missing.*ENOENT/,
  );
  writeFileSync(join(dir, 'short'), 'abcd');
  assert.throws(() => loadOperatorKey({ keyFile: join(dir, 'short') }), /64 hex digits/);
  writeFileSync(join(dir, 'bad-mnemonic'), 'test test test');
  assert.throws(() => loadOperatorKey({ mnemonicFile: join(dir, 'bad-mnemonic') }), /not a valid BIP-39/);
  assert.throws(
    () => loadOperatorKey({ mnemonicFile: join(dir, 'mnemonic'), hdPath: 'x/1' }),
    /--hd-path "x\/1"/,
  );
});

test("a home's [rpc] laddr and minimum-gas-prices are the defaults; no home gives the built-in ones", (t) => {
  const home = tempDir(t);
  assert.deepEqual(homeDefaults(home), { nodeUrl: 'http://127.0.0.1:26657', gasPrice: '0.001uchain' });
  mkdirSync(join(home, 'config'));
  writeFileSync(join(home, 'config', 'config.toml'), '[rpc]\nladdr = "tcp://0.0.0.0:36657"\n');
  writeFileSync(join(home, 'config', 'app.toml'), 'minimum-gas-prices = "0.0025uchain"\n');
  assert.deepEqual(homeDefaults(home), { nodeUrl: 'http://127.0.0.1:36657', gasPrice: '0.0025uchain' });
});
