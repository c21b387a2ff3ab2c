/**
 * eth_config's fixed parts: the precompile table is the one the chain's EVM runs, under geth's names
 * and order, and the fork hash is EIP-6122's CRC32.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getActivePrecompiles } from '@ethereumjs/evm';
import { createChainCommon } from '../../../../src/execution/chain-config.ts';
import { forkHash, PRAGUE_PRECOMPILES } from '../../../../src/rpc/evm/eth-config.ts';

test('the precompiles are exactly those the chain EVM activates', () => {
  const active = [...getActivePrecompiles(createChainCommon({ chainId: 713714n })).keys()].map(
    (a) => '0x' + a,
  );
  assert.deepEqual(Object.values(PRAGUE_PRECOMPILES).sort(), active.sort());
});

test('the precompiles are keyed and ordered as geth writes them', () => {
  const names = Object.keys(PRAGUE_PRECOMPILES);
  assert.deepEqual(names, [...names].sort());
  assert.equal(PRAGUE_PRECOMPILES.ECREC, '0x0000000000000000000000000000000000000001');
  assert.equal(PRAGUE_PRECOMPILES.KZG_POINT_EVALUATION, '0x000000000000000000000000000000000000000a');
  assert.equal(PRAGUE_PRECOMPILES.BLS12_MAP_FP2_TO_G2, '0x0000000000000000000000000000000000000011');
  assert.equal(PRAGUE_PRECOMPILES.P256VERIFY, undefined, 'an Osaka precompile');
});

test('the fork hash of a chain with no fork after genesis is the CRC32 of its genesis hash', () => {
  // EIP-2124's first mainnet vector: the unsynced mainnet node's fork hash is 0xfc64ec04.
  const mainnetGenesis = Buffer.from(
    'd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3',
    'hex',
  );
  assert.equal(Buffer.from(forkHash(mainnetGenesis)).toString('hex'), 'fc64ec04');
});
