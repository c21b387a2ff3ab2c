/** Configurations a node refuses before it opens anything, each with the setting to change. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Genesis } from '../app/genesis.ts';
import { ed25519Address, ed25519FromJson } from '../crypto/node-keys.ts';
import { toHex } from '../primitives/bytes.ts';
import { ChainError } from '../util/errors.ts';
import type { NodeOptions } from './node-options.ts';

export function refuseUnsupportedConfig(o: NodeOptions): void {
  const { config } = o;
  if (!config.app.stateCommit.scEnable) {
    throw new ChainError(
      'CONFIG_INVALID',
      'app.toml: state-commit.sc-enable = false is not supported: State Commit computes the app hash ' +
        'every block header carries and holds the state blocks execute on, so no node runs without it; set it to true',
    );
  }
  if (config.app.stateStore.evmSsSplit && config.config.consensus.engine === 'cometbft')
    refuseSplitOnValidator(o.home, o.genesis);
}

/**
 * The EVM State Store split is for RPC nodes only: a network node whose validator key is in the
 * validator set refuses to start with it. (The embedded engine of a local dev chain is a validator by
 * construction and may use it to try the layout.)
 */
function refuseSplitOnValidator(home: string, genesis: Genesis): void {
  const path = join(home, 'config', 'priv_validator_key.json');
  const key = ed25519FromJson(JSON.parse(readFileSync(path, 'utf8')), path);
  const address = toHex(ed25519Address(key.publicKey)).toUpperCase();
  if (genesis.validators.some((v) => v.address === address))
    throw new ChainError(
      'CONFIG_INVALID',
      `app.toml: state-store.evm-ss-split = true is supported on RPC nodes only, and this node's validator key (address ${address}, ${path}) is in the validator set; set evm-ss-split = false, or use the split on a node outside the set`,
    );
}
