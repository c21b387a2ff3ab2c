import hardhatToolboxMochaEthers from '@nomicfoundation/hardhat-toolbox-mocha-ethers';
import { defineConfig } from 'hardhat/config';
import { createRequire } from 'node:module';

/**
 * Compiles with the solc-js of the chaind repository (its `solc` devDependency), so no compiler is
 * downloaded; the `chaind` network is a running `chaind dev` (its URL in CHAIND_RPC_URL), whose
 * well-known dev accounts the node itself signs for, as anvil's are used: Hardhat signs every
 * eth_sendTransaction of a network given a mnemonic itself and refuses an address it has no key
 * for, so `impersonateAccount` could not send there (on anvil neither).
 */
const solcjs = createRequire(new URL('../../package.json', import.meta.url)).resolve('solc/soljson.js');

export default defineConfig({
  plugins: [hardhatToolboxMochaEthers],
  // chaind runs Prague (Osaka only when enabled): solc 0.8.31's default target is Osaka
  solidity: { version: '0.8.31', path: solcjs, settings: { evmVersion: 'prague' } },
  networks: {
    chaind: {
      type: 'http',
      chainType: 'l1',
      url: process.env.CHAIND_RPC_URL ?? 'http://127.0.0.1:8545',
      chainId: 713714,
      accounts: 'remote',
    },
  },
});
