import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildGenesis, GenesisError, parseGenesis } from '../../../../src/app/genesis.ts';
import { initChainState } from '../../../../src/app/init-chain.ts';
import { readEvidenceMaxAge, readSlashingParams } from '../../../../src/app/slashing/params.ts';
import { SigningInfoReader } from '../../../../src/app/slashing/signing-info.ts';
import { parseDec } from '../../../../src/app/staking/dec.ts';
import { accountsFromMnemonic, toValoperAddress } from '../../../../src/crypto/accounts.ts';
import { sha256 } from '../../../../src/crypto/hash.ts';
import { StateOverlay } from '../../../../src/state/overlay.ts';

const [a] = accountsFromMnemonic('test test test test test test test test test test test junk', 1);
const PUBKEY = Buffer.alloc(32, 9);
const genesis = (slashingParams?: Record<string, string>) =>
  buildGenesis({
    chainId: 'c',
    moniker: 'm',
    validator: {
      // the consensus address of the key, as the staking genesis check requires
      address: Buffer.from(sha256(PUBKEY).subarray(0, 20)).toString('hex').toUpperCase(),
      pubKeyBase64: PUBKEY.toString('base64'),
      operatorAddress: toValoperAddress(a.cosmosAddress),
    },
    slashingParams,
  });

test('genesis slashing params: defaults, a short test window, and clear errors', () => {
  assert.deepEqual(genesis().app_state.slashing!.params, {
    signed_blocks_window: '100',
    min_signed_per_window: '0.500000000000000000',
    downtime_jail_duration: '600s',
    slash_fraction_double_sign: '0.050000000000000000',
    slash_fraction_downtime: '0.010000000000000000',
  });
  const short = genesis({
    signed_blocks_window: '10',
    min_signed_per_window: '0.5',
    downtime_jail_duration: '5s',
  });
  assert.equal(parseGenesis(JSON.stringify(short)).app_state.slashing!.params.signed_blocks_window, '10');
  const bad = (params: Record<string, string>, message: RegExp) => {
    const g = genesis(params);
    assert.throws(
      () => parseGenesis(JSON.stringify(g)),
      (err: unknown) => {
        assert.ok(err instanceof GenesisError);
        assert.match(err.message, message);
        return true;
      },
    );
  };
  bad(
    { signed_blocks_window: '0' },
    /genesis\.json: app_state\.slashing\.params\.signed_blocks_window: must be an integer string from 1/,
  );
  bad(
    { min_signed_per_window: '1.5' },
    /app_state\.slashing\.params\.min_signed_per_window: must be between 0 and 1/,
  );
  bad(
    { slash_fraction_downtime: 'x' },
    /app_state\.slashing\.params\.slash_fraction_downtime: must be a decimal/,
  );
  bad(
    { downtime_jail_duration: '10m' },
    /downtime_jail_duration: must be a positive whole number of seconds/,
  );
  const without = genesis();
  delete without.app_state.slashing;
  assert.equal(parseGenesis(JSON.stringify(without)).app_state.slashing, undefined);
});

test('init chain writes the params, the evidence age limits and a signing info from height 0 per bonded validator', () => {
  const state = new StateOverlay({ get: () => undefined });
  initChainState(genesis({ signed_blocks_window: '10' }), state);
  const p = readSlashingParams(state);
  assert.equal(p.signedBlocksWindow, 10);
  assert.equal(p.slashFractionDoubleSign, parseDec('0.05'));
  assert.deepEqual(readEvidenceMaxAge(state), { numBlocks: 100_000, durationNs: 172_800_000_000_000n });
  const info = new SigningInfoReader(state).get(sha256(PUBKEY).subarray(0, 20));
  assert.ok(info);
  assert.equal(info.startHeight, 0);
  assert.equal(info.tombstoned, false);
  // a genesis without the section gets the defaults
  const without = genesis();
  delete without.app_state.slashing;
  const s2 = new StateOverlay({ get: () => undefined });
  initChainState(without, s2);
  assert.equal(readSlashingParams(s2).signedBlocksWindow, 100);
});
