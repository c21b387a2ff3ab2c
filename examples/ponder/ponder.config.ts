import { createConfig, factory } from 'ponder';
import { getAbiItem } from 'viem';
import { ChildAbi } from './abis/Child';
import { FactoryAbi } from './abis/Factory';
import { TokenAbi } from './abis/Token';

/** Everything about the chain comes from the environment: scripts/activity.ts writes it to .env.local. */
function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (run scripts/activity.ts first, or set it by hand)`);
  return value;
}

const address = (name: string) => env(name) as `0x${string}`;
const startBlock = Number(env('PONDER_START_BLOCK'));

export default createConfig({
  // the embedded PGlite, in .ponder/pglite unless PONDER_DATABASE_DIR says where
  database: { kind: 'pglite', directory: process.env.PONDER_DATABASE_DIR },
  chains: {
    chaind: {
      id: Number(env('PONDER_CHAIN_ID')),
      rpc: env('PONDER_RPC_URL'),
      // new blocks from eth_subscribe("newHeads") where a WebSocket URL is given, else polled over HTTP
      ws: process.env.PONDER_WS_URL || undefined,
      // a dev chain makes a block a second or faster: poll at its pace
      pollingInterval: Number(process.env.PONDER_POLLING_INTERVAL ?? 1_000),
    },
  },
  contracts: {
    Token: {
      chain: 'chaind',
      abi: TokenAbi,
      address: address('PONDER_TOKEN_ADDRESS'),
      startBlock,
      // each transfer's receipt too (eth_getBlockReceipts, or eth_getTransactionReceipt)
      includeTransactionReceipts: true,
    },
    Factory: {
      chain: 'chaind',
      abi: FactoryAbi,
      address: address('PONDER_FACTORY_ADDRESS'),
      startBlock,
      // every call into the factory, from debug_trace* with the callTracer
      includeCallTraces: true,
    },
    Child: {
      chain: 'chaind',
      abi: ChildAbi,
      // the children are the contracts the factory announces in ChildCreated
      address: factory({
        address: address('PONDER_FACTORY_ADDRESS'),
        event: getAbiItem({ abi: FactoryAbi, name: 'ChildCreated' }),
        parameter: 'child',
      }),
      startBlock,
      // calls into the children too, whether from an account or from the factory
      includeCallTraces: true,
    },
  },
});
