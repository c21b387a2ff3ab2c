/**
 * CheckTx: CometBFT's mempool admits a tx only when the application does. An Ethereum tx arrives
 * wrapped in a Cosmos TxRaw; a refusal carries the EVM mempool's code, geth's words in `log` and the
 * reason in `info` and `data`. After a block CometBFT rechecks what it still holds.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { CheckTxType } from 'cosmjs-types/tendermint/abci/types';
import { toAccAddress } from '../../../src/crypto/accounts.ts';
import { unwrapEthTransaction, wrapEthTransaction } from '../../../src/execution/tx-wrap.ts';
import { DEV_ACCOUNTS, makeHome } from '../../helpers/node.ts';
import {
  cosmosSend,
  decidedBlock,
  ethTx,
  GENESIS_SECONDS,
  openAbciApp,
  wallets,
  wrappedEthTx,
} from './helpers.ts';

const EMPTY = new Uint8Array(0);
const utf8 = (s: string) => new TextEncoder().encode(s);

/** CheckTx's answer to a refused Ethereum tx: the mempool's reason also in `data` (broadcasts pass it on). */
const refused = (code: number, log: string, reason: string) => ({
  code,
  data: utf8(reason),
  log,
  info: reason,
  gasWanted: 0n,
  gasUsed: 0n,
  events: [],
  codespace: 'sdk',
});

test('CheckTx admits a new signed Ethereum tx wrapped in a TxRaw: code 0, gas_wanted its gas limit', async (t) => {
  const h = await openAbciApp(makeHome(t));
  t.after(() => h.close());
  const raw = await ethTx(wallets[0], { nonce: 0, gasLimit: 50_000n });
  const res = await h.call('checkTx', { tx: wrapEthTransaction(raw), type: CheckTxType.NEW });
  assert.deepEqual(res, {
    code: 0,
    data: EMPTY,
    log: '',
    info: '',
    gasWanted: 50_000n,
    gasUsed: 0n,
    events: [],
    codespace: '',
  });
  assert.equal(h.mempool.isPending(keccak_256(raw)), true, 'the EVM mempool holds it, executable');

  // a Cosmos tx goes to the Cosmos pool
  const acc = DEV_ACCOUNTS[1];
  const send = await cosmosSend(acc.privateKey, toAccAddress(DEV_ACCOUNTS[2].cosmosAddress), 1n, {
    sequence: 0n,
    accountNumber: 1n,
  });
  const cosmos = await h.call('checkTx', { tx: send });
  assert.equal(cosmos.code, 0, cosmos.log);
  assert.equal(cosmos.gasWanted, 200_000n);
  assert.equal(h.cosmosPool.size, 1);
});

test('CheckTx refuses a bad tx with a non-zero code and geth’s words: another chain id, a used nonce, no funds, garbage', async (t) => {
  const h = await openAbciApp(makeHome(t));
  t.after(() => h.close());
  // block 1 uses wallet 0's nonce 0
  const first = await wrappedEthTx(wallets[0], { nonce: 0 });
  assert.equal((await h.call('checkTx', { tx: first })).code, 0);
  const [result] = (await decidedBlock(h, 1, GENESIS_SECONDS + 5, [first])).txResults;
  assert.equal(result.code, 0);

  const check = async (tx: Uint8Array) => h.call('checkTx', { tx, type: CheckTxType.NEW });
  assert.deepEqual(
    await check(await wrappedEthTx(wallets[1], { nonce: 0, chainId: 1n })),
    refused(18, 'invalid chain id: have 1 want 713714', 'invalid_chain_id'),
  );
  assert.deepEqual(
    await check(await wrappedEthTx(wallets[0], { nonce: 0, value: 2n })),
    refused(32, 'nonce too low: next nonce 1, tx nonce 0', 'nonce_too_low'),
  );
  assert.deepEqual(
    await check(await wrappedEthTx(wallets[2], { nonce: 0, value: 10n ** 23n })),
    refused(
      5,
      'insufficient funds for gas * price + value: balance 10000000000000000000000, tx cost 100000000210000000000000',
      'insufficient_funds',
    ),
  );
  assert.deepEqual(
    await check(
      await wrappedEthTx(wallets[2], { nonce: 0, maxFeePerGas: 10n ** 8n, maxPriorityFeePerGas: 1n }),
    ),
    refused(13, 'max fee per gas less than block base fee', 'fee_cap_below_base_fee'),
  );
  assert.deepEqual(
    await check(await wrappedEthTx(wallets[2], { nonce: 0, gasLimit: 20_000n })),
    refused(11, 'intrinsic gas too low', 'intrinsic_gas_too_low'),
  );
  // the committed tx itself: a used nonce, as geth's pool answers a mined tx sent again
  assert.deepEqual(
    await check(first),
    refused(32, 'nonce too low: next nonce 1, tx nonce 0', 'nonce_too_low'),
  );
  // an Ethereum envelope holding no transaction
  assert.deepEqual(
    await check(wrapEthTransaction(Uint8Array.of(0x02, 1, 2, 3))),
    refused(18, 'rlp: invalid RLP: remainder must be zero', 'malformed'),
  );
  // bytes that are no TxRaw at all: the Cosmos decoder refuses them (ErrTxDecode)
  const garbage = await check(Uint8Array.of(1, 2, 3, 4));
  assert.equal(garbage.code, 2);
  assert.equal(garbage.codespace, 'sdk');
  assert.match(garbage.log, /^tx parse error: /);
  assert.equal(garbage.gasWanted, 0n);
  assert.equal(h.mempool.pending() + h.mempool.queued() + h.cosmosPool.size, 0, 'nothing was admitted');
});

test('CheckTx RECHECK: a tx whose nonce a committed block used is refused, as is one the block included; a pending one stays', async (t) => {
  const h = await openAbciApp(makeHome(t));
  t.after(() => h.close());
  const stale = await wrappedEthTx(wallets[0], { nonce: 0, value: 1n });
  const pending = await wrappedEthTx(wallets[1], { nonce: 0 });
  for (const tx of [stale, pending]) assert.equal((await h.call('checkTx', { tx })).code, 0);
  const recheck = (tx: Uint8Array) => h.call('checkTx', { tx, type: CheckTxType.RECHECK });
  assert.equal((await recheck(stale)).code, 0, 'held before the block');

  // a block decided by others holds another tx of wallet 0 with the same nonce
  const other = await wrappedEthTx(wallets[0], { nonce: 0, value: 2n });
  await decidedBlock(h, 1, GENESIS_SECONDS + 5, [other]);
  const gone = {
    code: 1,
    data: EMPTY,
    log: 'no longer in the application mempool',
    info: '',
    gasWanted: 0n,
    gasUsed: 0n,
    events: [],
    codespace: 'chaind',
  };
  assert.deepEqual(await recheck(stale), gone);
  assert.equal(h.mempool.has(keccak_256(unwrapEthTransaction(stale)!)), false);
  assert.deepEqual(await recheck(pending), { ...gone, code: 0, log: '', codespace: '' });
  // offered anew, it is refused for its nonce
  assert.deepEqual(
    await h.call('checkTx', { tx: stale }),
    refused(32, 'nonce too low: next nonce 1, tx nonce 0', 'nonce_too_low'),
  );

  // block 2 includes the pending tx: rechecked, it is gone too
  await decidedBlock(h, 2, GENESIS_SECONDS + 10, [pending]);
  assert.deepEqual(await recheck(pending), gone);
});
