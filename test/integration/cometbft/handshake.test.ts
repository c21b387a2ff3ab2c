/**
 * The ABCI handshake on a fresh home: Info says there is no block yet, and InitChain answers the app
 * hash of the genesis state, which the chain committed when it opened.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { APP_VERSION } from '../../../src/node/consensus-services.ts';
import { makeHome } from '../../helpers/node.ts';
import { at, CHAIN_ID, GENESIS_SECONDS, hex, openAbciApp, peerHome } from './helpers.ts';

/** What CometBFT v0.38 sends in Info. */
const INFO = { version: '0.38.17', blockVersion: 11n, p2pVersion: 8n, abciVersion: '2.0.0' };

const initChain = (chainId: string, initialHeight = 1n) => ({
  time: at(GENESIS_SECONDS),
  chainId,
  initialHeight,
  validators: [],
  appStateBytes: new Uint8Array(0),
});

test('Info on a fresh home answers height 0 and no app hash; InitChain answers the genesis state’s app hash', async (t) => {
  const h = await openAbciApp(makeHome(t));
  t.after(() => h.close());

  assert.deepEqual(await h.call('info', INFO), {
    data: 'chaind',
    version: APP_VERSION,
    appVersion: 0n,
    lastBlockHeight: 0n,
    // at height 0 CometBFT expects an empty app hash, and then calls InitChain
    lastBlockAppHash: new Uint8Array(0),
  });

  const genesisHash = h.chain.appHash;
  assert.equal(genesisHash.length, 32);
  const init = await h.call('initChain', initChain(CHAIN_ID));
  assert.deepEqual(init.validators, [], 'CometBFT keeps its genesis validators');
  assert.equal(hex(init.appHash), hex(genesisHash));
  assert.equal(init.consensusParams, undefined);

  // another validator's home with the same genesis answers the same hash: it is the genesis state's
  const other = await openAbciApp(peerHome(t, h.home));
  t.after(() => other.close());
  assert.equal(hex((await other.call('initChain', initChain(CHAIN_ID))).appHash), hex(genesisHash));

  // InitChain commits no block: Info still answers the handshake of a fresh chain
  assert.equal((await h.call('info', INFO)).lastBlockHeight, 0n);
  assert.equal((await h.call('info', INFO)).lastBlockAppHash.length, 0);
});

test('InitChain with another chain id or initial height fails (CometBFT stops on the exception)', async (t) => {
  const h = await openAbciApp(makeHome(t));
  t.after(() => h.close());
  await assert.rejects(
    h.call('initChain', initChain('other-1')),
    /CometBFT's genesis has chain id other-1, config\/genesis.json has it-1/,
  );
  await assert.rejects(
    h.call('initChain', initChain(CHAIN_ID, 5n)),
    /initial_height 5 is not supported \(only 1\)/,
  );
});
