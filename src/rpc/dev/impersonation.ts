/**
 * Sending as an account without its key, as anvil and Hardhat let a test do: an impersonated
 * address's eth_sendTransaction is filled like a dev account's (accounts.ts) and submitted unsigned,
 * recorded in its block with its sender, so a restart replays it. Answers are anvil's (null) except
 * under the `hardhat_` names, which answer as Hardhat does.
 */
import { p } from '../codecs/params.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import type { DevNode } from './backend.ts';

export function impersonationMethods(dev: DevNode): MethodTable {
  const { impersonation } = dev;
  return {
    hardhat_impersonateAccount: method([p.address], (address) => {
      impersonation.start(address);
      return true;
    }),
    anvil_impersonateAccount: method([p.address], (address) => {
      impersonation.start(address);
      return null;
    }),
    hardhat_stopImpersonatingAccount: method([p.address], (address) => impersonation.stop(address)),
    anvil_stopImpersonatingAccount: method([p.address], (address) => {
      impersonation.stop(address);
      return null;
    }),
    anvil_autoImpersonateAccount: method([p.bool], (on) => {
      impersonation.setAuto(on);
      return null;
    }),
  };
}
