/** Writes the genesis app_state into the stores: the state of height 0. */
import { fromBech32 } from '../crypto/accounts.ts';
import { fromHex, utf8 } from '../primitives/bytes.ts';
import { BECH32_ACCOUNT_PREFIX, BASE_DENOM, WEI_PER_UCHAIN } from '../primitives/identity.ts';
import { Auth } from './auth.ts';
import { Bank } from './bank.ts';
import { Evm } from './evm.ts';
import { type Genesis, GenesisError } from './genesis.ts';
import { initStakingGenesis } from './staking/genesis.ts';
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
}
