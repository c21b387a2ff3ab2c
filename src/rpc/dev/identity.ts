/**
 * How a dev chain tells tools what it is. Hardhat's network helpers (loadFixture, time, mine, …) run
 * only when `web3_clientVersion` starts with `hardhat`, `anvil` or `zksync`, so a dev chain's begins
 * with `anvil-compatible`; `hardhat_metadata` and `anvil_nodeInfo` answer in Hardhat's and anvil's
 * shapes.
 */
import { data, hash32, quantity } from '../codecs/hex.ts';
import { method, type MethodTable } from '../server/dispatcher.ts';
import type { ChainReader } from '../evm/backend.ts';
import { GasPriceOracle } from '../evm/gas-price-oracle.ts';
import type { DevNode } from './backend.ts';

export function identityMethods(dev: DevNode, chain: ChainReader): MethodTable {
  const oracle = new GasPriceOracle(chain);
  const latest = async () => {
    const height = chain.latestHeight();
    const block = await chain.block(height);
    return { height, block };
  };
  return {
    web3_clientVersion: method([], () => dev.clientVersion),
    hardhat_metadata: method([], async () => {
      const { height, block } = await latest();
      return {
        clientVersion: dev.clientVersion,
        chainId: Number(chain.chainId),
        instanceId: data(dev.instanceId),
        latestBlockNumber: height,
        latestBlockHash: block ? hash32(block.hash) : null,
      };
    }),
    anvil_nodeInfo: method([], async () => {
      const { height, block } = await latest();
      return {
        currentBlockNumber: quantity(height),
        currentBlockTimestamp: block?.timestamp ?? 0,
        currentBlockHash: block ? hash32(block.hash) : null,
        hardFork: 'prague',
        transactionOrder: 'fees',
        environment: {
          baseFee: quantity(await chain.nextBaseFee()),
          chainId: Number(chain.chainId),
          gasLimit: block ? quantity(block.gasLimit) : null,
          gasPrice: quantity(await oracle.suggestGasPrice()),
        },
        forkConfig: { forkUrl: null, forkBlockNumber: null, forkRetryBackoff: null },
      };
    }),
  };
}
