/**
 * The EVM mempool and the Cosmos tx pool, configured from `[mempool]` and the genesis limits, both
 * admitting against the chain's latest committed state.
 */
import type { Genesis } from '../app/genesis.ts';
import { parseMinGasPrice } from '../app/cosmos-deliver.ts';
import { readBaseFee } from '../chain/block-execution.ts';
import type { Chain } from '../chain/chain.ts';
import type { NodeConfig } from '../config/schema.ts';
import { CosmosPool } from '../mempool/cosmos-pool.ts';
import { Mempool } from '../mempool/mempool.ts';
import { ETH_TX_MAX_BYTES } from '../mempool/types.ts';

export function createMempools(
  o: { config: NodeConfig; genesis: Genesis },
  chain: Chain,
): { mempool: Mempool; cosmosPool: CosmosPool } {
  const { genesis, config } = o;
  const m = config.config.mempool;
  const maxTxBytes = Number(genesis.consensus_params.block.max_bytes);
  const mempool = new Mempool({
    options: {
      size: m.size,
      cacheSize: m.cacheSize,
      keepInvalidTxsInCache: m.keepInvalidTxsInCache,
      ttlDurationMs: m.ttlDuration,
      ttlNumBlocks: m.ttlNumBlocks,
    },
    params: {
      chainId: BigInt(genesis.app_state.evm.params.chain_id),
      // a dev chain's limit may change at run time (evm_setBlockGasLimit)
      get blockGasLimit() {
        return chain.gasLimit;
      },
      baseFee: () => readBaseFee(chain.state, chain.feeParams),
      maxTxBytes: Math.min(maxTxBytes, ETH_TX_MAX_BYTES),
    },
    accounts: chain.latestAccounts,
    decode: chain.decode,
    height: chain.latestHeight,
  });
  const cosmosPool = new CosmosPool({
    options: mempool.options,
    ctx: {
      chainId: genesis.chain_id,
      get maxBlockGas() {
        return chain.gasLimit;
      },
    },
    minGasPrice: parseMinGasPrice(config.app.minimumGasPrices),
    state: () => chain.state,
    maxTxBytes,
    height: chain.latestHeight,
  });
  return { mempool, cosmosPool };
}
