/** Writes the genesis app_state into the stores: the state of height 0. */
import { fromBech32 } from '../crypto/accounts.ts';
import { fromHex, utf8 } from '../primitives/bytes.ts';
import { BECH32_ACCOUNT_PREFIX, BASE_DENOM, WEI_PER_UCHAIN } from '../primitives/identity.ts';
import { Auth } from './auth.ts';
import { Bank } from './bank.ts';
import { Evm } from './evm.ts';
import { type Genesis, GenesisError } from './genesis.ts';
import { afterValidatorBonded } from './slashing/bonded.ts';
import {
  DEFAULT_SLASHING_PARAMS,
  parseSlashingParams,
  writeEvidenceMaxAge,
  writeSlashingParams,
} from './slashing/params.ts';
import { initStakingGenesis } from './staking/genesis.ts';
import { sha256 } from '../crypto/hash.ts';
import type { StateWriter } from './state-access.ts';
import { paramsKeys, STORES } from './store-keys.ts';

export function initChainState(genesis: Genesis, state: StateWriter): void {
  const auth = new Auth(state);
  const bank = new Bank(state);
  const evm = new Evm(state);
  const app = genesis.app_state;

  const cosmos = (addr: string, where: string) => {
    try {
      return fromBech32(addr, BECH32_ACCOUNT_PREFIX);
    } catch (err) {
      throw new GenesisError(`genesis.json: ${where}: ${(err as Error).message}`);
    }
  };

  for (const [i, a] of app.auth.accounts.entries())
    auth.ensureAccount(cosmos(a.address, `app_state.auth.accounts[${i}].address`));
  let supply = 0n;
  for (const [i, b] of app.bank.balances.entries()) {
    const addr = cosmos(b.address, `app_state.bank.balances[${i}].address`);
    auth.ensureAccount(addr);
    for (const c of b.coins) {
      if (c.denom !== BASE_DENOM) continue;
      bank.addWei(addr, BigInt(c.amount) * WEI_PER_UCHAIN);
      supply += BigInt(c.amount);
    }
  }
  bank.setSupply(supply);

  for (const [i, a] of (app.evm.address_associations ?? []).entries()) {
    const evmAddr = fromHex(a.evm_address);
    if (evmAddr.length !== 20)
      throw new GenesisError(
        `genesis.json: app_state.evm.address_associations[${i}].evm_address: must be 20 bytes of hex`,
      );
    evm.associate(
      evmAddr,
      cosmos(a.cosmos_address, `app_state.evm.address_associations[${i}].cosmos_address`),
    );
  }
  initStakingGenesis(genesis, state);

  state.set(STORES.params, paramsKeys.module('evm'), utf8(JSON.stringify(app.evm.params)));
  state.set(STORES.params, paramsKeys.module('bank'), utf8(JSON.stringify(app.bank.params)));
  state.set(STORES.params, paramsKeys.module('auth'), utf8(JSON.stringify(app.auth.params)));

  // slashing: its params, the evidence age limits equivocation checks, and a signing info from
  // height 0 for each validator bonded at genesis (the SDK's genesis bonding runs the same hook)
  writeSlashingParams(state, parseSlashingParams(app.slashing?.params ?? DEFAULT_SLASHING_PARAMS));
  writeEvidenceMaxAge(state, {
    numBlocks: Number(genesis.consensus_params.evidence.max_age_num_blocks),
    durationNs: BigInt(genesis.consensus_params.evidence.max_age_duration),
  });
  for (const v of app.staking.validators)
    if (v.status === 'BOND_STATUS_BONDED')
      afterValidatorBonded(state, sha256(Buffer.from(v.consensus_pubkey.key, 'base64')).subarray(0, 20), 0);
}
